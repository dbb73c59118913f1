/** Member state, flags and "free", from a member's pod, PVC and Lease. */

import { ctSpecOf, podDifferences, pvcSource } from './ct-spec.js';
import { describeDrift } from './drift.js';
import { RECONCILER_IDENTITY } from './errors.js';
import { leaseExpired, leaseExpiry, leaseHolder, leaseTimeProblem, readLease } from './lease.js';
import { readMaintenance } from './maintenance.js';
import {
	memberIndex,
	memberOfLease,
	memberOfOlderLease,
	memberOfPvc,
	OLDER_ASSIGNED_LABEL,
	olderLeaseName,
	pvcName,
	SERVICE_UNVERIFIED_ANNOTATION,
	SOURCE_LABEL,
	serviceName,
} from './names.js';
import { type LeaseObject, type PodObject, type PvcObject, toMillis } from './objects.js';
import {
	foreignMessage,
	isCorralStartedPod,
	isPoolObject,
	type MemberObjectKind,
} from './ownership.js';
import { parseReplaceRecord } from './replace-backoff.js';
import { oldSourceNote } from './rollout.js';
import { sourceHash } from './source-hash.js';
import { type PoolSpec, type SourceFields, sourceFields } from './spec.js';

/** The states of a member, in the contract's order of precedence. */
export type MemberState =
	| 'Terminating'
	| 'Missing'
	| 'Stopped'
	| 'Failed'
	| 'Unschedulable'
	| 'Ready'
	| 'Starting';

/** Every state, in rule order. */
export const MEMBER_STATES: readonly MemberState[] = [
	'Terminating',
	'Missing',
	'Stopped',
	'Failed',
	'Unschedulable',
	'Ready',
	'Starting',
];

/** Container waiting reasons that make a member Failed. */
export const FAILED_WAITING_REASONS: ReadonlySet<string> = new Set([
	'CrashLoopBackOff',
	'ErrImagePull',
	'ImagePullBackOff',
	'InvalidImageName',
	'CreateContainerConfigError',
	'CreateContainerError',
]);

/** The objects of one member. */
export interface MemberObjects {
	name: string;
	index: number;
	pod?: PodObject | null;
	pvc?: PvcObject | null;
	lease?: LeaseObject | null;
	/** Objects under the member's name that are not the pool's (left alone). */
	foreign?: MemberObjectKind[];
	/** An older Corral broker's claim Lease `corral-vdi-<member>` (never written by ctpool). */
	olderLease?: LeaseObject | null;
}

/** What the member rules need to know of the pool. */
export interface PoolRuleInputs {
	size: number;
	/** The pool's current source hash; null when the definition is unreadable (no drift then). */
	sourceHash: string | null;
	/**
	 * The pool's source fields: with them a pod that no longer matches what its source makes
	 * (image, cpu, memory, privileged, command; say after `kubectl set image`) has drifted too,
	 * and the drift is described. Absent: only the source label counts.
	 */
	source?: SourceFields | null;
	/**
	 * The definition sets maxUnavailable: a rollout goes in waves, and a member built from an
	 * older definition stays claimable (with the old image) until its wave.
	 */
	waves?: boolean;
}

/** What the member rules need of a definition (null: unreadable, so no drift and nothing above size but by size). */
export function poolRuleInputs(
	size: number,
	spec: (SourceFields & Pick<PoolSpec, 'maxUnavailable'>) | null,
): PoolRuleInputs {
	if (!spec) return { size, sourceHash: null, source: null };
	const source = sourceFields(spec);
	return { size, sourceHash: sourceHash(source), source, waves: spec.maxUnavailable !== undefined };
}

