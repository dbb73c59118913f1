/**
 * The console's store during a chaos run: the TUI's own zustand store, fed by the pool
 * watch through the same faults as everyone else, and compared with the cluster at the end.
 */

import type { Kube } from '../source/kube/config.js';
import { type PoolWatch, startPoolWatch } from '../source/kube/pool-watch.js';
import { serialiseSpec } from '../source/pool/spec.js';
import { type ConsoleStore, createConsoleStore } from '../source/tui/store/store.js';
import type { Truth } from './truth.js';

/** What the mirror went through. */
export interface MirrorCounts {
	batches: number;
	resets: number;
	/** Times the connection left the synced state. */
	reconnects: number;
}

const COMPARED = ['state', 'holder', 'leaseHolder', 'drifted', 'maintenance', 'free'] as const;

/** The console store and its watch. */
export class ConsoleMirror {
	readonly store: ConsoleStore;
	readonly counts: MirrorCounts = { batches: 0, resets: 0, reconnects: 0 };
	private watch: PoolWatch | null = null;

	constructor(
		private readonly kube: Kube,
		private readonly namespace: string,
		private readonly pool: string,
	) {
		this.store = createConsoleStore({ session: { namespace }, pool });
	}

	/** Starts the watch as the console does (every pool of the namespace, default timings). */
	start(): void {
		let synced = false;
		this.watch = startPoolWatch(
			this.kube,
			{ namespace: this.namespace },
			{
				onBatch: (changes) => {
					this.counts.batches++;
					this.counts.resets += changes.filter((c) => c.op === 'reset').length;
					this.store.getState().applyBatch(changes);
				},
				onConnection: (overall, byKind) => {
					if (synced && overall.phase !== 'synced') this.counts.reconnects++;
					synced = overall.phase === 'synced';
					this.store.getState().setConnection(overall, byKind);
				},
			},
		);
	}

	/** Stops the watch. */
	stop(): void {
		this.watch?.stop();
		this.watch = null;
	}

	/**
	 * How the console's view differs from the cluster now: the connection, the spec, the
	 * objects of each member (by resourceVersion) and each member row. No differences when
	 * they are equal; checks counts the comparisons made.
	 */
	compare(truth: Truth, now: number): { differences: string[]; checks: number } {
		let checks = 0;
		const out: string[] = [];
		const differences = (): { differences: string[]; checks: number } => ({
			differences: out,
			checks,
		});
		const state = this.store.getState();
		state.tick(now);
		const derived = this.store.getState().pools[this.pool];
		checks++;
		if (this.store.getState().connection.phase !== 'synced')
			out.push(`the console is ${this.store.getState().connection.phase}, not synced`);
		const spec = truth.spec();
		checks++;
		if (!derived) {
			out.push(`the console does not know pool ${this.pool}`);
			return differences();
		}
		const shown = derived.spec ? serialiseSpec(derived.spec) : 'none';
		const real = spec ? serialiseSpec(spec) : 'none';
		checks++;
		if (shown !== real) out.push(`spec: console ${shown}, cluster ${real}`);
		const views = truth.views(now);
		const rows = new Map(derived.rows.map((r) => [r.name, r]));
		const names = new Set([...views.map((v) => v.name), ...rows.keys()]);
		for (const name of [...names].sort()) {
			const v = views.find((x) => x.name === name);
			const r = rows.get(name);
			checks++;
			if (!v || !r) {
				out.push(`${name}: ${v ? 'missing from the console' : 'shown by the console only'}`);
				continue;
			}
			const objects = this.store.getState().memberObjects(name);
			const rv = (o: { metadata: { resourceVersion?: string } } | null) =>
				o?.metadata.resourceVersion ?? '-';
			const pairs: Array<[string, string, string]> = [
				['pod', rv(objects.pod), rv(truth.pod(name))],
				['pvc', rv(objects.pvc), rv(truth.pvc(name))],
				['lease', rv(objects.lease), rv(truth.lease(name))],
			];
			for (const [what, a, b] of pairs) {
				checks++;
				if (a !== b) out.push(`${name}: ${what} resourceVersion console ${a}, cluster ${b}`);
			}
			for (const key of COMPARED) {
				checks++;
				if (r[key] !== v[key])
					out.push(`${name}: ${key} console ${String(r[key])}, cluster ${String(v[key])}`);
			}
		}
		return differences();
	}
}
