/**
 * The simulated cluster's own state, read straight from its store: what the chaos actors
 * look at to decide, and what the final checks compare against. Never through the API, so
 * no fault touches it.
 */

import {
	groupMembers,
	type LeaseObject,
	leaseHolder,
	leaseName,
	MAINTENANCE_ANNOTATION,
	type MemberObjects,
	type MemberView,
	memberView,
	POOL_LABEL,
	type PodObject,
	type PoolSpec,
	type PvcObject,
	parseSpec,
	poolRuleInputs,
	pvcName,
	RECONCILER_IDENTITY,
	SPEC_KEY,
} from '../source/pool/index.js';
import { configMapName } from '../source/pool/names.js';
import type { SimObject } from '../source/sim/store-api.js';

/** The store methods the truth reads. */
export interface TruthStore {
	get(resource: string, namespace: string | undefined, name: string): SimObject | undefined;
	list(
		resource: string,
		opts?: { namespace?: string; labels?: (l: Record<string, string>) => boolean },
	): SimObject[];
}

/** Reads of one pool's objects in the cluster's store. */
export class Truth {
	constructor(
		private readonly store: TruthStore,
		readonly pool: string,
		readonly namespace: string,
	) {}

	private list<T>(resource: string): T[] {
		return this.store.list(resource, {
			namespace: this.namespace,
			labels: (l) => l[POOL_LABEL] === this.pool,
		}) as unknown as T[];
	}

	/** The pool's spec, or null when it is missing or unreadable. */
	spec(): PoolSpec | null {
		const cm = this.store.get('configmaps', this.namespace, configMapName(this.pool));
		const text = (cm?.data as Record<string, string> | undefined)?.[SPEC_KEY];
		try {
			return parseSpec(text, this.pool, { allowPersistent: true });
		} catch {
			return null;
		}
	}

	/** The Lease of a member, or null. */
	lease(member: string): LeaseObject | null {
		return (
			(this.store.get('leases', this.namespace, leaseName(member)) as LeaseObject | undefined) ??
			null
		);
	}

	/** Who holds a member's Lease ('' when nobody). */
	holder(member: string): string {
		return leaseHolder(this.lease(member));
	}

	/** Members whose Lease a user holds, with the holder. */
	userClaims(): Array<{ member: string; holder: string }> {
		const out: Array<{ member: string; holder: string }> = [];
		for (const l of this.list<LeaseObject>('leases')) {
			const holder = leaseHolder(l);
			const member = l.metadata.labels?.['corral.dev/vdi-ct-member'];
			if (member && holder && holder !== RECONCILER_IDENTITY) out.push({ member, holder });
		}
		return out;
	}

	/** The members a given identity holds. */
	heldBy(identity: string): string[] {
		return this.userClaims()
			.filter((c) => c.holder === identity)
			.map((c) => c.member);
	}

	/** Members whose PVC carries the maintenance annotation, with the reason. */
	inMaintenance(): Array<{ member: string; reason: string }> {
		const out: Array<{ member: string; reason: string }> = [];
		for (const pvc of this.list<PvcObject>('persistentvolumeclaims')) {
			const a = pvc.metadata.annotations ?? {};
			const member = pvc.metadata.labels?.['corral.dev/vdi-ct-member'];
			if (member && Object.hasOwn(a, MAINTENANCE_ANNOTATION))
				out.push({ member, reason: a[MAINTENANCE_ANNOTATION] ?? '' });
		}
		return out;
	}

	/** The pod of a member, or null. */
	pod(member: string): PodObject | null {
		return (this.store.get('pods', this.namespace, member) as PodObject | undefined) ?? null;
	}

	/** The data PVC of a member, or null. */
	pvc(member: string): PvcObject | null {
		return (
			(this.store.get('persistentvolumeclaims', this.namespace, pvcName(member)) as
				| PvcObject
				| undefined) ?? null
		);
	}

	/** Every member's objects (members 1..size, and any other member that has objects). */
	members(size: number): MemberObjects[] {
		return groupMembers(this.pool, size, {
			pods: this.list<PodObject>('pods'),
			pvcs: this.list<PvcObject>('persistentvolumeclaims'),
			leases: this.list<LeaseObject>('leases'),
		});
	}

	/** Every member as the pool model sees it now, against the current spec. */
	views(now: number): MemberView[] {
		const spec = this.spec();
		const size = spec?.size ?? 0;
		const facts = poolRuleInputs(size, spec);
		return this.members(size).map((m) => memberView(m, facts, now));
	}

	/** Whether any pod or PVC of the pool is being deleted. */
	anyTerminating(): boolean {
		return [
			...this.list<PodObject>('pods'),
			...this.list<PvcObject>('persistentvolumeclaims'),
		].some((o) => Boolean(o.metadata.deletionTimestamp));
	}
}
