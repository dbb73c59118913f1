/**
 * reconcile: read the definition, members and Leases; create, start, replace and delete
 * members under the reconciler's Lease; record the status when it changed. Idempotent, and
 * safe to run twice at once.
 */

import { isNotFound } from '../kube/errors.js';
import { describeDrift } from '../pool/drift.js';
import { RECONCILER_IDENTITY } from '../pool/errors.js';
import { heldByReconciler, leaseHolder, RECONCILER_LEASE_SECONDS } from '../pool/lease.js';
import {
	groupMembers,
	type MemberObjects,
	type MemberView,
	memberProblems,
	memberView,
	type PoolRuleInputs,
	poolRuleInputs,
} from '../pool/member-state.js';
import {
	configMapName,
	pvcName,
	REPLACED_ANNOTATION,
	SERVICE_UNVERIFIED_ANNOTATION,
	SOURCE_LABEL,
	STATUS_KEY,
} from '../pool/names.js';
import { foreignMessage, isPoolObject, type MemberObjectKind } from '../pool/ownership.js';
import {
	heldText,
	REPLACE_BACKOFF_MAX_MS,
	type ReplaceStorm,
	replaceHeldUntil,
	replaceRecordJson,
	replaceStorm,
	stormText,
} from '../pool/replace-backoff.js';
import { limitRollout, maxUnavailableOf, rolloutProgress } from '../pool/rollout.js';
import type { PoolSpec } from '../pool/spec.js';
import { sourceFields } from '../pool/spec.js';
import { buildStatus, type PoolStatus, parseStatus, sameStatus } from '../pool/status.js';
import { bounded } from '../text/sanitize.js';
import { mapLimit } from './bounded-map.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, failureText } from './cluster-error.js';
import { type EngineContext, emitEvent, emitTrace } from './context.js';
import { type Definition, readDefinition } from './definition.js';
import { forgetStepFailure, recordStepFailure } from './failure-events.js';
import { ForeignObjectError, readService } from './foreign-objects.js';
import { recheckStrangers, rememberStrangers } from './known-strangers.js';
import { flushKubeEvents, memberRanges, passContext, recordAudit } from './kube-event.js';
import { keepLease } from './lease-keeper.js';
import {
	deleteLease,
	dryRunReconcilerLease,
	readLease,
	takeReconcilerLease,
} from './member-lease.js';
import { pvcSource } from './member-objects.js';
import {
	annotateOwnedPvc,
	createMember,
	createMissingMember,
	destroyConsoleService,
	destroyMember,
	dryRunMemberPvc,
	readMember,
	type ServiceOutcome,
	startMember,
	unverifiedServiceMark,
} from './member-ops.js';
import {
	claimedByUser,
	planStep,
	type ReconcileStep,
	replaceReason,
	takeoverStep,
} from './member-step.js';
import { mergePatchOptions } from './merge-patch.js';
import { listPoolObjects } from './pool-objects.js';
import { buildPlan, type StepProgress } from './reconcile-plan.js';

/** One step reconcile took on a member. */
export interface ReconcileAction {
	member: string;
	step: ReconcileStep;
	ok: boolean;
	error?: string;
	/** Objects under the member's name found not to be the pool's (left alone). */
	foreign?: MemberObjectKind[];
}

/** What a reconcile did and saw. It failed when errors is not empty. */
export interface ReconcileResult {
	pool: string;
	/** The status as observed at the end (recorded when it changed). */
	status: PoolStatus;
	actions: ReconcileAction[];
	/** One line per failed step: `create desk-3: <reason>`. */
	errors: string[];
	/** Whether the status was written to the ConfigMap. */
	statusWritten: boolean;
	/**
	 * Drifted members this reconcile left for a later wave of a rollout (maxUnavailable):
	 * another reconcile, once the wave replaced now is Ready, goes on (see carryRollout).
	 */
	heldBack: number;
	/**
	 * When another process holds a member's reconciler Lease: how long until the first such
	 * Lease expires (ms). Look again then: if its holder died, that reconcile takes it over.
	 */
	reconcilerLeaseExpiresInMs?: number;
}

const STEP_ORDER: Record<ReconcileStep, number> = {
	create: 0,
	start: 1,
	replace: 2,
	delete: 3,
	takeover: 4,
};

/** How a reconcile runs. */
export interface ReconcileOptions {
	/**
	 * Make the plan and change nothing: the plan is traced (ctx.onTrace), the first write of
	 * each step under a Lease is tried as a server-side dry run, and no other request writes.
	 */
	dryRun?: boolean;
}

