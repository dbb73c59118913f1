/**
 * The faults of a chaos run over time: watches dropped every few seconds throughout,
 * alternating calm, flaky and stormy spells of 500/503 answers and added latency, forced
 * 410s now and then, and bursts of refused connections.
 */

import type { FaultSwitch } from '../source/sim/index.js';
import type { Random } from './random.js';

/** How the schedule runs. */
export interface FaultScheduleOptions {
	durationMs: number;
	/** Watches are dropped this often (ms). */
	dropWatchesEveryMs: number;
	/** The highest error rate of a storm. */
	maxErrorRate: number;
	/** How many bursts of refused connections (spread over the middle of the run). */
	refusedBursts: number;
	rng: Random;
	log(line: string): void;
}

/** The spells the schedule went through. */
export interface FaultScheduleCounts {
	spells: number;
	calm: number;
	flaky: number;
	storm: number;
	/** 410s asked for (one-shot). */
	forced410Asked: number;
	refusedBursts: number;
}

type Spell = 'calm' | 'flaky' | 'storm';

/** A running fault schedule. */
export interface FaultSchedule {
	stop(): void;
	counts(): FaultScheduleCounts;
}

/** Counts of a schedule that has done nothing yet. */
export function zeroFaultCounts(): FaultScheduleCounts {
	return { spells: 0, calm: 0, flaky: 0, storm: 0, forced410Asked: 0, refusedBursts: 0 };
}

/** Starts changing the faults of the switch over time. */
export function startFaultSchedule(faults: FaultSwitch, opts: FaultScheduleOptions): FaultSchedule {
	const { rng } = opts;
	const counts = zeroFaultCounts();
	const timers = new Set<NodeJS.Timeout>();
	let stopped = false;
	const later = (ms: number, fn: () => void) => {
		const t = setTimeout(() => {
			timers.delete(t);
			if (!stopped) fn();
		}, ms);
		timers.add(t);
	};

	faults.set({ dropWatchesEveryMs: opts.dropWatchesEveryMs, seed: rng.int(1, 2 ** 31 - 1) });

	const spell = () => {
		const kind: Spell = rng.weighted({ calm: 30, flaky: 50, storm: 20 });
		counts.spells++;
		counts[kind]++;
		const errorRate =
			kind === 'calm'
				? 0
				: kind === 'flaky'
					? opts.maxErrorRate * (0.2 + 0.3 * rng.next())
					: opts.maxErrorRate * (0.6 + 0.4 * rng.next());
		const latencyMs = kind === 'calm' ? 0 : kind === 'flaky' ? rng.int(0, 10) : rng.int(10, 60);
		faults.set({ errorRate, latencyMs });
		let note = '';
		if (kind !== 'calm' && rng.chance(0.5)) {
			const n = rng.int(1, 3);
			faults.force410Once(n);
			counts.forced410Asked += n;
			note = `, ${n} forced 410${n > 1 ? 's' : ''}`;
		}
		opts.log(
			`faults: ${kind} (error rate ${(errorRate * 100).toFixed(1)}%, latency ${latencyMs} ms${note})`,
		);
		later(rng.int(2500, 6000), spell);
	};
	spell();

	for (let i = 0; i < opts.refusedBursts; i++) {
		const at = Math.floor(opts.durationMs * (0.2 + 0.6 * rng.next()));
		const length = rng.int(800, 2500);
		later(at, () => {
			counts.refusedBursts++;
			opts.log(`faults: refusing connections for ${length} ms`);
			faults.refuseConnectionsFor(length);
		});
	}

	return {
		stop() {
			stopped = true;
			for (const t of timers) clearTimeout(t);
			timers.clear();
		},
		counts: () => ({ ...counts }),
	};
}
