/**
 * claim: give a member to an identity. The identity's own member when it holds one (an
 * expired claim is renewed); otherwise the first free member, won by creating its Lease.
 *
 * The path: snapshot (claim-snapshot.ts: the engine's watch-fed cache in a long-running
 * process (claim-cache.ts: its own watches, or a feed the process hands it), else the
 * definition and one list of each kind, shared by concurrent claims) → choose
 * (nextCandidate) → Lease create → settle (one round at once: the PVC's display copy written
 * at the snapshot's resourceVersion, and the identity's earlier claim looked for in the cache
 * or by its holder label), then the audit Event. A claim from the watch-fed cache of a member
 * whose pod runs answers after the Lease create alone (its earlier-claim check reads the
 * cache): its display copy and Event are written after the answer (answersFirst).
 *
 * Why a stale snapshot is safe (client-go's informer pattern): the Lease create is the
 * arbiter. A member the snapshot wrongly shows free only loses the create (409); one it
 * wrongly shows taken is found by the read of the API that every "no free members" answer
 * made from an older read or from the cache goes through first. Within one engine:
 * - claims of one identity queue up (claim); a win marks the engine's shared read as not
 *   showing it (markWon), so the identity's next claim reads again and finds its member
 *   instead of winning a second one (the race that reverted this path once, 7b289dc:
 *   claim-race.test.ts replays it);
 * - a claim that loses a create to a claim of the same engine still settling waits for that
 *   settle and tries the member again if it was given back (givenBackBySibling), and one
 *   that finds nothing free waits for the engine's settles in the pool and reads again if one
 *   gave a member back (freedBySiblings), so that a member about to be free is never
 *   answered as "no free members" (an identity's duplicate from another engine is given
 *   back so).
 */

import { authenticatedUser } from '../kube/whoami.js';
import { identityProblem, noFreeMessage, PoolError, RECONCILER_IDENTITY } from '../pool/errors.js';
import {
	CLAIM_SECONDS,
	CLAIM_USER_ANNOTATION,
	HOLDER_LABEL,
	holderLabelValue,
	leaseHolder,
} from '../pool/lease.js';
import {
	groupMembers,
	type MemberObjects,
	type MemberView,
	memberView,
	notFreeReason,
} from '../pool/member-state.js';
import { ASSIGNED_TO_ANNOTATION, MEMBER_LABEL, memberIndex, pvcName } from '../pool/names.js';
import { readObjects } from '../pool/object-shape.js';
import type { LeaseObject, PodObject, PvcObject } from '../pool/objects.js';
import { type PoolSpec, sourceFields } from '../pool/spec.js';
import { shortfall } from '../pool/status.js';
import { sanitize } from '../text/sanitize.js';
import { claimCacheKey } from './claim-cache.js';
import {
	type ClaimSnapshot,
	changingPool,
	claimSnapshot,
	claimTick,
	markWon,
	stateRank,
} from './claim-snapshot.js';
import { checkPoolName, clusterError, failureText } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';
import { ForeignObjectError } from './foreign-objects.js';
import {
	afterAnswer,
	answering,
	flushKubeEvents,
	recordAudit,
	recordRefusal,
} from './kube-event.js';
import { createLease, deleteLease, readLease, replaceLease } from './member-lease.js';
import { podFromPvc } from './member-objects.js';
import { annotateOwnedPvc, createPod, readMember } from './member-ops.js';
import {
	type ListedObjects,
	listPoolObjects,
	poolSelector,
	readListedObjects,
} from './pool-objects.js';

/** What a claim gave. */
export interface ClaimResult {
	member: string;
	/** The identity's expired claim was renewed. */
	renewed: boolean;
	/** The identity already held this member. */
	existing: boolean;
	/** The member had no pod and one was created. */
	started: boolean;
}

/** After this many lost races in a row, the Leases are listed again to skip taken members. */
const LOSSES_BEFORE_REFRESH = 3;