/** Reconciles a pool once. Throws PoolError for a missing, unreadable or persistent definition. */
export async function reconcile(
	ctx: EngineContext,
	pool: string,
	opts: ReconcileOptions = {},
): Promise<ReconcileResult> {
	checkPoolName(pool);
	const definition = await readDefinition(ctx, pool);
	if (opts.dryRun) return planOnly(ctx, pool, definition);
	return reconcileDefinition(ctx, pool, definition);
}

interface Plan {
	objects: MemberObjects;
	view: MemberView;
	step: ReconcileStep;
}

/** A member's done step whose Kubernetes Event is written once per reconcile and step kind. */
interface BulkDone {
	name: string;
	index: number;
	/** The member's own Event detail, used when it is the only one of its kind. */
	detail: string;
	/** Who holds the member's claim (a claimed member started), when anyone does. */
	holder?: string;
}

/** Creates and starts done by one reconcile, for one Event per kind instead of one per member. */
type BulkEvents = Record<'create' | 'start', BulkDone[]>;

/**
 * Records the Events of the creates and starts: one on the member's PVC when a kind has a
 * single member, else one on the pool's ConfigMap naming them all.
 */
function recordBulkEvents(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	bulk: BulkEvents,
): void {
	for (const kind of ['create', 'start'] as const) {
		const done = bulk[kind];
		const only = done[0];
		if (!only) continue;
		if (done.length === 1)
			recordAudit(ctx, pool, {
				action: kind,
				member: only.name,
				...(only.detail ? { detail: only.detail } : {}),
				...(only.holder ? { holder: only.holder } : {}),
			});
		else
			recordAudit(ctx, pool, {
				action: kind,
				target: memberRanges(done),
				...(kind === 'create' ? { detail: `from ${spec.image}` } : {}),
			});
	}
}

/** Reconciles a pool against a definition already read (apply and delete use this). */
export function reconcileDefinition(
	ctx: EngineContext,
	pool: string,
	definition: Definition,
): Promise<ReconcileResult> {
	return changingPool(ctx, pool, () => reconcileSteps(ctx, pool, definition));
}

async function reconcileSteps(
	outer: EngineContext,
	pool: string,
	definition: Definition,
): Promise<ReconcileResult> {
	// the pass's own context: its audit Events (and its plan) carry its pass id
	const ctx = passContext(outer);
	const { spec } = definition;
	const poolInputs: PoolRuleInputs = poolRuleInputs(spec.size, spec);
	emitEvent(ctx, {
		pool,
		action: 'reconcile',
		outcome: 'start',
		message: `reconciling pool ${pool} (size ${spec.size})`,
	});
	let objects = await listPoolObjects(ctx, pool);
	// strangers met before: their members are left alone (no Lease taken, nothing made)
	const known = await recheckStrangers(ctx, pool);
	const { plans, heldBack, storm } = planPass(ctx, pool, spec, objects, known, false);
	const started = ctx.now();
	const bulk: BulkEvents = { create: [], start: [] };
	const outcomes = await mapLimit(plans, ctx.concurrency, (plan) =>
		ctx.signal?.aborted ? Promise.resolve(null) : runPlan(ctx, pool, spec, poolInputs, plan, bulk),
	);
	recordBulkEvents(ctx, pool, spec, bulk);
	const actions = outcomes.filter((a): a is ReconcileAction => a !== null);
	const errors = actions
		.filter((a) => !a.ok)
		.sort((a, b) => indexOf(plans, a.member) - indexOf(plans, b.member))
		.map(stepError);

	if (plans.length > 0) objects = await listPoolObjects(ctx, pool);
	const endNow = ctx.now();
	// Strangers the steps ran into are not in the label-selected list: add them.
	const foreign = actions.flatMap((a) =>
		(a.foreign ?? []).map((kind) => ({ kind, member: a.member })),
	);
	rememberStrangers(ctx, pool, known, foreign);
	const views = await settleUnverifiedServices(
		ctx,
		pool,
		groupMembers(pool, spec.size, {
			...objects,
			foreign: [...(objects.foreign ?? []), ...known, ...foreign],
		}).map((m) => memberView(m, poolInputs, endNow)),
	);
	// What no step resolves (strangers under a member's name, a Lease whose times make no
	// sense) is an error too, with its way out: the command exits non-zero, and says why.
	const failedMembers = new Set(actions.filter((a) => !a.ok).map((a) => a.member));
	// objects that do not read (a forged answer): named once, their members left alone
	const unreadable = new Set((objects.unreadable ?? []).map((u) => u.member));
	for (const v of views)
		if (!failedMembers.has(v.name) && !unreadable.has(v.name)) errors.push(...memberProblems(v));
	errors.push(...(objects.problems ?? []).map((p) => bounded(p, 600)));
	const recorded = parseStatus(definition.configMap.data?.[STATUS_KEY]);
	// the storm first: the pools screen shows the first error of a pool
	const [first, ...held] = backoffErrors(ctx, pool, views, storm, recorded, endNow);
	if (storm && first) errors.unshift(first);
	else if (first) errors.push(first);
	errors.push(...held);
	await settleReplaceRecords(ctx, pool, views, endNow);
	const status = buildStatus(spec.size, views, errors, endNow);
	const rollout = rolloutProgress(views, poolInputs.sourceHash, spec.image);
	if (rollout) status.rollout = rollout;
	let statusWritten = false;
	if (!recorded || !sameStatus(recorded, status))
		statusWritten = await writeStatus(ctx, pool, status);
	await flushKubeEvents(ctx);
	emitEvent(ctx, {
		pool,
		action: 'reconcile',
		outcome: errors.length > 0 ? 'error' : 'ok',
		message:
			errors.length > 0
				? `reconcile of pool ${pool} had ${errors.length} failed step${errors.length === 1 ? '' : 's'}`
				: `pool ${pool} reconciled: ${actions.length} step${actions.length === 1 ? '' : 's'}, ${status.ready}/${status.desired} ready, ${status.free} free`,
	});
	emitTrace(ctx, {
		type: 'done',
		time: ctx.now(),
		pool,
		dryRun: false,
		ok: errors.length === 0,
		done: actions.filter((a) => a.ok).length,
		failed: actions.filter((a) => !a.ok).length,
		skipped: outcomes.filter((a) => a === null).length,
		statusWritten,
		ms: ctx.now() - started,
		errors: errors.map((e) => bounded(e, 600)),
	});
	const leaseWait = reconcilerLeaseWait(views, endNow);
	return {
		pool,
		status,
		actions,
		errors,
		statusWritten,
		heldBack,
		...(leaseWait !== null ? { reconcilerLeaseExpiresInMs: leaseWait } : {}),
	};
}

