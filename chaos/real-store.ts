/**
 * The chaos run's view of a real cluster (`npm run chaos -- --cluster real`): the pods,
 * PVCs, Leases and ConfigMaps of the run's namespace, kept by watches over HTTP, read as the
 * simulated cluster's store is read (synchronously, for Truth), and followed as it is
 * followed (for the Timeline). Revisions are the server's resourceVersions (etcd's global
 * revision); the watches of different kinds arrive in their own order, so the timeline sorts
 * its events by revision when it stops. sync() waits until the watches have caught up with
 * a fresh list of every kind.
 */

import type { Kube } from '../source/kube/config.js';
import type { KubeObject } from '../source/kube/objects.js';
import { type ResilientWatch, startResilientWatch } from '../source/kube/resilient-watch.js';
import type { ResourceName, SimEvent, SimObject } from '../source/sim/store-api.js';
import type { ObjectApi } from '../test/support/object-api.js';
import { waitFor } from '../test/support/wait.js';

const KINDS: Array<{ plural: ResourceName; kind: string; apiVersion: string }> = [
	{ plural: 'pods', kind: 'Pod', apiVersion: 'v1' },
	{ plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', apiVersion: 'v1' },
	{ plural: 'leases', kind: 'Lease', apiVersion: 'coordination.k8s.io/v1' },
	{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1' },
];

const rvOf = (o: { metadata: { resourceVersion?: string } }): number =>
	Number(o.metadata.resourceVersion ?? 0) || 0;

/** One namespace of a real cluster, watched. */
export class RemoteStore {
	private readonly objects = new Map<string, Map<string, SimObject>>();
	private readonly listeners = new Set<(e: SimEvent) => void>();
	private readonly watches: ResilientWatch[] = [];
	private highest = 0;
	/** Full relists after the first (a watch that had to start over: events may be missing). */
	relists = 0;

	constructor(
		private readonly kube: Kube,
		private readonly api: ObjectApi,
		readonly namespace: string,
	) {
		for (const k of KINDS) this.objects.set(k.plural, new Map());
	}

	/** Starts the watches; resolves once every kind was listed. */
	async start(): Promise<void> {
		const listed = new Set<string>();
		for (const k of KINDS) {
			this.watches.push(
				startResilientWatch(
					this.kube,
					{ plural: k.plural, kind: k.kind, apiVersion: k.apiVersion, namespace: this.namespace },
					{ timeoutSeconds: 600, backoffMs: { initial: 100, max: 2000 } },
					{
						onReset: (items) => {
							if (listed.has(k.plural)) this.relists++;
							listed.add(k.plural);
							this.reset(k.plural, items as unknown as SimObject[]);
						},
						onChange: (op, obj) => this.change(k.plural, op, obj),
						onState: () => {},
					},
				),
			);
		}
		await waitFor(() => listed.size === KINDS.length, {
			what: 'the first list of every kind',
			timeoutMs: 30_000,
			intervalMs: 50,
		});
	}

	/** Stops the watches. */
	stop(): void {
		for (const w of this.watches) w.stop();
		this.watches.length = 0;
	}

	private emit(e: SimEvent): void {
		if (e.revision > this.highest) this.highest = e.revision;
		for (const l of this.listeners) l(e);
	}

	private reset(resource: ResourceName, items: SimObject[]): void {
		const map = this.objects.get(resource)!;
		const seen = new Set<string>();
		for (const o of items) {
			seen.add(o.metadata.name);
			const prev = map.get(o.metadata.name);
			map.set(o.metadata.name, o);
			if (!prev || prev.metadata.resourceVersion !== o.metadata.resourceVersion)
				this.emit({
					type: prev && prev.metadata.uid === o.metadata.uid ? 'MODIFIED' : 'ADDED',
					resource,
					object: o,
					revision: rvOf(o),
				});
		}
		for (const [name, o] of map)
			if (!seen.has(name)) {
				map.delete(name);
				this.emit({ type: 'DELETED', resource, object: o, revision: this.highest });
			}
	}

	private change(resource: ResourceName, op: 'upsert' | 'delete', obj: KubeObject): void {
		const o = obj as unknown as SimObject;
		const map = this.objects.get(resource)!;
		const prev = map.get(o.metadata.name);
		if (op === 'delete') {
			map.delete(o.metadata.name);
			this.emit({ type: 'DELETED', resource, object: o, revision: rvOf(o) });
			return;
		}
		map.set(o.metadata.name, o);
		this.emit({
			type: prev && prev.metadata.uid === o.metadata.uid ? 'MODIFIED' : 'ADDED',
			resource,
			object: o,
			revision: rvOf(o),
		});
	}

	// The store API that Truth, Timeline and ForeignObjects read.

	get(resource: string, _namespace: string | undefined, name: string): SimObject | undefined {
		return this.objects.get(resource)?.get(name);
	}

	list(
		resource: string,
		opts: { namespace?: string; labels?: (l: Record<string, string>) => boolean } = {},
	): SimObject[] {
		const all = [...(this.objects.get(resource)?.values() ?? [])];
		return opts.labels ? all.filter((o) => opts.labels!(o.metadata.labels ?? {})) : all;
	}

	/** The highest revision the watches delivered. */
	revision(): number {
		return this.highest;
	}

	/** The cluster's current revision: a quorum list's resourceVersion. */
	async currentRevision(): Promise<number> {
		const a = await this.api.request(
			'GET',
			`/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases`,
			{ query: { limit: 1 } },
		);
		const rv = Number(
			(a.body as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion,
		);
		if (a.status !== 200 || !Number.isFinite(rv))
			throw new Error(`the current revision: HTTP ${a.status}: ${a.text.slice(0, 200)}`);
		return rv;
	}

	onChange(listener: (e: SimEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Whether the watched objects equal a fresh list of every kind (names and resourceVersions). */
	private async caughtUp(): Promise<boolean> {
		const lists = await Promise.all(
			KINDS.map((k) => this.api.list(k.plural, { namespace: this.namespace })),
		);
		return KINDS.every((k, i) => {
			const mine = this.objects.get(k.plural)!;
			const theirs = lists[i]!;
			return (
				theirs.length === mine.size &&
				theirs.every(
					(o) => mine.get(o.metadata.name)?.metadata.resourceVersion === o.metadata.resourceVersion,
				)
			);
		});
	}

	/** Waits until the watches hold what the cluster holds now. */
	async sync(timeoutMs = 30_000): Promise<void> {
		await waitFor(() => this.caughtUp(), {
			what: 'the watches to catch up',
			timeoutMs,
			intervalMs: 50,
		});
	}
}