/** One member as the status, the CLI and the TUI show it. */
export interface MemberView {
	name: string;
	index: number;
	state: MemberState;
	/** The user who holds the claim ('' when none, or when the reconciler holds the Lease). */
	holder: string;
	/** The Lease holder as written, the reconciler included. */
	leaseHolder: string;
	hasLease: boolean;
	claimExpired: boolean;
	/** When the claim was acquired (ms), for a user's claim. */
	claimedAt: number | null;
	/** When the Lease expires (ms). */
	leaseExpiresAt: number | null;
	maintenance: boolean;
	maintenanceReason: string;
	drifted: boolean;
	/**
	 * What differs, when drifted: from the pod (`image: pool desktop:2, pod other:9`), or from
	 * the source the PVC records (`image a -> b`); empty when not drifted or not known.
	 */
	drift: string[];
	aboveSize: boolean;
	/**
	 * Built from an older definition while a rollout goes in waves (maxUnavailable): it stays
	 * claimable with the old image until its wave, or its release once claimed.
	 */
	waitsForWave: boolean;
	/** The reconciler holds the Lease. */
	reconciling: boolean;
	node: string;
	/** The scheduler message for Unschedulable, the reason for Failed, else ''. */
	message: string;
	/** The source hash the member carries ('' when it has neither pod nor PVC). */
	sourceHash: string;
	/** When the member's oldest object was created (ms). */
	createdAt: number | null;
	/** Objects under the member's name that are not the pool's: ctpool leaves them alone. */
	foreign: MemberObjectKind[];
	/** Why the member's Lease will not expire as it should (future times...), else ''. */
	leaseProblem: string;
	/** How often reconcile replaced the member after failures in a row (its PVC records it). */
	replaces: number;
	/** When the last of those replaces happened (ms), or null. */
	replacedAt: number | null;
	/**
	 * The console Service left in place at the member's last release or replace because it
	 * could not be read (its PVC's SERVICE_UNVERIFIED_ANNOTATION), else ''.
	 */
	serviceUnverified: string;
	/**
	 * The holder of an older Corral broker's claim on the member (its Lease
	 * `corral-vdi-<member>`, or the label corral.dev/vdi-assigned-to on its PVC), else ''.
	 * ctpool never hands such a member out, replaces it, or changes that claim.
	 */
	corralHolder: string;
	/** The object that holds that older claim (`Lease corral-vdi-desk-1`), else ''. */
	corralClaim: string;
	free: boolean;
}

/**
 * How long a new PVC may wait for its volume before the member's message says the wait is
 * long (the StorageClass or its provisioner may be at fault); it stays Starting throughout.
 */
export const VOLUME_BIND_GRACE_MS = 60_000;

/** The scheduler's word for a pod whose Immediate-binding PVC has no volume yet. */
const UNBOUND_PVC = 'unbound immediate PersistentVolumeClaims';

/** The start of the message of a member whose pod waits for its PVC's volume. */
export const VOLUME_WAIT = 'waiting for its volume';

/** Whether a member (state and message) is Starting only because its volume is not there yet. */
export function waitsForVolume(m: { state: string; message: string }): boolean {
	return m.state === 'Starting' && m.message.startsWith(VOLUME_WAIT);
}

/**
 * The state of a member and the message that goes with it. A member with neither pod nor
 * PVC is Missing (only members in 1..size are listed without objects). A pod that the
 * scheduler holds back only because its PVC waits for its volume ("unbound immediate
 * PersistentVolumeClaims") is Starting, never Unschedulable: that is a wait, not a want of
 * room (on a real cluster with Immediate binding every new member passes through it, and a
 * slow provisioner makes it last). With `now`, a wait past VOLUME_BIND_GRACE_MS says so.
 */
export function memberState(
	pod: PodObject | null | undefined,
	pvc: PvcObject | null | undefined,
	now?: number,
): { state: MemberState; message: string } {
	if (pod?.metadata.deletionTimestamp || pvc?.metadata.deletionTimestamp)
		return { state: 'Terminating', message: '' };
	if (!pod && !pvc) return { state: 'Missing', message: '' };
	if (!pod) return { state: 'Stopped', message: '' };
	const failed = failure(pod, pvc);
	if (failed !== null) return { state: 'Failed', message: failed };
	const status = pod.status ?? {};
	const conditions = status.conditions ?? [];
	if (status.phase === 'Pending' || status.phase === undefined) {
		const scheduled = conditions.find((c) => c.type === 'PodScheduled');
		if (scheduled && scheduled.status === 'False' && scheduled.reason === 'Unschedulable') {
			const message = scheduled.message ?? 'Unschedulable';
			if (waitingForVolume(message, pvc))
				return { state: 'Starting', message: volumeWaitMessage(pvc!, now) };
			return { state: 'Unschedulable', message };
		}
	}
	if (
		status.phase === 'Running' &&
		conditions.some((c) => c.type === 'Ready' && c.status === 'True')
	)
		return { state: 'Ready', message: '' };
	return { state: 'Starting', message: startingMessage(pod) };
}

