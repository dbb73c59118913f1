/**
 * The one wait-for-condition of the tests (and of the harnesses the benchmark shares with
 * them): poll a check until it holds, optionally woken early by a source of changes. It
 * imports nothing from vitest, so programs outside the test runner can use it too.
 */

/** Something that reports changes: the simulated cluster's store, a terminal screen. */
export interface ChangeSource {
	/** Calls listener after each change; returns the unsubscribe. */
	onChange(listener: () => void): () => void;
}

/** What a truthy value of T can be (false, 0, '', null and undefined taken out). */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** A ChangeSource to report changes to by hand (new output of a program, say). */
export class Changes implements ChangeSource {
	private readonly listeners = new Set<() => void>();

	/** Calls listener after each emit; returns the unsubscribe. */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Tells every listener that something changed. */
	emit(): void {
		for (const l of [...this.listeners]) l();
	}
}

/** Options of waitFor. */
export interface WaitOptions {
	/** Give up after this long (ms, default 20,000: generous for a loaded machine). */
	timeoutMs?: number;
	/** The first pause between tries (ms, default 20); each pause doubles, up to maxIntervalMs. */
	intervalMs?: number;
	/** The longest pause between tries (ms, default 200: many waiting tests must not starve the cluster they wait on). */
	maxIntervalMs?: number;
	/** Named in the timeout error. */
	what?: string;
	/** Also try again right after each change it reports (conditions that pass quickly are not missed). */
	wakeOn?: ChangeSource;
	/** What to add to the timeout error instead of the last value (the screen, a log). */
	detail?: () => string;
}

/**
 * Thrown by a check to stop waiting at once (the condition can no longer come true, e.g.
 * the program exited); waitFor rejects with it. Any other error is retried until the timeout.
 */
export class WaitAborted extends Error {
	override name = 'WaitAborted';
}

/**
 * Resolves with the first truthy value of check (a value or a promise of one), tried now,
 * after pauses growing from `intervalMs` to `maxIntervalMs`, and after every change of
 * `wakeOn`; rejects after the timeout naming what was awaited and the last error or value
 * seen. A string is short for `{ what }`.
 */
export function waitFor<T>(
	check: () => T | Promise<T>,
	options: WaitOptions | string = {},
): Promise<Truthy<T>> {
	const opts = typeof options === 'string' ? { what: options } : options;
	const timeout = opts.timeoutMs ?? 20_000;
	let pause = opts.intervalMs ?? 20;
	const maxPause = Math.max(pause, opts.maxIntervalMs ?? 200);
	// One timer at a time, and none while the check runs (a test may count the process's timers).
	return new Promise((resolve, reject) => {
		const deadline = Date.now() + timeout;
		let done = false;
		let running = false;
		let again = false;
		let last: unknown;
		let sleeper: ReturnType<typeof setTimeout> | undefined;
		let unsubscribe: (() => void) | undefined;
		const finish = (fn: () => void) => {
			done = true;
			unsubscribe?.();
			clearTimeout(sleeper);
			fn();
		};
		const attempt = async (): Promise<void> => {
			if (done) return;
			if (running) {
				again = true;
				return;
			}
			clearTimeout(sleeper);
			sleeper = undefined;
			running = true;
			try {
				do {
					again = false;
					try {
						const v = await check();
						if (v) return finish(() => resolve(v as Truthy<T>));
						last = v;
					} catch (err) {
						if (err instanceof WaitAborted) return finish(() => reject(err));
						last = err;
					}
				} while (again && !done);
			} finally {
				running = false;
			}
			if (Date.now() >= deadline) {
				const detail = opts.detail
					? opts.detail()
					: last instanceof Error
						? last.message
						: JSON.stringify(last);
				const what = opts.what ?? 'a condition';
				finish(() =>
					reject(new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${detail})`)),
				);
				return;
			}
			sleeper = setTimeout(attempt, Math.max(0, Math.min(pause, deadline - Date.now())));
			pause = Math.min(maxPause, pause * 2);
		};
		unsubscribe = opts.wakeOn?.onChange(() => queueMicrotask(() => void attempt()));
		void attempt();
	});
}
