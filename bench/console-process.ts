/** ctpool's live console in a pseudo-terminal, waiting for a screen (its members table, complete). */

import { type PtyProcess, Screen, startPty, terminalEnv } from '../test/support/terminal.js';
import { type CompleteTable, isTableComplete } from './console-screen.js';
import type { BenchContext } from './context.js';
import { DESK } from './desk-pool.js';

/** A running console and its screen. */
export interface ConsoleRun {
	pty: PtyProcess;
	/** Resolves with the arrival time (wallMs) of the frame that completed the table. */
	complete: Promise<number>;
	/**
	 * Resolves with the arrival time of the next frame (or the screen now) for which `check`
	 * holds; rejects after timeoutMs or when the console exits. Needs the screen attached.
	 */
	until(what: string, check: (lines: string[]) => boolean, timeoutMs?: number): Promise<number>;
	/** The screen lines now (while the screen is still read). */
	lines(): string[];
	/** Stops reading the screen (it costs the driver CPU); the raw bytes still flow. */
	detachScreen(): void;
}

/** How the console is started and when its first screen counts as complete. */
export interface ConsoleStart {
	/** What the first screen must show: a members table, or any check of the lines. */
	want: CompleteTable | { what: string; check: (lines: string[]) => boolean };
	/** The console's arguments before --kubeconfig (default: the table's pool in the desk namespace). */
	args?: string[];
	timeoutMs?: number;
	nodeArgs?: string[];
}

/** Starts `node dist/cli.js <args> --kubeconfig K` in a terminal and watches for the complete screen. */
export function startConsole(
	ctx: BenchContext,
	want: CompleteTable,
	opts?: Omit<ConsoleStart, 'want'>,
): ConsoleRun;
/** Starts the console as the start describes. */
export function startConsole(ctx: BenchContext, start: ConsoleStart): ConsoleRun;
export function startConsole(
	ctx: BenchContext,
	a: CompleteTable | ConsoleStart,
	b: Omit<ConsoleStart, 'want'> = {},
): ConsoleRun {
	const start: ConsoleStart = 'want' in a ? a : { ...b, want: a };
	const { columns, rows } = ctx.opts;
	const want = start.want;
	const args = start.args ?? ['pool' in want ? want.pool : DESK.pool, '-n', DESK.namespace];
	const pty = startPty(
		process.execPath,
		[...(start.nodeArgs ?? []), ctx.cli, ...args, '--kubeconfig', ctx.sim.kubeconfig],
		{ columns, rows, env: terminalEnv(), cwd: ctx.root },
	);
	const screen = new Screen(columns, rows);
	let last: string[] = [];
	let attached = true;
	const waiters = new Set<(lines: string[], at: number) => void>();
	const unsubscribe = pty.onChunk((data, at) =>
		screen.feed(data, at, (lines, frameAt) => {
			last = lines;
			for (const w of [...waiters]) w(lines, frameAt);
		}),
	);
	const until = (what: string, check: (lines: string[]) => boolean, timeoutMs = 60_000) =>
		new Promise<number>((resolve, reject) => {
			if (!attached) {
				reject(new Error(`the screen is no longer read (waiting for ${what})`));
				return;
			}
			let waiter: (lines: string[], at: number) => void = () => {};
			const timer = setTimeout(() => {
				waiters.delete(waiter);
				reject(
					new Error(
						`the console did not show ${what} within ${timeoutMs} ms; screen:\n${last.join('\n')}`,
					),
				);
			}, timeoutMs);
			waiter = (lines, at) => {
				if (!check(lines)) return;
				waiters.delete(waiter);
				clearTimeout(timer);
				resolve(at);
			};
			waiters.add(waiter);
			void pty.exited.then((code) => {
				if (!waiters.has(waiter)) return;
				waiters.delete(waiter);
				clearTimeout(timer);
				reject(
					new Error(`the console exited (${code}) before showing ${what}:\n${last.join('\n')}`),
				);
			});
		});
	const complete =
		'pool' in want
			? until(
					`the complete members table of ${want.pool} (observed ${want.observed}, ready ${want.ready})`,
					(lines) => isTableComplete(lines, want),
					start.timeoutMs,
				)
			: until(want.what, want.check, start.timeoutMs);
	complete.catch(() => {});
	return {
		pty,
		complete,
		until,
		lines: () => last,
		detachScreen() {
			if (!attached) return;
			attached = false;
			unsubscribe();
			screen.dispose();
		},
	};
}