function waitingForVolume(message: string, pvc: PvcObject | null | undefined): boolean {
	if (!pvc || !message.includes(UNBOUND_PVC)) return false;
	return pvc.status?.phase === undefined || pvc.status.phase === 'Pending';
}

/** The message of a member waiting for its volume: the way to look when the wait is long. */
function volumeWaitMessage(pvc: PvcObject, now: number | undefined): string {
	const created = toMillis(pvc.metadata.creationTimestamp);
	if (now === undefined || created === null || now - created < VOLUME_BIND_GRACE_MS)
		return VOLUME_WAIT;
	const name = pvc.metadata.name ?? 'its PVC';
	const ns = pvc.metadata.namespace ? ` -n ${pvc.metadata.namespace}` : '';
	return `${VOLUME_WAIT} (PVC ${name} still Pending after a minute: check its StorageClass and provisioner, kubectl describe pvc ${name}${ns})`;
}

function failure(pod: PodObject, pvc: PvcObject | null | undefined): string | null {
	const status = pod.status ?? {};
	if (status.phase === 'Failed' || status.phase === 'Succeeded') {
		const term = (status.containerStatuses ?? []).find((c) => c.state?.terminated)?.state
			?.terminated;
		const why = status.reason ?? term?.reason ?? status.phase;
		const code = term?.exitCode !== undefined ? ` (exit code ${term.exitCode})` : '';
		return joinMessage(`${why}${code}`, status.message ?? term?.message);
	}
	for (const c of status.containerStatuses ?? []) {
		const w = c.state?.waiting;
		if (w?.reason && FAILED_WAITING_REASONS.has(w.reason)) return joinMessage(w.reason, w.message);
	}
	if (!pvc) return `data PVC ${pvcName(pod.metadata.name ?? '')} is missing`;
	if (pvc.status?.phase === 'Lost') return 'data PVC is Lost';
	return null;
}

function startingMessage(pod: PodObject): string {
	for (const c of pod.status?.containerStatuses ?? []) {
		const w = c.state?.waiting?.reason;
		if (w) return w;
	}
	return '';
}

function joinMessage(reason: string, message: string | undefined): string {
	return message ? `${reason}: ${message}` : reason;
}