/** Throws the PoolError for an unusable claim identity. */
export function checkIdentity(identity: string): void {
	const problem = identityProblem(identity);
	if (problem)
		throw new PoolError(identity === RECONCILER_IDENTITY ? 'reserved-identity' : 'usage', problem);
}

/**
 * Claims a member of a pool for an identity. Throws PoolError('no-free') when none is free.
 * Claims of one identity through one engine run one after another (the second answers with the
 * member the first won), so that concurrent claims answer as the same claims in sequence
 * would; claims of different identities run at once.
 */
export async function claim(
	ctx: EngineContext,
	pool: string,
	identity: string,
): Promise<ClaimResult> {
	checkPoolName(pool);
	checkIdentity(identity);
	const byKey = ctx.caches.claimsInFlight;
	const key = JSON.stringify([ctx.namespace, pool, identity]);
	const before = byKey.get(key);
	const mine = (before ? before.catch(() => {}) : Promise.resolve()).then(() =>
		claimNow(ctx, pool, identity),
	);
	byKey.set(key, mine);
	try {
		return await mine;
	} finally {
		if (byKey.get(key) === mine) byKey.delete(key);
	}
}

async function claimNow(ctx: EngineContext, pool: string, identity: string): Promise<ClaimResult> {
	// Its own copy: the claim waits for its own Events only, not for those of concurrent claims.
	ctx = { ...ctx };
	// Counted among the engine's claims under way until it answers: the writes other claims
	// left after their answers wait for it (kube-event.ts answering).
	const outcome = await answering(ctx, () => answerClaim(ctx, pool, identity));
	// A long-running engine answering from its watch-fed cache answers before its audit Event
	// is written (the write goes on in the process): the claim's fast path is the Lease create.
	// A one-shot claim, and a failed one, wait for their Events before they answer.
	if ('failed' in outcome) {
		await flushKubeEvents(ctx);
		throw outcome.failed;
	}
	if (!outcome.cached) await flushKubeEvents(ctx);
	return outcome.result;
}

/**
 * The claim up to its answer: the member, and whether the read it came from was the cache's;
 * or its failure, told in an Event (a pool that cannot be read throws).
 */
async function answerClaim(
	ctx: EngineContext,
	pool: string,
	identity: string,
): Promise<{ result: ClaimResult; cached: boolean } | { failed: unknown }> {
	const startTick = claimTick();
	// Who the cluster says claims is asked (once per process) while the pool is read.
	void authenticatedUser(ctx.kube);
	let snapshot = await claimSnapshot(ctx, pool);
	emitEvent(ctx, {
		pool,
		action: 'claim',
		outcome: 'start',
		message: `claim in ${pool} for ${identity}`,
	});
	try {
		// An identity that won a member since this read began may not find it there: read again.
		if (snapshot.winners.has(identity)) snapshot = await claimSnapshot(ctx, pool, 'new');
		let result: ClaimResult | undefined;
		for (let attempt = 1; !result; attempt++) {
			try {
				result = await claimIn(ctx, pool, snapshot, identity);
			} catch (err) {
				// A double claim gave its member back: read again (a few times at most).
				const again = err instanceof ClaimAgain && attempt < CLAIM_ATTEMPTS;
				// Nothing free in a read begun before this claim, or in the watch-fed cache (which
				// may lag): read the API again, then decide.
				const stale =
					(err instanceof PoolError &&
						err.kind === 'no-free' &&
						(snapshot.readTick < startTick || snapshot.cached)) ||
					err instanceof ReadAgain;
				if (!again && !stale) throw err instanceof ClaimAgain ? busyAgain(identity) : err;
				snapshot = await claimSnapshot(ctx, pool, 'api');
			}
		}
		emitEvent(ctx, {
			pool,
			member: result.member,
			action: 'claim',
			outcome: 'ok',
			message: result.existing
				? `${identity} already holds ${result.member}${result.renewed ? ' (expired claim renewed)' : ''}`
				: `${result.member} claimed by ${identity}`,
		});
		return { result, cached: snapshot.cached };
	} catch (err) {
		if (err instanceof PoolError && err.kind === 'no-free')
			recordRefusal(ctx, pool, identity, err.message);
		emitEvent(ctx, { pool, action: 'claim', outcome: 'error', message: failureText(err) });
		return { failed: err };
	}
}