/** The steps a pass plans, and what the storm and the rollout held back. */
interface PassPlan {
	plans: Plan[];
	heldBack: number;
	storm: ReplaceStorm | null;
	startViews: MemberView[];
}

/**
 * Plans a pass: each member's step, less the replaces the storm stops and those the rollout
 * leaves for a later wave (sorted in the seed's order), and traces the plan.
 */
function planPass(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	objects: Awaited<ReturnType<typeof listPoolObjects>>,
	known: Awaited<ReturnType<typeof recheckStrangers>>,
	dryRun: boolean,
): PassPlan {
	const poolInputs: PoolRuleInputs = poolRuleInputs(spec.size, spec);
	const startNow = ctx.now();
	const planned: Plan[] = [];
	const startViews: MemberView[] = [];
	for (const m of groupMembers(pool, spec.size, {
		...objects,
		foreign: [...(objects.foreign ?? []), ...known],
	})) {
		const view = memberView(m, poolInputs, startNow);
		startViews.push(view);
		const step = planStep(view, startNow);
		if (step) planned.push({ objects: m, view, step });
	}
	// no replace storm: when most of the pool fails the same way after replaces, stop
	// replacing the members that fail with the current source (a drift is still replaced)
	const storm = replaceStorm(
		startViews.filter((v) => !v.aboveSize),
		spec.size,
	);
	const unstormed = storm ? planned.filter((p) => !stormHeld(p, storm)) : planned;
	// a rollout in waves: replaces of Ready drifted members only as far as maxUnavailable
	// allows (without it, every one now, as the seed says)
	const limit = maxUnavailableOf(spec);
	const { plans, heldBack } =
		limit === null ? { plans: unstormed, heldBack: 0 } : limitRollout(unstormed, startViews, limit);
	if (heldBack > 0)
		emitEvent(ctx, {
			pool,
			action: 'rollout',
			outcome: 'info',
			message: `rolling pool ${pool}: ${heldBack} drifted member${heldBack === 1 ? '' : 's'} wait${heldBack === 1 ? 's' : ''} for a later wave, claimable with the old image (at most ${limit} unavailable at once)`,
		});
	plans.sort((a, b) => STEP_ORDER[a.step] - STEP_ORDER[b.step] || a.view.index - b.view.index);
	// the plan as data, for whoever follows the story (built only then: a pass of a big pool
	// with no one listening pays nothing for it)
	if (ctx.onTrace) {
		const names = (list: readonly Plan[]) => list.map((p) => p.view.name);
		const kept = new Set(names(plans));
		emitTrace(
			ctx,
			buildPlan({
				pool,
				now: startNow,
				dryRun,
				views: startViews,
				steps: plans,
				stormed: names(planned.filter((p) => !unstormed.includes(p))),
				storm,
				heldBack: names(unstormed.filter((p) => !kept.has(p.view.name))),
				limit,
				...(ctx.auditPass ? { pass: ctx.auditPass } : {}),
			}),
		);
	}
	return { plans, heldBack, storm, startViews };
}

