/** A clock for controller tests: time moves only when the test advances it. */

import type { Clock, TimerHandle } from '../../source/controller/clock.js';

interface FakeTimer {
	id: number;
	at: number;
	fn: () => void;
}

/** A fake clock: timers fire in time order as advance() passes them. */
export class FakeClock implements Clock {
	private time: number;
	private timers: FakeTimer[] = [];
	private nextId = 1;

	constructor(start = Date.UTC(2026, 10, 30, 12, 0, 0)) {
		this.time = start;
	}

	now(): number {
		return this.time;
	}

	setTimeout(fn: () => void, ms: number): TimerHandle {
		const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), fn };
		this.timers.push(timer);
		return { id: timer.id };
	}

	clearTimeout(handle: TimerHandle): void {
		const id = (handle as { id?: unknown }).id;
		this.timers = this.timers.filter((t) => t.id !== id);
	}

	/** How many timers are set. */
	pending(): number {
		return this.timers.length;
	}

	/**
	 * Moves time forward by ms, firing each timer due on the way in time order; after each,
	 * waits for `settle` (the work a timer started, such as a controller going idle).
	 */
	async advance(ms: number, settle: () => Promise<void> = async () => {}): Promise<void> {
		const target = this.time + ms;
		await settle();
		for (;;) {
			const due = this.timers
				.filter((t) => t.at <= target)
				.sort((a, b) => a.at - b.at || a.id - b.id)[0];
			if (!due) break;
			this.timers = this.timers.filter((t) => t !== due);
			this.time = Math.max(this.time, due.at);
			due.fn();
			await settle();
		}
		this.time = target;
	}
}