async function claimIn(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
	identity: string,
): Promise<ClaimResult> {
	const { spec, poolInputs, objects, members, candidates, taken } = snapshot;
	const own = snapshot.views.find((v) => v.holder === identity);
	// Its Lease or pod may change: the next claim reads again.
	if (own) return changingPool(ctx, pool, () => keepOwn(ctx, pool, spec, identity, own, members));

	// who the cluster says claims (asked once per process): a release by another user is
	// then recorded as forced, whatever identity it names
	const user = await authenticatedUser(ctx.kube);
	const annotations = user ? { [CLAIM_USER_ANNOTATION]: user } : undefined;
	let losses = 0;
	let tried = 0;
	for (;;) {
		const view = nextCandidate(candidates, taken, losses);
		if (!view) break;
		tried++;
		// Taken before the first await: the other claims of this context pass it by.
		taken.add(view.name);
		let lease: LeaseObject | null;
		try {
			lease = await createLease(ctx, pool, view.name, identity, CLAIM_SECONDS, annotations);
		} catch (err) {
			taken.delete(view.name);
			throw err;
		}
		if (!lease) {
			// Lost to a claim of this engine still settling: it may give the member back (its
			// identity won another one at the same time); then the member is tried again, so
			// that a member about to be free is not counted as taken ("no free members").
			if (await givenBackBySibling(ctx, view.name)) {
				taken.delete(view.name);
				continue;
			}
			if (++losses % LOSSES_BEFORE_REFRESH === 0) await refreshLeases(ctx, pool, snapshot);
			continue;
		}
		markWon(ctx, pool, snapshot, identity, lease);
		const won = await settling(ctx, view.name, () =>
			settle(ctx, pool, spec, identity, view, lease, snapshot),
		);
		if (won) return won;
	}
	// A member a claim of this engine is about to give back is not taken: wait for those
	// settles, and read again if one was freed.
	if (await freedBySiblings(ctx, pool)) throw new ReadAgain();
	// None free: the counts as they are now (listed again after tries: Leases won by others,
	// pods Corral started and a try adopted), with the strangers' objects the tries ran into
	// (the list does not show them).
	const finalObjects: ListedObjects = tried > 0 ? await listPoolObjects(ctx, pool) : objects;
	const foreign = [...snapshot.strangers].flatMap(([member, kinds]) =>
		kinds.map((kind) => ({ kind, member })),
	);
	const views = groupMembers(pool, spec.size, { ...finalObjects, foreign }).map((m) =>
		memberView(m, poolInputs, ctx.now()),
	);
	const blocked = views.filter((v) => v.index <= spec.size && v.foreign.length > 0 && !v.holder);
	throw new PoolError(
		'no-free',
		noFreeMessage(
			shortfall(spec.size, views),
			blocked.map((v) => `${v.name}: ${v.foreign.join(', ')}`),
		),
	);
}

/** The key of a member's Lease among the engine's claims settling. */
function settlingKey(ctx: EngineContext, member: string): string {
	return `${ctx.namespace}/${member}`;
}

/**
 * Runs the settle of a member just won, known to the engine's other claims meanwhile (see
 * givenBackBySibling): it resolves whether the member stays unavailable. Only a member given
 * back because its identity won another one (ClaimAgain) is free again; one given back for a
 * stranger's object, a PVC gone or a Corral pod is not free, and an error leaves the Lease.
 */
