/**
 * The safety invariants of a CT pool, checked over a chaos timeline:
 * - no member's pod or PVC starts being deleted while a user holds its Lease; every delete
 *   happens under the reconciler's Lease (a release hands the Lease to the reconciler first),
 *   or during an admin's by-the-book recovery of an unclaimed member;
 * - a user's claim is only ever ended by that user's release or an admin's force-release;
 * - a Lease never passes from one user to another, nor from the reconciler to a user;
 * - every claim the engine reported got a member whose Lease that identity created (nobody
 *   else held it) or already held;
 * - the next user always gets a clean desktop: no data PVC is ever claimed by two identities.
 * Findings that are not safety violations (a claim given a member with no desktop, one
 * identity holding two members) are warnings.
 */

import { RECONCILER_IDENTITY } from '../source/pool/errors.js';
import type { MemberEvent, Operation } from './timeline.js';

/** One broken rule (a violation) or a questionable moment (a warning). */
export interface Finding {
	rule: string;
	member: string;
	revision: number;
	message: string;
}

/** What the checks found and how many individual checks they made. */
export interface InvariantResult {
	/** How many individual invariant checks were evaluated. */
	checks: number;
	violations: Finding[];
	warnings: Finding[];
	/** What the timeline held, for the report. */
	seen: {
		userLeases: number;
		handOvers: number;
		takeovers: number;
		deletes: number;
		claimsChecked: number;
		desktops: number;
	};
}

/** The part of a timeline the checks read. */
export interface TimelineData {
	pool: string;
	events: readonly MemberEvent[];
	operations: readonly Operation[];
}

interface Tracked {
	uid: string;
	deleting: boolean;
}

interface LeaseNow {
	holder: string;
	uid: string;
}

/** A value over revisions: set in revision order, read at any revision. */
class History<T> {
	private readonly revs: number[] = [];
	private readonly values: T[] = [];

	set(revision: number, value: T): void {
		this.revs.push(revision);
		this.values.push(value);
	}

	/** The value as of revision (after every change at or before it). */
	at(revision: number, fallback: T): T {
		let lo = 0;
		let hi = this.revs.length - 1;
		let found = -1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (this.revs[mid]! <= revision) {
				found = mid;
				lo = mid + 1;
			} else hi = mid - 1;
		}
		return found < 0 ? fallback : this.values[found]!;
	}
}

function within(op: Operation, revision: number): boolean {
	return op.startRev < revision && revision <= (op.endRev ?? Number.POSITIVE_INFINITY);
}

function isUser(holder: string): boolean {
	return holder !== '' && holder !== RECONCILER_IDENTITY;
}

