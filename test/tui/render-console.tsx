/** Renders the console app into a fake terminal of a chosen size, for component tests. */

import { EventEmitter } from 'node:events';
import { render } from 'ink';
import { createTheme } from '../../source/tui/render/theme.js';
import type { ConsoleOperations } from '../../source/tui/session/operations.js';
import { NO_OPERATIONS } from '../../source/tui/session/operations.js';
import type { ConsoleStore } from '../../source/tui/store/store.js';
import { App } from '../../source/tui/views/App.js';

class FakeStdout extends EventEmitter {
	columns: number;
	rows: number;
	frames: string[] = [];
	constructor(columns: number, rows: number) {
		super();
		this.columns = columns;
		this.rows = rows;
	}
	write = (frame: string) => {
		this.frames.push(frame);
		return true;
	};
}

/** A terminal's input: write() types; setRawMode tells onRawMode, if given. */
export class FakeStdin extends EventEmitter {
	isTTY = true;
	private data: string | null = null;
	constructor(private readonly onRawMode?: (raw: boolean) => void) {
		super();
	}
	write(data: string) {
		this.data = data;
		this.emit('readable');
	}
	read = () => {
		const d = this.data;
		this.data = null;
		return d;
	};
	setEncoding() {}
	setRawMode(raw: boolean) {
		this.onRawMode?.(raw);
		return this;
	}
	resume() {}
	pause() {}
	ref() {}
	unref() {}
}

/** Lets React and Ink flush (a macrotask). */
export function flush(ms = 0): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A rendered console. */
export interface RenderedConsole {
	lastFrame(): string;
	/** Types keys (each string one key press) and lets the app flush after each. */
	press(...keys: string[]): Promise<void>;
	resize(columns: number, rows: number): Promise<void>;
	unmount(): void;
	exited(): Promise<unknown>;
	stdout: FakeStdout;
}

/** Key sequences by name. */
export const KEY = {
	up: '\u001b[A',
	down: '\u001b[B',
	enter: '\r',
	escape: '\u001b',
	backspace: '\u007f',
	pageDown: '\u001b[6~',
	pageUp: '\u001b[5~',
	ctrlC: '\u0003',
	left: '\u001b[D',
	right: '\u001b[C',
	tab: '\t',
} as const;

/** Renders the app with the store at columns x rows. */
export async function renderConsole(
	store: ConsoleStore,
	opts: { columns?: number; rows?: number; ops?: ConsoleOperations; noColor?: boolean } = {},
): Promise<RenderedConsole> {
	const stdout = new FakeStdout(opts.columns ?? 100, opts.rows ?? 30);
	const stdin = new FakeStdin();
	const instance = render(
		<App
			store={store}
			ops={opts.ops ?? NO_OPERATIONS}
			theme={createTheme(opts.noColor ?? false)}
		/>,
		{
			stdout: stdout as unknown as NodeJS.WriteStream,
			stdin: stdin as unknown as NodeJS.ReadStream,
			stderr: new FakeStdout(100, 30) as unknown as NodeJS.WriteStream,
			debug: true,
			exitOnCtrlC: false,
			patchConsole: false,
		},
	);
	const exitPromise = instance.waitUntilExit();
	await flush();
	return {
		lastFrame: () => stdout.frames.at(-1) ?? '',
		async press(...keys) {
			for (const k of keys) {
				stdin.write(k);
				await flush();
			}
			await flush();
		},
		async resize(columns, rows) {
			stdout.columns = columns;
			stdout.rows = rows;
			stdout.emit('resize');
			await flush();
		},
		unmount: () => instance.unmount(),
		exited: () => exitPromise,
		stdout,
	};
}
