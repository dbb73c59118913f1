/** Switchable faults of the simulated API server: dropped watches, 5xx, latency, 410s, refused connections. */

import { seededRandom } from './random.js';

/** The settings of the switchable faults. */
export interface FaultSettings {
	/** Fraction (0..1) of non-watch requests answered 500 or 503. */
	errorRate: number;
	/** Milliseconds added before every answer. */
	latencyMs: number;
	/** While true, every watch that names a resourceVersion gets 410 Expired. */
	force410: boolean;
	/** When > 0, every open watch is dropped this often (ms). */
	dropWatchesEveryMs: number;
	/** Seed of the random choice of failing requests. */
	seed: number;
}

/** How many faults were injected, by kind. */
export interface FaultCounts {
	/** Requests answered 500 or 503. */
	errors: number;
	/** Requests delayed. */
	delayed: number;
	/** Watch streams dropped. */
	droppedWatches: number;
	/** Watches answered 410 on purpose. */
	forced410: number;
	/** Connections refused (destroyed on arrival). */
	refusedConnections: number;
}

/** What the server lets the fault switch act on. */
export interface FaultTarget {
	/** Ends every open watch stream abruptly; returns how many. */
	dropWatches(): number;
	/** Destroys every open connection; returns how many. */
	dropConnections(): number;
}

function defaults(): FaultSettings {
	return { errorRate: 0, latencyMs: 0, force410: false, dropWatchesEveryMs: 0, seed: 1 };
}

/** The fault switch of one simulated cluster. */
export class FaultSwitch {
	private settings: FaultSettings = defaults();
	private rng = seededRandom(1);
	private target: FaultTarget | undefined;
	private dropTimer: NodeJS.Timeout | undefined;
	private refuseUntil = 0;
	private force410Pending = 0;
	/** How many faults were injected, by kind. */
	readonly counts: FaultCounts = {
		errors: 0,
		delayed: 0,
		droppedWatches: 0,
		forced410: 0,
		refusedConnections: 0,
	};

	/** Connects the switch to the server it acts on (done by the server). */
	attach(target: FaultTarget): void {
		this.target = target;
	}

	/** The current settings. */
	current(): Readonly<FaultSettings> {
		return { ...this.settings };
	}

	/** Changes some settings; the others stay. */
	set(partial: Partial<FaultSettings>): void {
		const next = { ...this.settings, ...partial };
		next.errorRate = Math.min(1, Math.max(0, next.errorRate));
		next.latencyMs = Math.max(0, next.latencyMs);
		if (partial.seed !== undefined) this.rng = seededRandom(partial.seed);
		const restartDrops = next.dropWatchesEveryMs !== this.settings.dropWatchesEveryMs;
		this.settings = next;
		if (restartDrops) this.scheduleDrops();
	}

	/** Switches every fault off (counts stay). */
	clear(): void {
		this.settings = { ...defaults(), seed: this.settings.seed };
		this.refuseUntil = 0;
		this.force410Pending = 0;
		this.scheduleDrops();
	}

	/** Ends every open watch stream now, abruptly (the socket is destroyed). Returns how many. */
	dropWatches(): number {
		const n = this.target?.dropWatches() ?? 0;
		this.counts.droppedWatches += n;
		return n;
	}

	/** The next watch that names a resourceVersion gets 410 Expired (one-shot; stacks). */
	force410Once(times = 1): void {
		this.force410Pending += times;
	}

	/**
	 * Refuses connections for `ms`: every open connection is destroyed now and every new one
	 * on arrival until the time is up.
	 */
	refuseConnectionsFor(ms: number): void {
		this.refuseUntil = Date.now() + ms;
		this.counts.refusedConnections += this.target?.dropConnections() ?? 0;
	}

	/** Whether a new connection is to be refused now (counts it). */
	refuseConnection(): boolean {
		if (Date.now() >= this.refuseUntil) return false;
		this.counts.refusedConnections++;
		return true;
	}

	/** The delay to add before answering (counts it). */
	latency(): number {
		if (this.settings.latencyMs <= 0) return 0;
		this.counts.delayed++;
		return this.settings.latencyMs;
	}

	/** The HTTP code to fail a non-watch request with (500 or 503), or 0 (counts it). */
	failure(): number {
		if (this.settings.errorRate <= 0) return 0;
		if (this.rng() >= this.settings.errorRate) return 0;
		this.counts.errors++;
		return this.rng() < 0.5 ? 500 : 503;
	}

	/** Whether a watch from a resourceVersion must get 410 now (counts it). */
	take410(): boolean {
		if (this.force410Pending > 0) {
			this.force410Pending--;
			this.counts.forced410++;
			return true;
		}
		if (this.settings.force410) {
			this.counts.forced410++;
			return true;
		}
		return false;
	}

	private scheduleDrops(): void {
		if (this.dropTimer) clearInterval(this.dropTimer);
		this.dropTimer = undefined;
		const every = this.settings.dropWatchesEveryMs;
		if (every > 0) {
			this.dropTimer = setInterval(() => this.dropWatches(), every);
			this.dropTimer.unref();
		}
	}

	/** Stops the switch's timers (done by the server on close). */
	stop(): void {
		if (this.dropTimer) clearInterval(this.dropTimer);
		this.dropTimer = undefined;
	}
}

/**
 * Parses a `--fault` value: `drop-watches-every=5s,error-rate=0.05,latency=50ms,force-410,
 * seed=7`. Durations take ms, s or m. Throws on an unknown key or a bad value.
 */
export function parseFaultSpec(spec: string): Partial<FaultSettings> {
	const out: Partial<FaultSettings> = {};
	for (const part of spec
		.split(',')
		.map((p) => p.trim())
		.filter(Boolean)) {
		const [key, value = ''] = part.split('=', 2) as [string, string?];
		switch (key) {
			case 'drop-watches-every':
				out.dropWatchesEveryMs = parseDuration(value);
				break;
			case 'error-rate': {
				const n = Number(value);
				if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error(`bad error-rate: ${value}`);
				out.errorRate = n;
				break;
			}
			case 'latency':
				out.latencyMs = parseDuration(value);
				break;
			case 'force-410':
				out.force410 = value === '' || value === 'true';
				break;
			case 'seed': {
				const n = Number(value);
				if (!Number.isInteger(n)) throw new Error(`bad seed: ${value}`);
				out.seed = n;
				break;
			}
			default:
				throw new Error(`unknown fault: ${key}`);
		}
	}
	return out;
}

/** Parses `250ms`, `5s`, `2m` or a plain number of ms. */
export function parseDuration(v: string): number {
	const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
	if (!m) throw new Error(`bad duration: ${v}`);
	const n = Number(m[1]);
	const unit = m[2] ?? 'ms';
	return Math.round(unit === 'm' ? n * 60_000 : unit === 's' ? n * 1000 : n);
}
