/**
 * Foreign objects of a chaos run: pods, PVCs, console Services and Leases planted under
 * member names without the pool's labels (a Service with a selector that is not the
 * member's), as someone else's workloads would be. ctpool must never change or delete
 * them: every write to one is recorded (the cluster's own controllers aside) and each is
 * compared with what was planted at the end.
 */

import { leaseName, memberName, pvcName, serviceName } from '../source/pool/names.js';
import type { ResourceName, SimObject } from '../source/sim/store-api.js';
import type { Finding } from './invariants.js';

/** Who plants the foreign objects (their only writer besides the cluster's controllers). */
export const PLANTER = 'chaos-planter';

/** One write to an object, and who made it. */
export interface PlantWrite {
	verb: string;
	resource: ResourceName;
	namespace?: string;
	name: string;
	revision: number;
	who?: string;
}

/**
 * The store the planter writes to and follows: the simulated cluster's (every write seen as
 * it happens), or a real cluster's API (the writes read from its audit log at the check).
 */
export interface PlantStore {
	create(
		resource: ResourceName,
		input: SimObject,
		opts?: { who?: string },
	): SimObject | Promise<SimObject>;
	get(
		resource: ResourceName,
		namespace: string | undefined,
		name: string,
	): SimObject | undefined | Promise<SimObject | undefined>;
	onWrite?(listener: (w: PlantWrite) => void): () => void;
	/** The writes made since planting began, when they are not followed as they happen. */
	writes?(): Promise<PlantWrite[]>;
}

/** One planted object and what it was when planted. */
interface Planted {
	resource: ResourceName;
	name: string;
	member: string;
	uid: string;
	resourceVersion: string;
	labels: string;
	annotations: string;
	spec: string;
}

/** What the foreign-object check found. */
export interface ForeignResult {
	planted: number;
	untouched: number;
	checks: number;
	violations: Finding[];
	/** The members that carry foreign objects. */
	members: string[];
}

/**
 * The members that get foreign objects for a run of base size `size`: two inside the range
 * the admin scales up to (size+1, size+2: in the pool at times, where ctpool must leave
 * them alone and report them) and one above it (size+4), so the pool converges at `size`.
 */
export function foreignMembers(pool: string, size: number): string[] {
	return [size + 1, size + 2, size + 4].map((i) => memberName(pool, i));
}

/** The member that gets a stranger's pod alone (above the range the admin scales up to). */
export function strangerPodMembers(pool: string, size: number): string[] {
	return [memberName(pool, size + 3)];
}