/** Checks the safety invariants over a timeline. */
export function checkTimeline(timeline: TimelineData): InvariantResult {
	const result: InvariantResult = {
		checks: 0,
		violations: [],
		warnings: [],
		seen: {
			userLeases: 0,
			handOvers: 0,
			takeovers: 0,
			deletes: 0,
			claimsChecked: 0,
			desktops: 0,
		},
	};
	const violation = (rule: string, member: string, revision: number, message: string) =>
		result.violations.push({ rule, member, revision, message });
	const warning = (rule: string, member: string, revision: number, message: string) =>
		result.warnings.push({ rule, member, revision, message });
	const check = (ok: boolean): boolean => {
		result.checks++;
		return ok;
	};

	const claimsBy = new Map<string, Operation[]>();
	const releasesOf = new Map<string, Operation[]>();
	const recoveriesOf = new Map<string, Operation[]>();
	for (const op of timeline.operations) {
		if (op.kind === 'claim') push(claimsBy, op.identity, op);
		if (op.kind === 'release' || op.kind === 'force-release') push(releasesOf, op.member, op);
		if (op.kind === 'recovery') push(recoveriesOf, op.member, op);
	}

	const leases = new Map<string, LeaseNow>();
	const pods = new Map<string, Tracked>();
	const pvcs = new Map<string, Tracked>();
	const leaseHistory = new Map<string, History<string>>();
	const pvcHistory = new Map<string, History<string>>();
	const heldBy = new Map<string, Set<string>>();
	const pvcUsers = new Map<string, Set<string>>();
	const dirty = new Set<string>();

	const holderOf = (member: string) => leases.get(member)?.holder ?? '';
	const noteUser = (pvcUid: string, identity: string, member: string, revision: number) => {
		let users = pvcUsers.get(pvcUid);
		if (!users) {
			users = new Set();
			pvcUsers.set(pvcUid, users);
			result.seen.desktops++;
		}
		users.add(identity);
		if (!check(users.size <= 1) && !dirty.has(pvcUid)) {
			dirty.add(pvcUid);
			violation(
				'clean-desktop',
				member,
				revision,
				`data PVC of ${member} (uid ${pvcUid}) was claimed by ${[...users].join(' and ')} without being destroyed and created again in between: the next user got the previous user's desktop`,
			);
		}
	};
	const deletionStart = (e: MemberEvent) => {
		result.seen.deletes++;
		const holder = holderOf(e.member);
		const what = `${e.kind === 'pod' ? 'pod' : 'data PVC'} of ${e.member}`;
		if (!check(!isUser(holder))) {
			violation(
				'delete-under-claim',
				e.member,
				e.revision,
				`${what} started being deleted while ${holder} held its Lease`,
			);
			return;
		}
		if (holder === RECONCILER_IDENTITY) {
			check(true);
			return;
		}
		const recovery = (recoveriesOf.get(e.member) ?? []).some((op) => within(op, e.revision));
		if (!check(recovery))
			violation(
				'delete-without-lease',
				e.member,
				e.revision,
				`${what} started being deleted while nobody held its Lease (the reconciler must take it first)`,
			);
	};

	for (const e of timeline.events) {
		if (e.kind === 'lease') {
			const prev = leases.get(e.member);
			if (e.type === 'ADDED') {
				if (!check(prev === undefined))
					violation(
						'lease-created-twice',
						e.member,
						e.revision,
						`Lease of ${e.member} created while one existed`,
					);
				if (isUser(e.holder)) {
					result.seen.userLeases++;
					const inClaim = (claimsBy.get(e.holder) ?? []).some((op) => within(op, e.revision));
					if (!check(inClaim))
						violation(
							'claim-outside-claim',
							e.member,
							e.revision,
							`a Lease of ${e.member} for ${e.holder} appeared outside any claim by ${e.holder}`,
						);
					const pod = pods.get(e.member);
					const pvc = pvcs.get(e.member);
					if (pod?.deleting || pvc?.deleting)
						warning(
							'claimed-while-terminating',
							e.member,
							e.revision,
							`${e.holder} claimed ${e.member} while its ${pod?.deleting ? 'pod' : 'PVC'} was being deleted`,
						);
					if (pvc) noteUser(pvc.uid, e.holder, e.member, e.revision);
					let mine = heldBy.get(e.holder);
					if (!mine) {
						mine = new Set();
						heldBy.set(e.holder, mine);
					}
					if (mine.size > 0)
						warning(
							'one-member-per-identity',
							e.member,
							e.revision,
							`${e.holder} claimed ${e.member} while already holding ${[...mine].join(', ')}`,
						);
					mine.add(e.member);
				}
				leases.set(e.member, { holder: e.holder, uid: e.uid });
			} else if (e.type === 'MODIFIED') {
				const from = prev?.holder ?? '';
				const to = e.holder;
				if (from !== to) {
					if (isUser(from) && to === RECONCILER_IDENTITY) {
						result.seen.handOvers++;
						const legit = (releasesOf.get(e.member) ?? []).some(
							(op) =>
								within(op, e.revision) && (op.kind === 'force-release' || op.identity === from),
						);
						if (!check(legit))
							violation(
								'claim-taken',
								e.member,
								e.revision,
								`the claim of ${from} on ${e.member} was handed to the reconciler outside a release by ${from} or a force-release`,
							);
						heldBy.get(from)?.delete(e.member);
					} else if (isUser(from) && isUser(to)) {
						check(false);
						violation(
							'two-holders',
							e.member,
							e.revision,
							`the Lease of ${e.member} passed from ${from} to ${to} directly`,
						);
						heldBy.get(from)?.delete(e.member);
					} else if (from === RECONCILER_IDENTITY && isUser(to)) {
						check(false);
						violation(
							'reconciler-to-user',
							e.member,
							e.revision,
							`the reconciler's Lease of ${e.member} was given to ${to}`,
						);
					} else if (from === RECONCILER_IDENTITY && to === RECONCILER_IDENTITY) {
						result.seen.takeovers++;
					}
				} else if (from === RECONCILER_IDENTITY) {
					result.seen.takeovers++;
				}
				leases.set(e.member, { holder: e.holder, uid: e.uid });
			} else {
				const from = prev?.holder ?? e.holder;
				if (isUser(from)) {
					const givenBack = (claimsBy.get(from) ?? []).some((op) => within(op, e.revision));
					if (!check(givenBack))
						violation(
							'claim-removed',
							e.member,
							e.revision,
							`the claim of ${from} on ${e.member} was deleted without a release`,
						);
					else {
						// A claim that gave a member back never handed it to its user: the desktop
						// is as clean as it was.
						const pvcUid = pvcs.get(e.member)?.uid;
						if (pvcUid) pvcUsers.get(pvcUid)?.delete(from);
					}
					heldBy.get(from)?.delete(e.member);
				}
				leases.delete(e.member);
			}
			history(leaseHistory, e.member).set(e.revision, leases.get(e.member)?.holder ?? '');
			continue;
		}

		const objects = e.kind === 'pod' ? pods : pvcs;
		const prev = objects.get(e.member);
		if (e.type === 'DELETED') {
			if (!prev?.deleting || prev.uid !== e.uid) deletionStart(e);
			objects.delete(e.member);
		} else {
			if (e.deleting && !(prev?.deleting && prev.uid === e.uid)) deletionStart(e);
			objects.set(e.member, { uid: e.uid, deleting: e.deleting });
			if (e.kind === 'pvc' && e.type === 'ADDED') {
				const holder = holderOf(e.member);
				if (isUser(holder)) {
					warning(
						'pvc-created-under-claim',
						e.member,
						e.revision,
						`data PVC of ${e.member} was created while ${holder} held its Lease`,
					);
					noteUser(e.uid, holder, e.member, e.revision);
				}
			}
		}
		if (e.kind === 'pvc')
			history(pvcHistory, e.member).set(e.revision, pvcs.get(e.member)?.uid ?? '');
	}

	// Every claim the engine reported against the timeline.
	for (const op of timeline.operations) {
		if (op.kind !== 'claim' || op.outcome !== 'ok' || op.endRev === null) continue;
		result.seen.claimsChecked++;
		const m = op.member;
		const created = timeline.events.some(
			(e) =>
				e.kind === 'lease' &&
				e.type === 'ADDED' &&
				e.member === m &&
				e.holder === op.identity &&
				within(op, e.revision),
		);
		const heldBefore = (leaseHistory.get(m)?.at(op.startRev, '') ?? '') === op.identity;
		const ok = op.existing ? created || heldBefore : created;
		if (!check(ok))
			violation(
				'claim-result',
				m,
				op.endRev,
				op.existing
					? `claim by ${op.identity} said it already held ${m}, but it held no Lease of ${m}`
					: `claim by ${op.identity} returned ${m}, but no Lease of ${m} was created for ${op.identity} during the claim`,
			);
		const pvcAtEnd = pvcHistory.get(m)?.at(op.endRev, '') ?? '';
		if (!check(pvcAtEnd !== ''))
			warning(
				'claim-without-desktop',
				m,
				op.endRev,
				`claim by ${op.identity} returned ${m}, which had no data PVC when the claim ended (a claimed Missing member is never created by reconcile)`,
			);
	}
	return result;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
	const list = map.get(key);
	if (list) list.push(value);
	else map.set(key, [value]);
}

function history(map: Map<string, History<string>>, member: string): History<string> {
	let h = map.get(member);
	if (!h) {
		h = new History<string>();
		map.set(member, h);
	}
	return h;
}
