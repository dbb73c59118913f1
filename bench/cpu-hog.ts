/**
 * A loaded machine on demand: one busy process per core (`--hog`), at normal priority, so a
 * round shows how ctpool and its baselines degrade when every core is contended.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Busy processes running until stopped. */
export interface CpuHog {
	/** How many busy processes run. */
	readonly processes: number;
	stop(): void;
}

/** Starts one busy loop per core (or `n`). */
export function startCpuHog(n = availableParallelism()): CpuHog {
	const children: ChildProcess[] = [];
	for (let i = 0; i < n; i++)
		children.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
	return {
		processes: n,
		stop() {
			for (const c of children) c.kill('SIGKILL');
		},
	};
}