/** The member view: state, flags, claim, drift and whether it is free. */
export function memberView(m: MemberObjects, pool: PoolRuleInputs, now: number): MemberView {
	const { state, message } = memberState(m.pod, m.pvc, now);
	const lease = m.lease ?? null;
	const leased = readLease(lease, now);
	const holderAll = leased.holder;
	const reconciling = lease !== null && holderAll === RECONCILER_IDENTITY;
	const userClaim = lease !== null && !reconciling;
	const annotations = m.pvc?.metadata.annotations ?? {};
	const { on: maintenance, reason: maintenanceReason } = readMaintenance(annotations);
	const replaced = parseReplaceRecord(annotations, now);
	const memberHash =
		m.pod?.metadata.labels?.[SOURCE_LABEL] ?? m.pvc?.metadata.labels?.[SOURCE_LABEL] ?? '';
	const exists = Boolean(m.pod || m.pvc);
	const labelDrift = exists && pool.sourceHash !== null && memberHash !== pool.sourceHash;
	const drift = labelDrift ? sourceDrift(m, memberHash, pool) : podDrift(m.pod, pool);
	const drifted = labelDrift || drift.length > 0;
	const aboveSize = m.index > pool.size;
	const waitsForWave = labelDrift && !aboveSize && pool.waves === true;
	const created = [
		toMillis(m.pvc?.metadata.creationTimestamp),
		toMillis(m.pod?.metadata.creationTimestamp),
	].filter((x): x is number => x !== null);
	const older = olderClaim(m);
	const view: MemberView = {
		name: m.name,
		index: m.index,
		state,
		holder: userClaim ? holderAll : '',
		leaseHolder: holderAll,
		hasLease: lease !== null,
		claimExpired: userClaim && leaseExpired(lease, now),
		claimedAt: userClaim
			? (leased.acquireTime ?? toMillis(lease.metadata.creationTimestamp))
			: null,
		leaseExpiresAt: lease ? leaseExpiry(lease, now) : null,
		maintenance,
		maintenanceReason,
		drifted,
		drift,
		aboveSize,
		waitsForWave,
		reconciling,
		node: m.pod?.spec?.nodeName ?? '',
		message:
			message || !labelDrift || aboveSize
				? message
				: oldSourceNote(drift, pool.waves === true, userClaim),
		sourceHash: memberHash,
		createdAt: created.length > 0 ? Math.min(...created) : null,
		foreign: [...(m.foreign ?? [])],
		leaseProblem: lease ? (leaseTimeProblem(lease, now) ?? '') : '',
		replaces: replaced?.count ?? 0,
		replacedAt: replaced?.at ?? null,
		serviceUnverified: annotations[SERVICE_UNVERIFIED_ANNOTATION] ? serviceName(m.name) : '',
		corralHolder: older.corralHolder,
		corralClaim: older.corralClaim,
		free: false,
	};
	view.free = notFreeReason(view) === null;
	return view;
}

/** An older Corral broker's claim on the member: its Lease first, else its PVC's label. */
function olderClaim(m: MemberObjects): { corralHolder: string; corralClaim: string } {
	if (m.olderLease)
		return {
			corralHolder: leaseHolder(m.olderLease) || '(no holder)',
			corralClaim: `Lease ${olderLeaseName(m.name)}`,
		};
	const label = m.pvc?.metadata.labels?.[OLDER_ASSIGNED_LABEL];
	if (label !== undefined)
		return {
			corralHolder: label || '(no holder)',
			corralClaim: `label ${OLDER_ASSIGNED_LABEL} on PVC ${pvcName(m.name)}`,
		};
	return { corralHolder: '', corralClaim: '' };
}

/** The holder to show: ctpool's claim's, else an older Corral claim's marked `(Corral)`. */
export function shownHolder(v: Pick<MemberView, 'holder' | 'corralHolder'>): string {
	return v.holder || (v.corralHolder ? `${v.corralHolder} (Corral)` : '');
}

/** Why a member held by an older Corral claim is left alone, naming that claim. */
export function olderClaimText(
	v: Pick<MemberView, 'name' | 'corralHolder' | 'corralClaim'>,
): string {
	return `${v.name}: claimed by ${v.corralHolder} through an older Corral broker's claim (${v.corralClaim}); ctpool does not hand it out, replace it or change that claim: release it with the Corral tools that made it`;
}

/** What drifted, for a member whose source label is not the pool's: from its PVC's CT spec. */
function sourceDrift(m: MemberObjects, memberHash: string, pool: PoolRuleInputs): string[] {
	// kept per PVC object, member hash and pool source: every list derives every member again
	const kept = m.pvc ? driftByPvc.get(m.pvc) : undefined;
	if (
		kept &&
		kept.memberHash === memberHash &&
		(kept.source === pool.source || (kept.hash !== null && kept.hash === pool.sourceHash))
	)
		return kept.drift;
	const drift = describeSourceDrift(m, memberHash, pool);
	if (m.pvc)
		driftByPvc.set(m.pvc, {
			source: pool.source ?? null,
			hash: pool.sourceHash,
			memberHash,
			drift,
		});
	return drift;
}
const driftByPvc = new WeakMap<
	object,
	{ source: SourceFields | null; hash: string | null; memberHash: string; drift: string[] }
>();