async function settling<T>(
	ctx: EngineContext,
	member: string,
	run: () => Promise<T | null>,
): Promise<T | null> {
	const byMember = ctx.caches.claimsSettling;
	const key = settlingKey(ctx, member);
	let done: (kept: boolean) => void = () => {};
	const outcome = new Promise<boolean>((resolve) => {
		done = resolve;
	});
	byMember.set(key, outcome);
	let kept = true;
	try {
		return await run();
	} catch (err) {
		if (err instanceof ClaimAgain) kept = false;
		throw err;
	} finally {
		// A member given back stays known as such until a claim that lost it has seen that.
		if (kept && byMember.get(key) === outcome) byMember.delete(key);
		done(kept);
	}
}

/**
 * Whether the member whose Lease create was just lost was won by a claim of this engine that
 * then gave it back: waits for that claim's settle when one is under way; false otherwise.
 */
async function givenBackBySibling(ctx: EngineContext, member: string): Promise<boolean> {
	const byMember = ctx.caches.claimsSettling;
	const key = settlingKey(ctx, member);
	const sibling = byMember.get(key);
	if (!sibling || (await sibling)) return false;
	// seen once: a later lost create of this member is a loss like any other
	if (byMember.get(key) === sibling) byMember.delete(key);
	return true;
}

/**
 * Whether a claim of this engine settling a member of the pool gave one back free: waits for
 * every such settle under way, so that "no free members" never counts a member about to be
 * free (a read may show the Lease of a claim that is about to give it back).
 */
async function freedBySiblings(ctx: EngineContext, pool: string): Promise<boolean> {
	const byMember = ctx.caches.claimsSettling;
	const prefix = settlingKey(ctx, '');
	const pending = [...byMember].filter(
		([key]) => key.startsWith(prefix) && memberIndex(pool, key.slice(prefix.length)) !== null,
	);
	if (pending.length === 0) return false;
	const outcomes = await Promise.all(pending.map(([, outcome]) => outcome));
	let freed = false;
	for (const [i, [key, outcome]] of pending.entries()) {
		if (outcomes[i]) continue;
		freed = true;
		if (byMember.get(key) === outcome) byMember.delete(key);
	}
	return freed;
}

/** A claim found nothing free while a claim of its engine gave a member back: it reads again. */
class ReadAgain extends Error {}

/** How often a claim starts again after giving back a member won twice by its identity. */
const CLAIM_ATTEMPTS = 3;

/** A claim that gave back a member its identity won twice, and starts again. */
class ClaimAgain extends Error {}

function busyAgain(identity: string): PoolError {
	return new PoolError(
		'busy',
		`other claims by ${sanitize(identity)} kept racing this one; run claim again`,
	);
}

/** Creation order of Leases: creation time, then the revision they were written at. */
function claimOrder(l: LeaseObject): [number, bigint] {
	const rv = l.metadata.resourceVersion ?? '';
	return [
		Date.parse(String(l.metadata.creationTimestamp ?? '')) || 0,
		/^\d+$/.test(rv) ? BigInt(rv) : 0n,
	];
}

function earlierThan(a: LeaseObject, b: LeaseObject): boolean {
	const [ta, ra] = claimOrder(a);
	const [tb, rb] = claimOrder(b);
	return ta !== tb ? ta < tb : ra < rb;
}

/** At most this many identities in one label selector of the check for an earlier claim. */
const HOLDERS_PER_LIST = 50;

/**
 * The member of another Lease the identity holds in the pool that was made before `mine`, or
 * null. Two claims at once by one identity (a double click, two terminals) may each win a
 * member: the identity's Leases (found by their holder label, never a list of every Lease)
 * are listed after mine was made, so the later of the two always sees the earlier; it gives
 * its member back, and both answer with the same member. Claims that win in the same turn of
 * the event loop share one list (`holder-hash in (...)`).
 */
