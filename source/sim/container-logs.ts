/**
 * The containers' logs of the simulated cluster, as a node's container runtime keeps them:
 * one log per container ID (a restart makes a new ID), each bounded in lines and bytes, with
 * followers for `kubectl logs -f` that are told of each new line and of the container's end.
 */

/** One line a container wrote, with the time it was written (ms since the epoch). */
export interface LogLine {
	readonly at: number;
	readonly text: string;
}

/** Someone following a log: told of each new line, then once of its end. */
export interface LogFollower {
	line(l: LogLine): void;
	end(): void;
}

interface ContainerLog {
	lines: LogLine[];
	bytes: number;
	ended: boolean;
	followers: Set<LogFollower>;
}

/** Bounds of one container's log. */
export interface ContainerLogsOptions {
	/** Lines kept per container (oldest dropped first; default 1,000). */
	maxLines?: number;
	/** Bytes kept per container (oldest lines dropped first; default 256 KiB). */
	maxBytes?: number;
}

/** Every container's log, by container ID (`containerd://...`). */
export class ContainerLogs {
	private readonly logs = new Map<string, ContainerLog>();
	private readonly maxLines: number;
	private readonly maxBytes: number;

	constructor(opts: ContainerLogsOptions = {}) {
		this.maxLines = Math.max(1, opts.maxLines ?? 1000);
		this.maxBytes = Math.max(1, opts.maxBytes ?? 256 * 1024);
	}

	/** Starts an empty log for a container that just started (a no-op when it exists). */
	open(id: string): void {
		if (!this.logs.has(id)) {
			this.logs.set(id, { lines: [], bytes: 0, ended: false, followers: new Set() });
		}
	}

	/** Appends a line (without its newline) to a running container's log. */
	write(id: string, text: string, at: number = Date.now()): void {
		const log = this.logs.get(id);
		if (!log || log.ended) return;
		const line = { at, text };
		log.lines.push(line);
		log.bytes += text.length + 1;
		while (
			log.lines.length > this.maxLines ||
			(log.bytes > this.maxBytes && log.lines.length > 1)
		) {
			const old = log.lines.shift()!;
			log.bytes -= old.text.length + 1;
		}
		for (const f of [...log.followers]) f.line(line);
	}

	/** The container ended: no more lines; every follower is told. */
	end(id: string): void {
		const log = this.logs.get(id);
		if (!log || log.ended) return;
		log.ended = true;
		const followers = [...log.followers];
		log.followers.clear();
		for (const f of followers) f.end();
	}

	/** Forgets a container's log (its pod is gone, or it is older than the previous run). */
	drop(id: string): void {
		this.end(id);
		this.logs.delete(id);
	}

	/** The lines of a container's log (a copy), or undefined when there is none. */
	lines(id: string): LogLine[] | undefined {
		const log = this.logs.get(id);
		return log ? [...log.lines] : undefined;
	}

	/** Whether the container has ended (true too for an unknown one: nothing more will come). */
	ended(id: string): boolean {
		return this.logs.get(id)?.ended ?? true;
	}

	/**
	 * Follows a log from now on; a log that has ended (or is unknown) ends the follower at
	 * once. Returns the unsubscribe function.
	 */
	follow(id: string, follower: LogFollower): () => void {
		const log = this.logs.get(id);
		if (!log || log.ended) {
			follower.end();
			return () => {};
		}
		log.followers.add(follower);
		return () => {
			log.followers.delete(follower);
		};
	}

	/** How many container logs are kept (for tests of the bound). */
	size(): number {
		return this.logs.size;
	}
}