function describeSourceDrift(m: MemberObjects, memberHash: string, pool: PoolRuleInputs): string[] {
	const changes =
		pool.source && m.pvc ? describeDrift(pvcSource(m.pvc), pool.source, memberHash) : [];
	if (changes.length > 0) return changes;
	// a record that names every field, none different: the definition was written anew
	return pool.source && m.pvc && pvcSource(m.pvc)
		? [`the same values written anew (source ${memberHash || 'none'} -> ${pool.sourceHash ?? '?'})`]
		: [`source ${memberHash || 'none'} -> ${pool.sourceHash ?? '?'}`];
}

/**
 * How a member's live pod differs from what the pool's source makes (none for a pod being
 * deleted, or without the pool's source).
 */
function podDrift(pod: PodObject | null | undefined, pool: PoolRuleInputs): string[] {
	if (!pod || !pool.source || pod.metadata.deletionTimestamp) return [];
	// kept per pod object and source (its hash names it): every list derives every member again
	const kept = driftByPod.get(pod);
	if (
		kept &&
		(kept.source === pool.source || (kept.hash !== null && kept.hash === pool.sourceHash))
	)
		return kept.drift;
	const drift = podDifferences(pod, ctSpecOf(pool.source));
	driftByPod.set(pod, { source: pool.source, hash: pool.sourceHash, drift });
	return drift;
}
const driftByPod = new WeakMap<
	object,
	{ source: SourceFields; hash: string | null; drift: string[] }
>();

/**
 * Why a member is not free, or null when it is: free means no Lease at all, index within
 * size, no drift (or, in a rollout in waves, drift while it waits for its wave), no
 * maintenance, and state Ready, Starting or Stopped.
 */
export function notFreeReason(v: Omit<MemberView, 'free'>): string | null {
	if (v.foreign.length > 0) return foreignMessage(v.name, v.foreign);
	if (v.corralClaim) return olderClaimText(v);
	if (v.leaseProblem) return `${v.leaseProblem}; ${strandedWayOut(v)}`;
	if (v.reconciling) return 'the reconciler is working on it';
	if (v.hasLease) {
		if (!v.holder) return 'its Lease has no holder';
		return v.claimExpired
			? `claimed by ${v.holder} (expired; the claim still protects the desktop: use release --force to recover it)`
			: `claimed by ${v.holder}`;
	}
	if (v.aboveSize) return 'its index is above the pool size; the next reconcile deletes it';
	if (v.maintenance)
		return v.maintenanceReason ? `in maintenance: ${v.maintenanceReason}` : 'in maintenance';
	if (v.drifted && !v.waitsForWave)
		return 'it has drifted from the pool definition; the next reconcile replaces it';
	if (v.state !== 'Ready' && v.state !== 'Starting' && v.state !== 'Stopped')
		return `its state is ${v.state}`;
	return null;
}

/** The way out of a Lease that does not expire as it should: an administrator's forced release. */
export function strandedWayOut(v: Pick<MemberView, 'name'>): string {
	return `an administrator can recover ${v.name} with: ctpool release <pool> ${v.name} <identity> --force`;
}

/**
 * The problems of a member that no step resolves by itself (objects not the pool's under its
 * name; a Lease whose times make no sense), one line each, for status errors; [] when none.
 */
export function memberProblems(v: MemberView): string[] {
	const out: string[] = [];
	if (v.foreign.length > 0) out.push(foreignMessage(v.name, v.foreign));
	if (v.leaseProblem) out.push(`${v.name}: ${v.leaseProblem}; ${strandedWayOut(v)}`);
	if (v.corralClaim) out.push(olderClaimText(v));
	if (v.serviceUnverified) out.push(unverifiedServiceText(v.name));
	return out;
}

/** The status error of a member whose old console Service could not be read and was left in place. */
export function unverifiedServiceText(member: string): string {
	const svc = serviceName(member);
	return `${member}: Service ${svc} could not be read when ${member} was last released or replaced (no get on services), so it was left in place and may still route to ${member}; grant get on services (ctpool rbac prints it) so that ctpool can prove it is ${member}'s and remove it, or check it yourself (kubectl get service ${svc}) and then clear this with kubectl annotate pvc ${pvcName(member)} ${SERVICE_UNVERIFIED_ANNOTATION}-`;
}