async function earlierClaimOf(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
	identity: string,
	mine: LeaseObject,
): Promise<string | null> {
	const cached = await cachedLeasesAfter(ctx, pool, snapshot, identity, mine);
	if (cached) return earlierIn(cached, identity, mine);
	// A list not yet sent is made after mine, so it serves; one already sent may not.
	let shared = snapshot.afterWin;
	if (!shared || shared.sent || shared.identities.size >= HOLDERS_PER_LIST) {
		const next: NonNullable<ClaimSnapshot['afterWin']> = {
			sent: false,
			identities: new Set(),
			leases: new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
				next.sent = true;
				return listLeases(ctx, holdersSelector(pool, next.identities));
			}),
		};
		snapshot.afterWin = next;
		shared = next;
	}
	shared.identities.add(identity);
	return earlierIn(await shared.leases, identity, mine);
}

/** The member of a Lease among leases the identity holds that was made before mine, or null. */
function earlierIn(
	leases: readonly LeaseObject[],
	identity: string,
	mine: LeaseObject,
): string | null {
	for (const l of leases) {
		if (l.metadata.name === mine.metadata.name || leaseHolder(l) !== identity) continue;
		if (earlierThan(l, mine)) return l.metadata.labels?.[MEMBER_LABEL] ?? null;
	}
	return null;
}

/**
 * The pool's Leases from the engine's watch-fed cache once its Lease watch has delivered
 * mine (a watch delivers in resourceVersion order: every Lease made before mine is there),
 * or null when the snapshot was not made from the cache or the watch lags (then: a list).
 */
async function cachedLeasesAfter(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
	identity: string,
	mine: LeaseObject,
): Promise<LeaseObject[] | null> {
	const cache = snapshot.cached ? ctx.caches.claimCaches.get(claimCacheKey(ctx, pool)) : undefined;
	if (!cache?.synced() || !(await cache.leasesReached(mine.metadata.resourceVersion))) return null;
	// only the identity's (by their holder label): a claim's check reads a few, not every Lease
	const leases = cache.leasesLabelled(HOLDER_LABEL, holderLabelValue(identity));
	return readListedObjects({ pods: [], pvcs: [], leases }, pool).leases;
}

/** The label selector of the Leases in a pool held by some identities. */
function holdersSelector(pool: string, identities: ReadonlySet<string>): string {
	const values = [...identities].map(holderLabelValue).sort();
	return `${poolSelector(pool)},${HOLDER_LABEL} in (${values.join(',')})`;
}

/** Lists the Leases again (one list shared by the claims that lost races) and marks them taken. */
async function refreshLeases(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
): Promise<void> {
	snapshot.leaseRefresh ??= listLeases(ctx, poolSelector(pool))
		.then((leases) => {
			for (const l of leases) {
				const member = l.metadata.labels?.[MEMBER_LABEL];
				if (member) snapshot.taken.add(member);
			}
		})
		.finally(() => {
			snapshot.leaseRefresh = undefined;
		});
	await snapshot.leaseRefresh;
}

/**
 * The next member to try. Without a lost race it is the first free one in the contract's
 * order (Ready, then Starting, then Stopped; lowest index first). After lost races, many
 * claimers are racing for the same members in the same order; each then picks at random
 * among the first 2^losses untried members of the best state, so that they spread out
 * instead of colliding on every member in turn (n claimers: about n log n attempts, not n^2).
 */
function nextCandidate(
	candidates: readonly MemberView[],
	taken: ReadonlySet<string>,
	losses: number,
): MemberView | undefined {
	const first = candidates.find((v) => !taken.has(v.name));
	if (!first || losses === 0) return first;
	const rank = stateRank(first);
	const spread = 2 ** Math.min(losses, 10);
	const pool: MemberView[] = [];
	for (const v of candidates) {
		if (pool.length >= spread) break;
		if (taken.has(v.name)) continue;
		if (stateRank(v) !== rank) break;
		pool.push(v);
	}
	return pool[Math.floor(Math.random() * pool.length)] ?? first;
}

