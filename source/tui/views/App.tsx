/** The console app: picks the layout for the screen and the terminal size; views do the rest. */

import type { EventEmitter } from 'node:events';
import { Box, useApp, useInput, useStdin } from 'ink';
import { useEffect, useRef } from 'react';
import { targetPool } from '../commands/availability.js';
import { handleKey, requestQuit } from '../commands/key-handler.js';
import { keyPresses } from '../commands/keys.js';
import { findHits } from '../model/find-hits.js';
import { parseFilter } from '../model/member-filter.js';
import { connectionView } from '../model/staleness.js';
import { guardInputEvents } from '../render/input-guard.js';
import type { ScrollInfo } from '../render/table-window.js';
import { type Theme, ThemeContext } from '../render/theme.js';
import type { ConsoleOperations } from '../session/operations.js';
import { type ConsoleStore, visibleRows } from '../store/store.js';
import { ActivityLog } from './activity-log.js';
import { AuditView } from './audit-view.js';
import { Header, headerHeight } from './header.js';
import { HelpView } from './help-view.js';
import { KeyHints } from './key-hints.js';
import { LogView } from './log-view.js';
import { MemberDetails } from './member-details.js';
import { MembersView } from './members-view.js';
import { WithNarration } from './narration-pane.js';
import { PoolsView } from './pools-view.js';
import { PromptLine, promptLines, promptRoom } from './prompt-line.js';
import { StaleBanner } from './stale-banner.js';
import { StatusLine } from './status-line.js';
import { TextView } from './text-view.js';
import { MIN_COLUMNS, MIN_ROWS, TooSmall } from './too-small.js';
import { TraceView } from './trace-view.js';
import { StoreContext, useConsole, useConsoleStore, useTerminalSize } from './use-console.js';

/** Props of the app. */
export interface AppProps {
	store: ConsoleStore;
	ops: ConsoleOperations;
	theme: Theme;
}

/** The heights of the parts of the screen. */
export interface ScreenLayout {
	header: number;
	banner: number;
	body: number;
	log: number;
	footer: number;
	hints: number;
}

/**
 * Shares out the terminal rows. One row stays free: output as tall as the terminal makes Ink
 * clear and redraw the whole screen on every frame.
 */
export function screenLayout(
	rows: number,
	parts: {
		header: number;
		stale: boolean;
		showLog: boolean;
		footer: number;
		/** Lines the body would fill (a short table leaves the rest to the log). */
		bodyWants?: number;
	},
): ScreenLayout {
	const budget = Math.max(0, rows - 1);
	const banner = parts.stale ? 1 : 0;
	const hints = 1;
	const rest = Math.max(0, budget - parts.header - banner - parts.footer - hints);
	let log = 0;
	if (parts.showLog) {
		log = Math.max(3, Math.min(12, Math.floor(rest / 3)));
		if (parts.bodyWants !== undefined)
			log = Math.max(log, Math.min(rest - parts.bodyWants, rest - 4));
	}
	return {
		header: parts.header,
		banner,
		body: Math.max(0, rest - log),
		log,
		footer: parts.footer,
		hints,
	};
}

function Layout({ ops }: { ops: ConsoleOperations }) {
	const store = useConsoleStore();
	const { exit } = useApp();
	const { columns, rows } = useTerminalSize();
	const screen = useConsole((s) => s.screen);
	const showLog = useConsole((s) => s.showLog);
	const prompt = useConsole((s) => s.prompt);
	const note = useConsole((s) => s.session.note);
	const pool = useConsole((s) => targetPool(s));
	const stale = useConsole((s) => connectionView(s.connection, s.now).stale);
	const visibleCount = useConsole((s) => visibleRows(s).length);
	const filtering = useConsole((s) => parseFilter(s.filter) !== null);
	const poolCount = useConsole((s) => s.poolNames.length);
	const hitCount = useConsole((s) => (s.find.trim() ? findHits(s).length : -1));
	const page = useRef(10);
	// the text views (details, help, log) say how far they can scroll
	const scrollInfo = useRef<ScrollInfo>({ max: 0 });
	const finished = useConsole((s) => s.request?.kind === 'finish' && s.busy === null);
	// A quit asked for while an operation ran: quit now that it has finished.
	useEffect(() => {
		if (!finished) return;
		store.getState().setRequest({ kind: 'quit' });
		exit();
	}, [finished, store, exit]);
	const tooSmall = columns < MIN_COLUMNS || rows < MIN_ROWS;

	// Before useInput: no input event reaches Ink's parsing unguarded (see input-guard.ts).
	const stdin = useStdin() as { internal_eventEmitter?: EventEmitter };
	guardInputEvents(stdin.internal_eventEmitter);
	useInput((input, key) => {
		if (tooSmall) {
			if (input === 'q' || (key.ctrl && input === 'c')) requestQuit(store, exit);
			return;
		}
		for (const [i, k] of keyPresses(input, key))
			handleKey(i, k, {
				store,
				ops,
				exit,
				pageSize: () => page.current,
				scrollMax: () => scrollInfo.current.max,
			});
	});

	if (tooSmall) return <TooSmall columns={columns} rows={rows} />;

	const footer = prompt ? promptLines(prompt, columns, pool ?? '', promptRoom(rows)).length : 1;
	const layout = screenLayout(rows, {
		header: headerHeight(screen, note),
		stale,
		showLog,
		footer,
		...(screen === 'members'
			? { bodyWants: Math.max(2, visibleCount + 1) + (filtering ? 1 : 0) }
			: screen === 'pools'
				? { bodyWants: hitCount >= 0 ? Math.max(3, hitCount + 2) : Math.max(2, poolCount + 1) }
				: {}),
	});
	page.current = Math.max(1, layout.body - 1);
	// clipped vertically only: every line is already fitted to the width, and a horizontal clip
	// makes Ink slice every line of every frame again (a fifth of what a frame allocates)
	return (
		<Box flexDirection="column" width={columns} height={Math.max(0, rows - 1)} overflowY="hidden">
			<Header />
			<StaleBanner />
			{screen === 'pools' ? (
				<WithNarration width={columns} height={layout.body}>
					{(w, h) => <PoolsView width={w} height={h} />}
				</WithNarration>
			) : screen === 'members' ? (
				<WithNarration width={columns} height={layout.body}>
					{(w, h) => <MembersView width={w} height={h} />}
				</WithNarration>
			) : screen === 'details' ? (
				<MemberDetails width={columns} height={layout.body} scrollInfo={scrollInfo.current} />
			) : screen === 'logs' ? (
				<LogView width={columns} height={layout.body} scrollInfo={scrollInfo.current} />
			) : screen === 'audit' ? (
				<AuditView width={columns} height={layout.body} />
			) : screen === 'trace' ? (
				<TraceView width={columns} height={layout.body} scrollInfo={scrollInfo.current} />
			) : screen === 'text' ? (
				<TextView width={columns} height={layout.body} scrollInfo={scrollInfo.current} />
			) : (
				<HelpView width={columns} height={layout.body} scrollInfo={scrollInfo.current} />
			)}
			{showLog ? <ActivityLog height={layout.log} /> : null}
			{prompt ? (
				<PromptLine prompt={prompt} width={columns} pool={pool ?? ''} maxLines={promptRoom(rows)} />
			) : (
				<StatusLine />
			)}
			<KeyHints />
		</Box>
	);
}

/** The console app. */
export function App({ store, ops, theme }: AppProps) {
	return (
		<StoreContext.Provider value={store}>
			<ThemeContext.Provider value={theme}>
				<Layout ops={ops} />
			</ThemeContext.Provider>
		</StoreContext.Provider>
	);
}