/** Objects of one kind, as listed or watched. */
export interface PoolObjects {
	pods: Iterable<PodObject>;
	pvcs: Iterable<PvcObject>;
	leases: Iterable<LeaseObject>;
	/** Objects found by name (not by label) that are not the pool's. */
	foreign?: Iterable<{ kind: MemberObjectKind; member: string }>;
	/** Pods found by name that Corral's `ct start` made on a member's PVC (isCorralStartedPod). */
	corralPods?: Iterable<PodObject>;
	/** Claim Leases of an older Corral broker (memberOfOlderLease). */
	olderLeases?: Iterable<LeaseObject>;
}

/**
 * Groups a pool's pods, PVCs and Leases by member: every index from 1 to size, plus every
 * member above size that still has an object. An object whose name does not parse as a
 * member of the pool is no member; one under a member's name that is not the pool's
 * (isPoolObject) marks the member `foreign`. Sorted by index.
 */
export function groupMembers(pool: string, size: number, objects: PoolObjects): MemberObjects[] {
	const byName = new Map<string, MemberObjects>();
	const slot = (name: string): MemberObjects | null => {
		const index = memberIndex(pool, name);
		if (index === null) return null;
		let m = byName.get(name);
		if (!m) {
			m = { name, index, pod: null, pvc: null, lease: null };
			byName.set(name, m);
		}
		return m;
	};
	const marks: Array<[string, MemberObjectKind]> = [];
	const mark = (member: string, kind: MemberObjectKind): void => {
		marks.push([member, kind]);
	};
	// An object under a member's name that is not the member's own (isPoolObject) is
	// foreign: it blocks the member, and is never touched.
	for (const pvc of objects.pvcs) {
		const member = pvc.metadata.name ? memberOfPvc(pvc.metadata.name) : null;
		if (!member || memberIndex(pool, member) === null) continue;
		if (isPoolObject(pool, member, 'PVC', pvc)) {
			const m = slot(member);
			if (m) m.pvc = pvc;
		} else mark(member, 'PVC');
	}
	// After the PVCs: the member's pod started by Corral (`corral ct start`, only Corral's two
	// labels) mounts the member's own PVC, and is the member's (reconcile adopts it).
	for (const pod of [...objects.pods, ...(objects.corralPods ?? [])]) {
		const name = pod.metadata.name;
		if (!name || memberIndex(pool, name) === null) continue;
		if (
			isPoolObject(pool, name, 'pod', pod) ||
			isCorralStartedPod(pool, name, pod, byName.get(name)?.pvc)
		) {
			const m = slot(name);
			if (m) m.pod = pod;
		} else mark(name, 'pod');
	}
	for (const lease of objects.leases) {
		const member = lease.metadata.name ? memberOfLease(lease.metadata.name) : null;
		if (!member || memberIndex(pool, member) === null) continue;
		if (isPoolObject(pool, member, 'Lease', lease)) {
			const m = slot(member);
			if (m) m.lease = lease;
		} else mark(member, 'Lease');
	}
	for (const lease of objects.olderLeases ?? []) {
		const member = memberOfOlderLease(lease);
		const m = member ? slot(member) : null;
		if (m) m.olderLease = lease;
	}
	for (const f of objects.foreign ?? [])
		if (memberIndex(pool, f.member) !== null) mark(f.member, f.kind);
	for (let i = 1; i <= size; i++) slot(`${pool}-${i}`);
	// A stranger matters only where the pool has a member: within size, or above it while
	// the pool still has objects there (a name far above size is nobody's business here).
	for (const [member, kind] of marks) {
		const m = byName.get(member);
		if (!m) continue;
		m.foreign ??= [];
		if (!m.foreign.includes(kind)) m.foreign.push(kind);
	}
	return [...byName.values()].sort((a, b) => a.index - b.index);
}