/** The Leases a label selector picks, each read at the boundary (one that does not read is left out). */
async function listLeases(ctx: EngineContext, labelSelector: string): Promise<LeaseObject[]> {
	try {
		const list = await ctx.kube.readJson<{ items?: unknown }>(
			`/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(ctx.namespace)}/leases`,
			{ labelSelector },
		);
		return readObjects('leases', Array.isArray(list.items) ? list.items : []).objects;
	} catch (err) {
		throw clusterError(err, {
			verb: 'list',
			resource: 'leases.coordination.k8s.io',
			namespace: ctx.namespace,
		});
	}
}

/**
 * Writes the display copy of the holder on the PVC (only the pool's own: ForeignObjectError
 * otherwise); resolves with the PVC, or null when it is gone.
 */
async function annotateHolder(
	ctx: EngineContext,
	pool: string,
	member: string,
	holder: string | null,
	known?: PvcObject,
): Promise<PvcObject | null> {
	try {
		return await annotateOwnedPvc(ctx, pool, member, { [ASSIGNED_TO_ANNOTATION]: holder }, known);
	} catch (err) {
		if (err instanceof PoolError) throw err;
		throw clusterError(err, {
			verb: 'patch',
			resource: 'persistentvolumeclaims',
			namespace: ctx.namespace,
			name: pvcName(member),
		});
	}
}

/**
 * Creates the pod of a claimed Stopped member from the source on its PVC (the current source
 * when the PVC could not be read); resolves whether a pod was created.
 */
async function startStopped(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	member: string,
	pvc: PvcObject | undefined,
	holder: string,
): Promise<boolean> {
	if (pvc?.metadata.deletionTimestamp) return false;
	try {
		const pod = (pvc && podFromPvc(pool, member, ctx.namespace, pvc)) ?? sourceFields(spec);
		const started = await createPod(ctx, pool, member, pod);
		if (started) recordAudit(ctx, pool, { action: 'start', member, holder });
		return started;
	} catch (err) {
		// The claim stands; the next reconcile starts a claimed member without a pod.
		emitEvent(ctx, {
			pool,
			member,
			action: 'start',
			outcome: 'error',
			message: `${member} is claimed but its pod could not be created (the next reconcile starts it): ${failureText(err)}`,
			partial: true,
		});
		return false;
	}
}

/** What marking a member just won as the identity's found. */
type Marked =
	| { foreign: ForeignObjectError }
	| { pvc: PvcObject | null | undefined; corralPod: PodObject | null };

/**
 * Writes the holder on the member's PVC (at the resourceVersion of the snapshot: no read when
 * it is unchanged) and, for a Stopped member, reads a pod Corral's `ct start` may have made.
 * Never throws: a stranger's object is reported as foreign; any other failure is a partial
 * error (the Lease is the authority, the annotation only a display copy): pvc undefined.
 */
async function markHolder(
	ctx: EngineContext,
	pool: string,
	identity: string,
	view: MemberView,
	snapshot: ClaimSnapshot,
): Promise<Marked> {
	const member = view.name;
	const known = snapshot.members.find((m) => m.name === member)?.pvc ?? undefined;
	try {
		const pvc = await annotateHolder(ctx, pool, member, identity, known);
		// A pod under its name that is not the pool's (a Stopped member's) is never handed out;
		// one Corral's `ct start` made is adopted, and judged as the member is now.
		const corralPod = view.state === 'Stopped' ? (await readMember(ctx, pool, member)).pod : null;
		return { pvc, corralPod };
	} catch (err) {
		if (err instanceof ForeignObjectError) return { foreign: err };
		emitEvent(ctx, {
			pool,
			member,
			action: 'claim',
			outcome: 'error',
			message: `${member} is claimed, but its assigned-to annotation could not be written: ${failureText(err)}`,
			partial: true,
		});
		return { pvc: undefined, corralPod: null };
	}
}