/**
 * A dry run: the plan traced, the first write of each step under a Lease (the Lease's
 * create) tried with dryRun=All, and nothing else written: no step, no status, no Event.
 * Resolves with the status the members show now and the errors the dry run met.
 */
async function planOnly(
	ctx: EngineContext,
	pool: string,
	definition: Definition,
): Promise<ReconcileResult> {
	const started = ctx.now();
	const { spec } = definition;
	const objects = await listPoolObjects(ctx, pool);
	const known = await recheckStrangers(ctx, pool);
	const { plans, heldBack, startViews } = planPass(ctx, pool, spec, objects, known, true);
	const errors = await dryRunSteps(ctx, pool, spec, plans);
	const status = buildStatus(spec.size, startViews, errors, ctx.now());
	emitTrace(ctx, {
		type: 'done',
		time: ctx.now(),
		pool,
		dryRun: true,
		ok: errors.length === 0,
		done: 0,
		failed: 0,
		skipped: 0,
		statusWritten: false,
		ms: ctx.now() - started,
		errors: errors.map((e) => bounded(e, 600)),
	});
	return { pool, status, actions: [], errors, statusWritten: false, heldBack };
}

/**
 * The server-side dry runs of a dry run: the create of the reconciler Lease (the first write
 * of a step under a Lease) once per kind of step, on its first member with no Lease (the
 * rights and admission are the same for the others), and for a create its PVC's create.
 * Resolves with the problems met.
 */
async function dryRunSteps(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	plans: readonly Plan[],
): Promise<string[]> {
	const probes = new Map<ReconcileStep, Plan>();
	for (const plan of plans) {
		const underLease = !(plan.step === 'start' && claimedByUser(plan.view));
		if (underLease && !plan.objects.lease && !probes.has(plan.step)) probes.set(plan.step, plan);
	}
	const errors: string[] = [];
	await mapLimit([...probes.values()], ctx.concurrency, async ({ step, view }) => {
		try {
			const progress = (detail: string) =>
				traceProgress(ctx, pool, view.name, step, 'dry-run-ok', detail);
			const lease = await dryRunReconcilerLease(ctx, pool, view.name);
			progress(
				lease === 'ok'
					? `the create of its Lease as ${RECONCILER_IDENTITY} passes a server-side dry run`
					: 'it has a Lease now (made since the list): the step would hand off or take it over',
			);
			// a create makes a PVC where none is: its admission (quota, storage class) is tried too
			if (step === 'create' && lease === 'ok') {
				const pvc = await dryRunMemberPvc(ctx, pool, view.name, sourceFields(spec));
				progress(
					pvc === 'ok'
						? `the create of its PVC from ${spec.image} passes a server-side dry run`
						: 'its PVC exists now (made since the list): the step would read it and decide again',
				);
			}
		} catch (err) {
			errors.push(`${step} ${view.name}: ${failureText(err)}`);
		}
	});
	return errors;
}

/** Traces one piece of a step's progress. */
function traceProgress(
	ctx: EngineContext,
	pool: string,
	member: string,
	step: ReconcileStep,
	progress: StepProgress,
	detail: string,
): void {
	emitTrace(ctx, { type: 'step-progress', time: ctx.now(), pool, member, step, progress, detail });
}

/** How long until the first live reconciler Lease of another process expires, or null for none. */
function reconcilerLeaseWait(views: readonly MemberView[], now: number): number | null {
	let wait: number | null = null;
	for (const v of views)
		if (v.reconciling && !v.leaseProblem && v.leaseExpiresAt !== null && v.leaseExpiresAt > now)
			wait = Math.min(wait ?? Number.POSITIVE_INFINITY, v.leaseExpiresAt - now);
	return wait;
}

/**
 * The status line of a failed step: `create desk-3: <reason>`; for a stranger met, the line
 * every later pass (which leaves the member alone) gives too, so that the status stays put.
 */
