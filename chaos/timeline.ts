/**
 * The timeline of a chaos run: every change of a member's pod, PVC and Lease in the order the
 * simulated cluster made it (its global revision), and every user or admin operation with
 * the revisions it started and ended at. The invariants are checked over it afterwards.
 */

import { leaseName, memberIndex, memberOfLease, memberOfPvc } from '../source/pool/names.js';
import type { SimEvent, SimObject } from '../source/sim/store-api.js';

/** The kinds of member objects the timeline follows. */
export type MemberKind = 'pod' | 'pvc' | 'lease';

/** One change of a member object, as the cluster made it. */
export interface MemberEvent {
	/** The cluster's global revision of this change. */
	revision: number;
	type: 'ADDED' | 'MODIFIED' | 'DELETED';
	kind: MemberKind;
	member: string;
	uid: string;
	/** The object carries a deletionTimestamp. */
	deleting: boolean;
	/** The Lease holder ('' for pods and PVCs). */
	holder: string;
	/** The source-hash label of a pod or PVC. */
	source: string;
	/** Wall-clock time the change was seen (ms). */
	time: number;
}

/** What a user or the admin did through the engine. */
export type OperationKind =
	| 'claim'
	| 'release'
	| 'force-release'
	| 'apply'
	| 'recovery'
	| 'reconcile';

/** One operation and the revisions around it: its writes have revisions in (startRev, endRev]. */
export interface Operation {
	id: number;
	kind: OperationKind;
	/** Who ran it: the claim identity, or the admin's. */
	identity: string;
	/** The member it named (release, force-release, recovery) or got (claim). */
	member: string;
	startRev: number;
	/** null while it runs. */
	endRev: number | null;
	startedAt: number;
	endedAt: number | null;
	outcome: 'running' | 'ok' | 'error';
	/** A claim's result: whether the identity already held the member. */
	existing?: boolean;
	/** The error text, for an operation that failed. */
	error?: string;
	/** The PoolError kind, when it was one. */
	errorKind?: string;
}

/** A store the timeline can follow: the simulated cluster's, in-process. */
export interface FollowedStore {
	revision(): number;
	onChange(listener: (e: SimEvent) => void): () => void;
	/**
	 * A store followed over the network (a real cluster's watches): the cluster's current
	 * revision, read when an operation begins and ends (the watches may lag behind it).
	 */
	currentRevision?(): Promise<number>;
}

const KIND_OF: Record<string, MemberKind> = {
	pods: 'pod',
	persistentvolumeclaims: 'pvc',
	leases: 'lease',
};

/** The member an object of a kind belongs to (by name), or null when it is none of the pool's. */
export function memberOfObject(pool: string, kind: MemberKind, name: string): string | null {
	const member = kind === 'pod' ? name : kind === 'pvc' ? memberOfPvc(name) : memberOfLease(name);
	if (member === null || memberIndex(pool, member) === null) return null;
	return member;
}

/** The recorder: follow a store, record operations, hand both to the checks. */
export class Timeline {
	/** Member changes in revision order. */
	readonly events: MemberEvent[] = [];
	/** Operations in the order they started. */
	readonly operations: Operation[] = [];
	/** Objects left out of the member changes (foreign objects planted under member names). */
	readonly ignoredUids = new Set<string>();
	private nextId = 1;
	private unsubscribe: (() => void) | null = null;

	constructor(
		readonly pool: string,
		readonly namespace: string,
		private readonly store: FollowedStore,
	) {}

	/** Starts recording the store's changes of this pool's members. */
	follow(): void {
		if (this.unsubscribe) return;
		this.unsubscribe = this.store.onChange((e) => this.record(e));
	}

	/**
	 * Stops recording. Changes followed over the network (one watch per kind) are put in
	 * revision order here; the simulated store delivers them in order already.
	 */
	stop(): void {
		this.unsubscribe?.();
		this.unsubscribe = null;
		if (this.store.currentRevision) this.events.sort((a, b) => a.revision - b.revision);
	}

	/** Records one store change (public for tests that build timelines by hand). */
	record(e: SimEvent): void {
		const kind = KIND_OF[e.resource];
		if (!kind) return;
		const obj: SimObject = e.object;
		if (obj.metadata.namespace !== this.namespace) return;
		if (this.ignoredUids.has(obj.metadata.uid ?? '')) return;
		const member = memberOfObject(this.pool, kind, obj.metadata.name);
		if (member === null) return;
		if (kind === 'lease' && obj.metadata.name !== leaseName(member)) return;
		const spec = (obj.spec ?? {}) as { holderIdentity?: string };
		this.events.push({
			revision: e.revision,
			type: e.type,
			kind,
			member,
			uid: obj.metadata.uid ?? '',
			deleting: Boolean(obj.metadata.deletionTimestamp),
			holder: kind === 'lease' ? (spec.holderIdentity ?? '') : '',
			source: obj.metadata.labels?.['corral.dev/vdi-ct-source'] ?? '',
			time: Date.now(),
		});
	}

	/** Starts an operation at the store's current revision. */
	begin(kind: OperationKind, identity: string, member = ''): Operation {
		const op: Operation = {
			id: this.nextId++,
			kind,
			identity,
			member,
			startRev: this.store.revision(),
			endRev: null,
			startedAt: Date.now(),
			endedAt: null,
			outcome: 'running',
		};
		this.operations.push(op);
		return op;
	}

	/** Ends an operation at the store's current revision. */
	end(op: Operation, outcome: 'ok' | 'error', details: Partial<Operation> = {}): void {
		Object.assign(op, details);
		op.outcome = outcome;
		op.endRev = this.store.revision();
		op.endedAt = Date.now();
	}

	/**
	 * Runs fn as an operation: begun before, ended after with its outcome. The error is
	 * recorded and thrown again.
	 */
	async track<T>(
		kind: OperationKind,
		identity: string,
		member: string,
		fn: () => Promise<T>,
		details?: (result: T) => Partial<Operation>,
	): Promise<T> {
		const remote = this.store.currentRevision?.bind(this.store);
		if (remote) return this.trackRemote(remote, kind, identity, member, fn, details);
		const op = this.begin(kind, identity, member);
		try {
			const result = await fn();
			this.end(op, 'ok', details ? details(result) : {});
			return result;
		} catch (err) {
			this.end(op, 'error', failure(err));
			throw err;
		}
	}

	/**
	 * track() over the network: the cluster's revision is read before the operation's first
	 * write and after its last (the watches may lag behind both).
	 */
	private async trackRemote<T>(
		current: () => Promise<number>,
		kind: OperationKind,
		identity: string,
		member: string,
		fn: () => Promise<T>,
		details?: (result: T) => Partial<Operation>,
	): Promise<T> {
		const op = this.begin(kind, identity, member);
		op.startRev = await current();
		let outcome: 'ok' | 'error' = 'ok';
		let extra: Partial<Operation> = {};
		try {
			const result = await fn();
			extra = details ? details(result) : {};
			return result;
		} catch (err) {
			outcome = 'error';
			extra = failure(err);
			throw err;
		} finally {
			this.end(op, outcome, extra);
			op.endRev = await current();
		}
	}
}

/** What a failed operation records: its error text and PoolError kind. */
function failure(err: unknown): Partial<Operation> {
	const e = err as { message?: string; kind?: string };
	const extra: Partial<Operation> = { error: String(e?.message ?? err) };
	if (typeof e?.kind === 'string') extra.errorKind = e.kind;
	return extra;
}