/**
 * After winning a member's Lease, one round of requests at once: the identity's earlier
 * claim looked for (earlierClaimOf) while the PVC is marked (markHolder). Then the member is
 * given back (a claim of the same identity came first: ClaimAgain; a stranger's object, a
 * PVC gone or being deleted, a Corral pod that is not free: null, the next one is tried) or
 * kept, its pod started when it has none.
 */
async function settle(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	identity: string,
	view: MemberView,
	lease: LeaseObject,
	snapshot: ClaimSnapshot,
): Promise<ClaimResult | null> {
	const member = view.name;
	if (answersFirst(snapshot, view)) {
		// The fast path of a long-running engine: the Lease is the authority and the check for
		// an earlier claim reads the cache once its Lease watch has delivered this Lease, so the
		// claim answers after the Lease create alone; the PVC the cache holds as the pool's own
		// gets its display copy after the answer (flushKubeEvents waits for it, as for Events).
		const earlier = await earlierClaimOf(ctx, pool, snapshot, identity, lease);
		if (earlier !== null)
			return giveBackToEarlier(ctx, pool, snapshot, identity, lease, member, earlier);
		afterAnswer(ctx, () => markAfterAnswer(ctx, pool, identity, view, snapshot));
		recordAudit(ctx, pool, { action: 'claim', member, holder: identity });
		return { member, renewed: false, existing: false, started: false };
	}
	const [earlier, marked] = await Promise.all([
		earlierClaimOf(ctx, pool, snapshot, identity, lease).then(
			(m) => ({ member: m }),
			(err: unknown) => ({ failed: err }),
		),
		markHolder(ctx, pool, identity, view, snapshot),
	]);
	if ('failed' in earlier) throw earlier.failed;
	if (earlier.member !== null) {
		if ('pvc' in marked && marked.pvc)
			await annotateHolder(ctx, pool, member, null).catch(() => null);
		return giveBackToEarlier(ctx, pool, snapshot, identity, lease, member, earlier.member);
	}
	if ('foreign' in marked) {
		snapshot.strangers.set(member, marked.foreign.kinds);
		await dropLease(ctx, pool, lease);
		emitEvent(ctx, {
			pool,
			member,
			action: 'claim',
			outcome: 'error',
			message: marked.foreign.message,
		});
		return null;
	}
	const { pvc, corralPod } = marked;
	const fresh = corralPod
		? memberView(
				{
					name: member,
					index: view.index,
					pod: corralPod,
					pvc: pvc ?? snapshot.members.find((m) => m.name === member)?.pvc ?? null,
				},
				snapshot.poolInputs,
				ctx.now(),
			)
		: null;
	if (fresh && !fresh.free) {
		// Started by Corral from another spec (drifted) or not running: not free after all.
		await annotateHolder(ctx, pool, member, null).catch(() => null);
		return giveBack(
			ctx,
			pool,
			lease,
			`${member} was started by Corral and is not free (${notFreeReason(fresh) ?? fresh.state})`,
		);
	}
	// Its PVC vanished or is being deleted since the list: give it back, try the next one.
	if (pvc === null || pvc?.metadata.deletionTimestamp)
		return giveBack(ctx, pool, lease, `${member} was removed meanwhile`);
	const started =
		view.state === 'Stopped' ? await startStopped(ctx, pool, spec, member, pvc, identity) : false;
	recordAudit(ctx, pool, { action: 'claim', member, holder: identity });
	return { member, renewed: false, existing: false, started };
}

/**
 * Whether a claim answers before its PVC's display copy is written: from the watch-fed cache,
 * for a member whose pod exists (no Corral pod to look for, none to start) and whose PVC the
 * cache holds as the pool's own, not being deleted.
 */