function stepError(a: ReconcileAction): string {
	if (a.foreign?.length) return foreignMessage(a.member, a.foreign);
	return `${a.step} ${a.member}: ${a.error ?? 'failed'}`;
}

/** True when a planned step is a replace the storm stops: a Failed member with the current source. */
function stormHeld(plan: Plan, storm: ReplaceStorm): boolean {
	const v = plan.view;
	return plan.step === 'replace' && !v.reconciling && !v.drifted && storm.members.includes(v.name);
}

/**
 * The status errors of the replace backoff: the storm (its Warning Event written once, when
 * the recorded status does not say it yet), and each member whose next replace waits.
 */
function backoffErrors(
	ctx: EngineContext,
	pool: string,
	views: readonly MemberView[],
	storm: ReplaceStorm | null,
	recorded: PoolStatus | null,
	now: number,
): string[] {
	const out: string[] = [];
	if (storm) {
		const text = stormText(pool, storm, ctx.namespace);
		out.push(text);
		if (!recorded?.errors.includes(text)) {
			recordAudit(ctx, pool, { action: 'replace-stopped', detail: text });
			emitEvent(ctx, { pool, action: 'replace', outcome: 'error', message: text });
		}
	}
	for (const v of views) {
		if (storm?.members.includes(v.name) || v.hasLease || v.maintenance || v.aboveSize) continue;
		const until = replaceHeldUntil(v, now);
		if (until !== null) out.push(heldText(v, until));
	}
	return out;
}

/**
 * The replace record the new PVC of a replaced member carries: one more replace after a
 * failure, now. A replace for drift (the definition changed) or of a member left mid-step
 * starts the count afresh.
 */
function replaceRecord(ctx: EngineContext, v: MemberView): Record<string, string> {
	if (v.state !== 'Failed' || v.drifted) return {};
	return { [REPLACED_ANNOTATION]: replaceRecordJson({ count: v.replaces + 1, at: ctx.now() }) };
}

/**
 * Forgets the replace record of members that recovered: Ready, and the last replace longer
 * ago than the longest backoff (a container that is Ready for a moment between crashes keeps
 * its count). A failed write is only reported: the next reconcile tries again.
 */
async function settleReplaceRecords(
	ctx: EngineContext,
	pool: string,
	views: readonly MemberView[],
	now: number,
): Promise<void> {
	const settled = views.filter(
		(v) =>
			v.state === 'Ready' && v.replacedAt !== null && now - v.replacedAt >= REPLACE_BACKOFF_MAX_MS,
	);
	await mapLimit(settled, ctx.concurrency, async (v) => {
		try {
			await ctx.kube.core.patchNamespacedPersistentVolumeClaim(
				{
					name: pvcName(v.name),
					namespace: ctx.namespace,
					body: { metadata: { annotations: { [REPLACED_ANNOTATION]: null } } },
				},
				mergePatchOptions(),
			);
		} catch (err) {
			if (isNotFound(err)) return;
			emitEvent(ctx, {
				pool,
				member: v.name,
				action: 'replace',
				outcome: 'info',
				message: `${v.name} recovered, but its replace count was not cleared: ${failureText(err)}`,
			});
		}
	});
}

/**
 * The members whose old console Service was left in place unread (serviceUnverified), looked
 * at again: when Services can be read now, and it is gone or not the member's, the mark on
 * the PVC is removed; when it is the member's and nobody holds the member, it is deleted
 * (read, checked, deleted with preconditions) and the mark removed. Resolves with the views,
 * those settled without their mark. A failure only leaves the mark (and its status error).
 */
async function settleUnverifiedServices(
	ctx: EngineContext,
	pool: string,
	views: MemberView[],
): Promise<MemberView[]> {
	const marked = views.filter((v) => v.serviceUnverified);
	if (marked.length === 0) return views;
	const settled = new Set<string>();
	await mapLimit(marked, ctx.concurrency, async (v) => {
		try {
			const service = await readService(ctx, v.name);
			if (service === 'unreadable') return;
			if (service && isPoolObject(pool, v.name, 'Service', service)) {
				if (v.hasLease) return;
				if ((await destroyConsoleService(ctx, pool, v.name)) !== 'deleted') return;
			}
			await annotateOwnedPvc(ctx, pool, v.name, { [SERVICE_UNVERIFIED_ANNOTATION]: null });
			settled.add(v.name);
		} catch (err) {
			emitEvent(ctx, {
				pool,
				member: v.name,
				action: 'delete',
				outcome: 'info',
				message: `${v.name}: its console Service was not settled: ${failureText(err)}`,
			});
		}
	});
	return views.map((v) => (settled.has(v.name) ? { ...v, serviceUnverified: '' } : v));
}

