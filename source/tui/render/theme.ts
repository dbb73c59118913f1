/** Colours of the console, and switching them off (NO_COLOR, --no-color). */

import { createContext, useContext } from 'react';
import type { MemberState } from '../../pool/index.js';

/** A colour name Ink understands, or undefined for the terminal's default. */
export type Colour = string | undefined;

/** The console's colours. */
export interface Theme {
	/** Colours are on. */
	color: boolean;
	state(state: MemberState): Colour;
	accent: Colour;
	ok: Colour;
	warn: Colour;
	error: Colour;
	muted: Colour;
	/** Background of the stale banner and of errors that must stand out. */
	alertBackground: Colour;
}

/** True when colours must be off: --no-color, or NO_COLOR set to anything but ''. */
export function colourDisabled(noColorFlag = false, env: NodeJS.ProcessEnv = process.env): boolean {
	return noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

const STATE_COLOURS: Record<MemberState, string> = {
	Ready: 'green',
	Starting: 'cyan',
	Stopped: 'gray',
	Missing: 'gray',
	Terminating: 'yellow',
	Unschedulable: 'magenta',
	Failed: 'red',
};

/** The theme, with or without colours. */
export function createTheme(noColor: boolean): Theme {
	if (noColor)
		return {
			color: false,
			state: () => undefined,
			accent: undefined,
			ok: undefined,
			warn: undefined,
			error: undefined,
			muted: undefined,
			alertBackground: undefined,
		};
	return {
		color: true,
		state: (s) => STATE_COLOURS[s],
		accent: 'cyan',
		ok: 'green',
		warn: 'yellow',
		error: 'red',
		muted: 'gray',
		alertBackground: 'red',
	};
}

/** The theme of the mounted app. */
export const ThemeContext = createContext<Theme>(createTheme(false));

/** The current theme. */
export function useTheme(): Theme {
	return useContext(ThemeContext);
}
