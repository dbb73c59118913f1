/**
 * A pacer for the narrated demo (`ctpool --demo --narrate`): the items pushed into it (the
 * narrated lines of the trace stream) come out one at a time, each released by the clock
 * (every intervalMs after the one before) or at once by next(); pause() holds them (the
 * presenter talks), resume() goes on. The console drives it with Space (pause, resume) and n
 * (next). idle() resolves when nothing waits, so a narrated loop runs its next pass only
 * once the last one has been told. Pure: the clock is given (a fake one in tests).
 */

/** The timer a pacer uses: the system's, or a fake one. */
export interface PacerClock {
	/** Calls fn once after ms; the returned function cancels it. */
	setTimer(ms: number, fn: () => void): () => void;
}

/** The system's clock (timers that do not keep the process alive). */
export const systemPacerClock: PacerClock = {
	setTimer(ms, fn) {
		const t = setTimeout(fn, ms);
		t.unref?.();
		return () => clearTimeout(t);
	},
};

/** What the pacer tells whoever shows it. */
export interface PacerState<T> {
	/** The last item released (the one being told), or null before the first. */
	current: T | null;
	/** How many items wait. */
	waiting: number;
	paused: boolean;
}

/** Options of a pacer. */
export interface PacerOptions<T> {
	/** Between two releases by the clock (ms); at least 1. */
	intervalMs: number;
	/** Receives each item as it is released. */
	release(item: T): void;
	clock?: PacerClock;
	/** The most items waiting; past it the oldest waiting ones are dropped (counted). Default 1000. */
	maxWaiting?: number;
	/** Called after each change of the state (a release, a push, pause, resume). */
	onChange?(state: PacerState<T>): void;
}

/** A running pacer. */
export interface Pacer<T> {
	/** Queues an item; the first one after a quiet spell is released at once. */
	push(item: T): void;
	/** Releases the next waiting item now (even while paused); false when none waits. */
	next(): boolean;
	pause(): void;
	resume(): void;
	/** Pauses when running, resumes when paused (the console's Space); returns whether paused now. */
	toggle(): boolean;
	state(): PacerState<T>;
	/** How many waiting items were dropped for want of room. */
	dropped(): number;
	/** Resolves once no item waits (at once when none does). */
	idle(): Promise<void>;
	/** Stops the clock; waiting items stay unreleased; idle() promises resolve. */
	stop(): void;
}

/** Makes a pacer. */
export function createPacer<T>(opts: PacerOptions<T>): Pacer<T> {
	const clock = opts.clock ?? systemPacerClock;
	const interval = Math.max(1, Math.floor(opts.intervalMs));
	const maxWaiting = Math.max(1, Math.floor(opts.maxWaiting ?? 1000));
	const queue: T[] = [];
	let current: T | null = null;
	let paused = false;
	let stopped = false;
	let droppedCount = 0;
	/** The pending tick, when the clock is running. */
	let cancel: (() => void) | null = null;
	/** The clock released an item less than interval ago: the next waits for the tick. */
	let cooling = false;
	let idlers: Array<() => void> = [];

	const state = (): PacerState<T> => ({ current, waiting: queue.length, paused });
	const changed = () => opts.onChange?.(state());
	const settleIdle = () => {
		if (queue.length > 0 && !stopped) return;
		const list = idlers;
		idlers = [];
		for (const fn of list) fn();
	};
	const releaseOne = (): boolean => {
		const item = queue.shift();
		if (item === undefined) return false;
		current = item;
		opts.release(item);
		return true;
	};
	const arm = () => {
		cancel?.();
		cancel = null;
		if (stopped) return;
		cooling = true;
		cancel = clock.setTimer(interval, tick);
	};
	function tick() {
		cancel = null;
		cooling = false;
		if (stopped || paused) return;
		if (releaseOne()) {
			arm();
			changed();
			settleIdle();
		}
	}

	const pause = () => {
		if (paused) return;
		paused = true;
		cancel?.();
		cancel = null;
		cooling = false;
		changed();
	};
	const resume = () => {
		if (!paused) return;
		paused = false;
		if (!stopped) arm();
		changed();
	};

	return {
		push(item) {
			if (stopped) return;
			queue.push(item);
			while (queue.length > maxWaiting) {
				queue.shift();
				droppedCount++;
			}
			if (!paused && !cooling) {
				releaseOne();
				arm();
			}
			changed();
			settleIdle();
		},
		next() {
			if (stopped || !releaseOne()) return false;
			// the clock starts again from this release
			if (!paused) arm();
			changed();
			settleIdle();
			return true;
		},
		pause,
		resume,
		toggle() {
			if (paused) resume();
			else pause();
			return paused;
		},
		state,
		dropped: () => droppedCount,
		idle() {
			if (queue.length === 0 || stopped) return Promise.resolve();
			return new Promise((resolve) => idlers.push(resolve));
		},
		stop() {
			stopped = true;
			cancel?.();
			cancel = null;
			settleIdle();
		},
	};
}

/** A fake clock for tests: advance(ms) runs the timers that fall due, in order. */
export interface FakePacerClock extends PacerClock {
	now(): number;
	advance(ms: number): void;
	/** Timers not yet run. */
	pending(): number;
}

/** Makes a fake clock starting at 0. */
export function fakePacerClock(): FakePacerClock {
	let now = 0;
	let seq = 0;
	const timers = new Map<number, { at: number; fn: () => void }>();
	return {
		now: () => now,
		setTimer(ms, fn) {
			const id = seq++;
			timers.set(id, { at: now + Math.max(0, ms), fn });
			return () => timers.delete(id);
		},
		advance(ms) {
			const end = now + ms;
			for (;;) {
				let nextId = -1;
				let nextAt = Number.POSITIVE_INFINITY;
				for (const [id, t] of timers)
					if (t.at <= end && (t.at < nextAt || (t.at === nextAt && id < nextId))) {
						nextId = id;
						nextAt = t.at;
					}
				if (nextId < 0) break;
				const t = timers.get(nextId);
				timers.delete(nextId);
				now = nextAt;
				t?.fn();
			}
			now = end;
		},
		pending: () => timers.size,
	};
}