function indexOf(plans: Plan[], member: string): number {
	return plans.find((p) => p.view.name === member)?.view.index ?? 0;
}

/** Records the status with a merge patch of the `status` key only (the spec is left alone). */
async function writeStatus(ctx: EngineContext, pool: string, status: PoolStatus): Promise<boolean> {
	try {
		await ctx.kube.core.patchNamespacedConfigMap(
			{
				name: configMapName(pool),
				namespace: ctx.namespace,
				body: { data: { [STATUS_KEY]: JSON.stringify(status) } },
			},
			mergePatchOptions(),
		);
		return true;
	} catch (err) {
		if (isNotFound(err)) return false;
		emitEvent(ctx, {
			pool,
			action: 'status',
			outcome: 'error',
			message: `the status of pool ${pool} was not recorded: ${failureText(err, {
				verb: 'patch',
				resource: 'configmaps',
				namespace: ctx.namespace,
				name: configMapName(pool),
			})}`,
			partial: true,
		});
		return false;
	}
}

/** A planned step, run between its step-start and step-end trace events. */
async function runPlan(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	poolInputs: PoolRuleInputs,
	plan: Plan,
	bulk: BulkEvents,
): Promise<ReconcileAction | null> {
	const member = plan.view.name;
	const t0 = ctx.now();
	emitTrace(ctx, { type: 'step-start', time: t0, pool, member, step: plan.step });
	const action =
		plan.step === 'start' && claimedByUser(plan.view)
			? await startClaimed(ctx, pool, plan, bulk)
			: await underLease(ctx, pool, spec, poolInputs, plan, bulk);
	const end = ctx.now();
	emitTrace(ctx, {
		type: 'step-end',
		time: end,
		pool,
		member,
		step: action?.step ?? plan.step,
		result: action === null ? 'skipped' : action.ok ? 'done' : 'failed',
		ms: end - t0,
		...(action?.error ? { error: bounded(action.error, 600) } : {}),
	});
	return action;
}

/** What a step does, for messages. */
function describeStep(step: ReconcileStep, view: MemberView, spec: PoolSpec): string {
	const member = view.name;
	const detail = stepDetail(step, view, spec);
	switch (step) {
		case 'create':
			return `create ${member} ${detail}`;
		case 'start':
			return `start ${member}`;
		case 'replace':
			return `replace ${member} (${replaceReason(view)}) from ${spec.image}`;
		case 'delete':
			return `delete ${member} (${detail})`;
		case 'takeover':
			return `take over the ${detail}`;
	}
}

/** What a step's Event says beside its verb and member (`from <image>`, why). */
function stepDetail(step: ReconcileStep, view: MemberView, spec: PoolSpec): string {
	switch (step) {
		case 'create':
			return `from ${spec.image}`;
		case 'start':
			return '';
		case 'replace':
			return `${replaceReason(view)}; from ${spec.image}`;
		case 'delete':
			return view.reconciling
				? `${replaceReason(view)}; index ${view.index} is above the pool size ${spec.size}`
				: `index ${view.index} is above the pool size ${spec.size}`;
		case 'takeover':
			return `expired reconciler Lease of ${view.name} (${view.maintenance ? 'in maintenance: left to the administrator' : 'nothing left to make'})`;
	}
}

/**
 * A start of a member a user holds: no Lease is taken (the user has it; a start destroys
 * nothing). The Lease and PVC are read again first: a release in progress (the reconciler
 * holds the Lease) or a PVC being deleted means leave it.
 */
async function startClaimed(
	ctx: EngineContext,
	pool: string,
	plan: Plan,
	bulk: BulkEvents,
): Promise<ReconcileAction | null> {
	const member = plan.view.name;
	emitEvent(ctx, {
		pool,
		member,
		action: 'start',
		outcome: 'start',
		message: `start ${member} (claimed by ${bounded(plan.view.holder)})`,
	});
	try {
		const [lease, now] = await Promise.all([readLease(ctx, member), readMember(ctx, pool, member)]);
		if (
			!lease ||
			heldByReconciler(lease) ||
			leaseHolder(lease) !== plan.view.leaseHolder ||
			now.pod ||
			!now.pvc ||
			now.pvc.metadata.deletionTimestamp
		) {
			emitEvent(ctx, {
				pool,
				member,
				action: 'start',
				outcome: 'info',
				message: `${member} changed meanwhile; left for the next reconcile`,
			});
			return null;
		}
		await startMember(ctx, pool, member, now.pvc);
		traceProgress(ctx, pool, member, 'start', 'started', 'pod created from its PVC');
		bulk.start.push({
			name: member,
			index: plan.view.index,
			detail: '',
			holder: plan.view.holder,
		});
		emitEvent(ctx, { pool, member, action: 'start', outcome: 'ok', message: `started ${member}` });
		return { member, step: 'start', ok: true };
	} catch (err) {
		return failed(ctx, pool, member, 'start', err);
	}
}