function answersFirst(snapshot: ClaimSnapshot, view: MemberView): boolean {
	if (!snapshot.cached || view.state === 'Stopped') return false;
	const pvc = snapshot.members.find((m) => m.name === view.name)?.pvc;
	return Boolean(pvc && !pvc.metadata.deletionTimestamp);
}

/**
 * The display copy of a claim that already answered (answersFirst). The Lease stays the
 * authority: a PVC found to be a stranger's or gone meanwhile is reported as a partial error
 * (the next reconcile or release judges the member), never answered differently.
 */
async function markAfterAnswer(
	ctx: EngineContext,
	pool: string,
	identity: string,
	view: MemberView,
	snapshot: ClaimSnapshot,
): Promise<void> {
	const marked = await markHolder(ctx, pool, identity, view, snapshot);
	const problem =
		'foreign' in marked
			? marked.foreign.message
			: marked.pvc === null
				? 'its PVC was deleted meanwhile'
				: null;
	if (problem)
		emitEvent(ctx, {
			pool,
			member: view.name,
			action: 'claim',
			outcome: 'error',
			message: `${view.name} is claimed, but its assigned-to annotation was not written: ${problem}`,
			partial: true,
		});
}

/** A claim of the same identity won earlier: this member's Lease is deleted and the claim reads again (ClaimAgain). */
async function giveBackToEarlier(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
	identity: string,
	lease: LeaseObject,
	member: string,
	earlier: string,
): Promise<never> {
	await dropLease(ctx, pool, lease);
	snapshot.taken.delete(member);
	emitEvent(ctx, {
		pool,
		member,
		action: 'claim',
		outcome: 'info',
		message: `${sanitize(identity)} won ${earlier} in a claim at the same time; ${member} given back`,
	});
	throw new ClaimAgain();
}

/** Deletes a Lease a claim just made (failures ignored: the next reconcile sees the Lease), also from the engine's watch-fed cache of the pool. */
async function dropLease(ctx: EngineContext, pool: string, lease: LeaseObject): Promise<void> {
	const name = lease.metadata.name;
	if (name) ctx.caches.claimCaches.get(claimCacheKey(ctx, pool))?.noteDeleted(name);
	await deleteLease(ctx, lease).catch(() => false);
}

/** Gives a member just won back (its Lease deleted), saying why: the claim tries the next one. */
async function giveBack(
	ctx: EngineContext,
	pool: string,
	lease: LeaseObject,
	why: string,
): Promise<null> {
	await dropLease(ctx, pool, lease);
	const member = lease.metadata.labels?.[MEMBER_LABEL];
	emitEvent(ctx, {
		pool,
		...(member ? { member } : {}),
		action: 'claim',
		outcome: 'info',
		message: `${why}; trying the next free member`,
	});
	return null;
}

/** The identity already holds a member: renew an expired claim, start it when it has no pod. */
async function keepOwn(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	identity: string,
	view: MemberView,
	members: MemberObjects[],
): Promise<ClaimResult> {
	const member = view.name;
	const objects = members.find((m) => m.name === member)!;
	// The read may be a moment old (shared by concurrent claims): the Lease itself decides.
	// One released meanwhile means the identity holds nothing here any more: start again.
	const current = await readLease(ctx, member);
	if (leaseHolder(current) !== identity) throw new ClaimAgain();
	let renewed = false;
	if (view.claimExpired && current) {
		const lease = await replaceLease(ctx, current, {
			holder: identity,
			durationSeconds: CLAIM_SECONDS,
			transfer: false,
		});
		if (!lease)
			throw new PoolError(
				'busy',
				`the claim of ${sanitize(identity)} on ${member} changed while renewing it; run claim again`,
			);
		renewed = true;
		recordAudit(ctx, pool, { action: 'renew', member, holder: identity, detail: 'it had expired' });
	}
	const started =
		view.state === 'Stopped'
			? await startStopped(ctx, pool, spec, member, objects.pvc ?? undefined, identity)
			: false;
	return { member, renewed, existing: true, started };
}