/** The annotations other than the ones the cluster's controllers keep (`*.kubernetes.io/`). */
function ownAnnotations(o: SimObject): string {
	const a = o.metadata.annotations ?? {};
	return JSON.stringify(
		Object.fromEntries(
			Object.entries(a)
				.filter(([k]) => !/^([\w-]+\.)*kubernetes\.io\//.test(k))
				.sort(([x], [y]) => (x < y ? -1 : 1)),
		),
	);
}

/** Plants and watches the foreign objects of a run. */
export class ForeignObjects {
	private readonly planted: Planted[] = [];
	private readonly writes: Finding[] = [];
	private unsubscribe: (() => void) | null = null;

	constructor(
		private readonly store: PlantStore,
		private readonly namespace: string,
	) {}

	/** The uids of everything planted (the member timeline leaves them out). */
	uids(): Set<string> {
		return new Set(this.planted.map((p) => p.uid));
	}

	/**
	 * Plants a pod, a PVC, a Service and a Lease under each member's name, and a stranger's pod
	 * alone under each of `podsOnly` (nothing else of the member's there), and starts watching
	 * writes.
	 */
	async plant(members: readonly string[], podsOnly: readonly string[] = []): Promise<void> {
		for (const member of podsOnly) await this.plantPod(member);
		for (const member of members) {
			const labels = { app: 'payroll-db', owner: 'someone-else' };
			await this.plantPod(member);
			await this.put('persistentvolumeclaims', pvcName(member), member, {
				apiVersion: 'v1',
				kind: 'PersistentVolumeClaim',
				metadata: { name: pvcName(member), namespace: this.namespace, labels },
				spec: {
					accessModes: ['ReadWriteOnce'],
					resources: { requests: { storage: '1Gi' } },
				},
			});
			await this.put('services', serviceName(member), member, {
				apiVersion: 'v1',
				kind: 'Service',
				metadata: { name: serviceName(member), namespace: this.namespace, labels },
				spec: {
					selector: { 'corral.dev/ct-name': `${member}-other`, app: 'payroll-db' },
					ports: [{ port: 5432, targetPort: 5432, protocol: 'TCP' }],
				},
			});
			await this.put('leases', leaseName(member), member, {
				apiVersion: 'coordination.k8s.io/v1',
				kind: 'Lease',
				metadata: { name: leaseName(member), namespace: this.namespace, labels },
				spec: {
					holderIdentity: 'billing-leader',
					leaseDurationSeconds: 15,
					acquireTime: new Date().toISOString().replace(/\.\d+Z$/, '.000000Z'),
					renewTime: new Date().toISOString().replace(/\.\d+Z$/, '.000000Z'),
				},
			});
		}
		this.unsubscribe = this.store.onWrite?.((w) => this.noteWrite(w)) ?? null;
	}

	/** A stranger's pod under a member's name. */
	private async plantPod(member: string): Promise<void> {
		await this.put('pods', member, member, {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: {
				name: member,
				namespace: this.namespace,
				labels: { app: 'payroll-db', owner: 'someone-else' },
			},
			spec: {
				containers: [{ name: 'db', image: 'registry.example.com/payroll-db:1' }],
				terminationGracePeriodSeconds: 30,
			},
		});
	}

	/** Records a write to a planted object by anyone but the planter and the cluster's controllers. */
	private noteWrite(w: PlantWrite): void {
		if (w.namespace !== this.namespace) return;
		const p = this.planted.find((x) => x.resource === w.resource && x.name === w.name);
		if (!p) return;
		const who = w.who ?? '';
		// The cluster's own controllers (scheduler, kubelet, volume binder) run the object.
		if (who.startsWith('system:') || who === PLANTER) return;
		this.writes.push({
			rule: 'foreign-touched',
			member: p.member,
			revision: w.revision,
			message: `${who || 'someone'} did ${w.verb} on the foreign ${p.resource} ${w.name}`,
		});
	}

	private async put(
		resource: ResourceName,
		name: string,
		member: string,
		obj: SimObject,
	): Promise<void> {
		const made = await this.store.create(resource, obj, { who: PLANTER });
		this.planted.push({
			resource,
			name,
			member,
			uid: made.metadata.uid ?? '',
			resourceVersion: made.metadata.resourceVersion ?? '',
			labels: JSON.stringify(made.metadata.labels ?? {}),
			annotations: ownAnnotations(made),
			spec: JSON.stringify(made.spec ?? {}),
		});
	}

	/**
	 * Stops watching and checks each planted object: still there with its uid, not being
	 * deleted, labels, annotations and spec as planted (Services and Leases, which no
	 * controller writes, also at the same resourceVersion), and no write by anyone else.
	 */
	async check(): Promise<ForeignResult> {
		this.unsubscribe?.();
		this.unsubscribe = null;
		if (this.store.writes) for (const w of await this.store.writes()) this.noteWrite(w);
		const violations: Finding[] = [...this.writes];
		let checks = 1;
		let untouched = 0;
		for (const p of this.planted) {
			const now = await this.store.get(p.resource, this.namespace, p.name);
			const problems: string[] = [];
			const check = (ok: boolean, what: string) => {
				checks++;
				if (!ok) problems.push(what);
			};
			check(now !== undefined, 'it is gone');
			if (now) {
				check(now.metadata.uid === p.uid, `its uid is ${now.metadata.uid}, not ${p.uid}`);
				check(!now.metadata.deletionTimestamp, 'it is being deleted');
				check(JSON.stringify(now.metadata.labels ?? {}) === p.labels, 'its labels changed');
				check(ownAnnotations(now) === p.annotations, 'its annotations changed');
				if (p.resource === 'services' || p.resource === 'leases') {
					check(JSON.stringify(now.spec ?? {}) === p.spec, 'its spec changed');
					check(
						now.metadata.resourceVersion === p.resourceVersion,
						`its resourceVersion is ${now.metadata.resourceVersion}, not ${p.resourceVersion}`,
					);
				}
			}
			const written = this.writes.some(
				(w) => w.member === p.member && w.message.includes(` ${p.resource} ${p.name}`),
			);
			if (problems.length === 0 && !written) untouched++;
			for (const what of problems)
				violations.push({
					rule: 'foreign-touched',
					member: p.member,
					revision: 0,
					message: `the foreign ${p.resource} ${p.name}: ${what}`,
				});
		}
		return {
			planted: this.planted.length,
			untouched,
			checks,
			violations,
			members: [...new Set(this.planted.map((p) => p.member))],
		};
	}
}