function failed(
	ctx: EngineContext,
	pool: string,
	member: string,
	step: ReconcileStep,
	err: unknown,
): ReconcileAction {
	const error = failureText(err);
	const foreignKinds = err instanceof ForeignObjectError ? { foreign: err.kinds } : {};
	recordStepFailure(ctx, pool, member, `${step}: ${error}`);
	emitEvent(ctx, {
		pool,
		member,
		action: step,
		outcome: 'error',
		message: `${step} ${member}: ${error}`,
	});
	return { member, step, ok: false, error, ...foreignKinds };
}

/**
 * A create, start, replace or delete under the reconciler's Lease: take the Lease (a user's
 * Lease or another live reconciler's means hands off), read the member again and decide
 * again (the list may be stale), act, and delete the Lease whether the step worked or not.
 * A create of a member the list showed Missing skips the read: the Lease just created keeps
 * every other ctpool off it, and an existing PVC (nothing written) falls back to the read.
 */
async function underLease(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	poolInputs: PoolRuleInputs,
	plan: Plan,
	bulk: BulkEvents,
): Promise<ReconcileAction | null> {
	const member = plan.view.name;
	let step = plan.step;
	emitEvent(ctx, {
		pool,
		member,
		action: step,
		outcome: 'start',
		message: describeStep(step, plan.view, spec),
	});
	let lease: Awaited<ReturnType<typeof takeReconcilerLease>>;
	try {
		lease = await takeReconcilerLease(ctx, pool, member, plan.objects.lease ?? null, step);
	} catch (err) {
		return failed(ctx, pool, member, step, err);
	}
	if (!lease) {
		traceProgress(
			ctx,
			pool,
			member,
			step,
			'lease-held-elsewhere',
			'its Lease is held by someone else; hands off',
		);
		emitEvent(ctx, {
			pool,
			member,
			action: step,
			outcome: 'info',
			message: `${member}: its Lease is held by someone else; hands off`,
		});
		return null;
	}
	// renewed while the step runs: a reconciler killed mid-step strands the member for
	// RECONCILER_LEASE_SECONDS at most
	traceProgress(ctx, pool, member, step, 'lease-taken', `Lease taken as ${RECONCILER_IDENTITY}`);
	const kept = keepLease(ctx, lease);
	let action: ReconcileAction | null = null;
	let done = false;
	try {
		if (
			step === 'create' &&
			plan.view.state === 'Missing' &&
			!plan.view.reconciling &&
			!plan.objects.lease &&
			(await createMissingMember(ctx, pool, member, sourceFields(spec)))
		) {
			done = true;
			traceProgress(ctx, pool, member, step, 'created', `PVC and pod created from ${spec.image}`);
			bulk.create.push({
				name: member,
				index: plan.view.index,
				detail: stepDetail(step, plan.view, spec),
			});
			action = succeeded(ctx, pool, member, step);
		}
	} catch (err) {
		done = true;
		action = failed(ctx, pool, member, step, err);
	}
	if (!done) {
		const decided = await decideAndAct(ctx, pool, spec, poolInputs, plan, bulk);
		step = decided.step;
		action = decided.action;
	}
	try {
		const removed = await deleteLease(ctx, await kept.stop());
		if (removed) traceProgress(ctx, pool, member, step, 'lease-released', 'Lease released');
		else {
			emitEvent(ctx, {
				pool,
				member,
				action: step,
				outcome: 'info',
				message: `${member}: the reconciler Lease changed hands during the step; left to its new holder`,
			});
		}
	} catch (err) {
		const why = `its Lease could not be removed (it expires in ${RECONCILER_LEASE_SECONDS} s): ${failureText(err, { verb: 'delete', resource: 'leases.coordination.k8s.io', namespace: ctx.namespace, name: member })}`;
		if (action?.ok === false) action.error = `${action.error}; ${why}`;
		else action = failed(ctx, pool, member, step, new Error(why));
	}
	return action;
}

