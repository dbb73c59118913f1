/** ctpool's live console in a pseudo-terminal, waiting for its members table to be complete. */

import { type PtyProcess, Screen, startPty, terminalEnv } from '../test/support/terminal.js';
import { type CompleteTable, isTableComplete } from './console-screen.js';
import type { BenchContext } from './context.js';
import { DESK } from './desk-pool.js';

/** A running console and its screen. */
export interface ConsoleRun {
	pty: PtyProcess;
	/** Resolves with the arrival time (wallMs) of the frame that completed the table. */
	complete: Promise<number>;
	/** The screen lines now (while the screen is still read). */
	lines(): string[];
	/** Stops reading the screen (it costs the driver CPU); the raw bytes still flow. */
	detachScreen(): void;
}

/** Starts `node dist/cli.js <pool> -n NS --kubeconfig K` in a terminal and watches for the complete table. */
export function startConsole(
	ctx: BenchContext,
	want: CompleteTable,
	opts: { timeoutMs?: number; nodeArgs?: string[] } = {},
): ConsoleRun {
	const { columns, rows } = ctx.opts;
	const pty = startPty(
		process.execPath,
		[
			...(opts.nodeArgs ?? []),
			ctx.cli,
			want.pool,
			'-n',
			DESK.namespace,
			'--kubeconfig',
			ctx.sim.kubeconfig,
		],
		{ columns, rows, env: terminalEnv(), cwd: ctx.root },
	);
	const screen = new Screen(columns, rows);
	let last: string[] = [];
	let unsubscribe: (() => void) | null = null;
	const complete = new Promise<number>((resolve, reject) => {
		const timer = setTimeout(() => {
			reject(
				new Error(
					`the console did not show the complete members table of ${want.pool} (observed ${want.observed}, ready ${want.ready}) within ${opts.timeoutMs ?? 60_000} ms; screen:\n${last.join('\n')}`,
				),
			);
		}, opts.timeoutMs ?? 60_000);
		let done = false;
		unsubscribe = pty.onChunk((data, at) =>
			screen.feed(data, at, (lines, frameAt) => {
				last = lines;
				if (done || !isTableComplete(lines, want)) return;
				done = true;
				clearTimeout(timer);
				resolve(frameAt);
			}),
		);
		void pty.exited.then((code) => {
			if (done) return;
			clearTimeout(timer);
			reject(
				new Error(
					`the console exited (${code}) before its table was complete:\n${last.join('\n')}`,
				),
			);
		});
	});
	complete.catch(() => {});
	return {
		pty,
		complete,
		lines: () => last,
		detachScreen() {
			unsubscribe?.();
			unsubscribe = null;
			screen.dispose();
		},
	};
}
