/** Where the controllers put the errors they cannot act on, instead of crashing the process. */

/** One error a controller hit, with where it happened. */
export interface ControllerError {
	time: number;
	where: string;
	message: string;
}

/** How many errors are kept; older ones are dropped. */
const KEEP = 200;

/** Collects controller errors; 404 and 409 from the store are races and are not errors. */
export class ControllerErrors {
	private readonly kept: ControllerError[] = [];

	/** Runs fn, keeping any error it throws (other than a 404 or 409 race). */
	guard(where: string, fn: () => void): void {
		try {
			fn();
		} catch (err) {
			this.report(where, err);
		}
	}

	/** Keeps an error unless it is a store race (404 NotFound, 409 Conflict or AlreadyExists). */
	report(where: string, err: unknown): void {
		const code = (err as { code?: unknown } | null)?.code;
		if (code === 404 || code === 409) return;
		const message = err instanceof Error ? err.message : String(err);
		this.kept.push({ time: Date.now(), where, message });
		if (this.kept.length > KEEP) this.kept.shift();
	}

	/** The kept errors, oldest first. */
	list(): ControllerError[] {
		return [...this.kept];
	}
}