/**
 * Reads the member again and decides again (the list may be stale), then acts; resolves
 * with the step finally taken and what came of it (null: nothing was left to do).
 */
async function decideAndAct(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
	poolInputs: PoolRuleInputs,
	plan: Plan,
	bulk: BulkEvents,
): Promise<{ step: ReconcileStep; action: ReconcileAction | null }> {
	const member = plan.view.name;
	let step = plan.step;
	let action: ReconcileAction | null = null;
	try {
		const now = await readMember(ctx, pool, member);
		const fresh = memberView(
			{ name: member, index: plan.view.index, pod: now.pod, pvc: now.pvc, lease: null },
			poolInputs,
			ctx.now(),
		);
		// A Lease taken over from a reconciler that stopped mid-step: the member is made again
		// whatever it looks like now (it may hold the data of a release cut short).
		const again = plan.view.reconciling ? takeoverStep(fresh) : planStep(fresh, ctx.now());
		if (!again) {
			emitEvent(ctx, {
				pool,
				member,
				action: step,
				outcome: 'info',
				message: `${member} needs nothing any more (someone else did it)`,
			});
		} else {
			step = again;
			const what = stepDetail(step, fresh, spec);
			const src = sourceFields(spec);
			const progress = (p: StepProgress, detail: string) =>
				traceProgress(ctx, pool, member, step, p, detail);
			if (step === 'create') {
				await createMember(ctx, pool, member, src);
				progress('created', `PVC and pod created from ${spec.image}`);
			} else if (step === 'start') {
				await startMember(ctx, pool, member, now.pvc!);
				progress('started', 'pod created from its PVC');
			} else if (step !== 'takeover') {
				const opts: Parameters<typeof destroyMember>[3] = {};
				if (now.pod?.metadata.uid) opts.podUid = now.pod.metadata.uid;
				if (now.pvc?.metadata.uid) opts.pvcUid = now.pvc.metadata.uid;
				const t0 = ctx.now();
				const service = await destroyMember(ctx, pool, member, opts);
				progress('deleted', deletedText(service, ctx.now() - t0));
				if (step === 'replace') {
					await createMember(ctx, pool, member, src, {
						...replaceRecord(ctx, fresh),
						...unverifiedServiceMark(member, service),
					});
					progress('created', `PVC and pod created from ${spec.image}`);
				}
			}
			const detail = `${what}${driftNote(step, now.pvc, spec)}`;
			if (step === 'create' || step === 'start')
				bulk[step].push({ name: member, index: plan.view.index, detail });
			else recordAudit(ctx, pool, { action: step, member, detail });
			action = succeeded(ctx, pool, member, step);
		}
	} catch (err) {
		action = failed(ctx, pool, member, step, err);
	}
	return { step, action };
}

/** What a destroy deleted and how long it waited, for the trace. */
function deletedText(service: ServiceOutcome, waitedMs: number): string {
	const what = service === 'deleted' ? 'pod, Service and PVC' : 'pod and PVC';
	const left =
		service === 'unreadable' || service === 'foreign'
			? `; its Service left in place (${service})`
			: '';
	return `${what} deleted, waited ${(Math.max(0, waitedMs) / 1000).toFixed(1)} s until gone${left}`;
}

/** A step that worked: its event, and its action. */
function succeeded(
	ctx: EngineContext,
	pool: string,
	member: string,
	step: ReconcileStep,
): ReconcileAction {
	forgetStepFailure(ctx, pool, member);
	emitEvent(ctx, { pool, member, action: step, outcome: 'ok', message: doneText(step, member) });
	return { member, step, ok: true };
}

function doneText(step: ReconcileStep, member: string): string {
	if (step === 'takeover') return `removed the expired reconciler Lease of ${member}`;
	const verb = { create: 'created', start: 'started', replace: 'replaced', delete: 'deleted' }[
		step
	];
	return `${verb} ${member}`;
}

/** For a replace, what drifted (`image a -> b`), from the source recorded on the old PVC. */
function driftNote(
	step: ReconcileStep,
	pvc: {
		metadata: { annotations?: Record<string, string>; labels?: Record<string, string> };
	} | null,
	spec: PoolSpec,
): string {
	if (step !== 'replace' || !pvc) return '';
	const changes = describeDrift(
		pvcSource(pvc),
		sourceFields(spec),
		pvc.metadata.labels?.[SOURCE_LABEL],
	);
	return changes.length > 0 ? ` (${changes.join('; ')})` : '';
}
