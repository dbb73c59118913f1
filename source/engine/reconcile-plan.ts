/**
 * The reconcile story as data: the plan a reconcile makes before it acts (the seed's steps
 * with the members each touches and why, and the members it leaves alone and why), then each
 * step's progress and result. The engine emits these through one callback (onTrace on the
 * engine context); the CLI (`reconcile -v`, `--dry-run`, `-o json`), the controller's
 * metrics and the console consume the same stream.
 */

import type { MemberView } from '../pool/member-state.js';
import { type ReplaceStorm, replaceHeldUntil } from '../pool/replace-backoff.js';
import { bounded } from '../text/sanitize.js';
import { type ReconcileStep, replaceReason } from './member-step.js';

/** The kinds of step, in the order reconcile runs them (the seed's steps 1 to 4, and a takeover). */
export const STEP_KINDS: readonly ReconcileStep[] = [
	'create',
	'start',
	'replace',
	'delete',
	'takeover',
];

/** A member a planned step touches, and why. */
export interface PlannedMember {
	member: string;
	reason: string;
}

/** One step of the plan: its kind and the members it touches (lowest index first). */
export interface PlannedStep {
	kind: ReconcileStep;
	members: PlannedMember[];
}

/** A member the plan leaves alone, and why; until: when a backoff or a live Lease ends (ms). */
export interface LeftAlone {
	member: string;
	reason: string;
	until?: number;
}

/** What one step on one member did so far. */
export type StepProgress =
	| 'lease-taken'
	| 'lease-held-elsewhere'
	| 'deleted'
	| 'waited'
	| 'created'
	| 'started'
	| 'lease-released'
	| 'dry-run-ok';

/** One event of a reconcile's story. time: ms from the context's clock. */
export type TraceEvent =
	| {
			type: 'plan';
			time: number;
			pool: string;
			/** A plan only: nothing is changed (server-side dry run for the writes it would make). */
			dryRun: boolean;
			/**
			 * The pass's id, which its audit Events carry (absent for a dry run, which writes none):
			 * a reader of the Events tells this pass's acts from other reconcilers' by it.
			 */
			pass?: string;
			/** Every kind of step, with its members (empty when none). */
			steps: PlannedStep[];
			leftAlone: LeftAlone[];
	  }
	| { type: 'step-start'; time: number; pool: string; member: string; step: ReconcileStep }
	| {
			type: 'step-progress';
			time: number;
			pool: string;
			member: string;
			step: ReconcileStep;
			progress: StepProgress;
			detail: string;
	  }
	| {
			type: 'step-end';
			time: number;
			pool: string;
			member: string;
			step: ReconcileStep;
			/** done: the step was taken; failed: it failed; skipped: nothing was left to do or someone else holds the member. */
			result: 'done' | 'failed' | 'skipped';
			ms: number;
			error?: string;
	  }
	| {
			type: 'done';
			time: number;
			pool: string;
			dryRun: boolean;
			ok: boolean;
			/** Steps by result (done, failed, skipped). */
			done: number;
			failed: number;
			skipped: number;
			statusWritten: boolean;
			ms: number;
			errors: string[];
	  };

/** Receives every event of a reconcile's story. */
export type TraceSink = (e: TraceEvent) => void;

/** What the plan is made from: the members seen, the steps kept, and why others were dropped. */
export interface PlanInput {
	pool: string;
	now: number;
	dryRun: boolean;
	views: readonly MemberView[];
	/** The steps reconcile will take (after the storm and the rollout's limit). */
	steps: ReadonlyArray<{ view: MemberView; step: ReconcileStep }>;
	/** Steps the replace storm stops. */
	stormed: readonly string[];
	storm: ReplaceStorm | null;
	/** Replaces the rollout holds back for a later wave. */
	heldBack: readonly string[];
	/** maxUnavailable, when the pool has one. */
	limit: number | null;
	/** The pass's id (see the plan event's pass). */
	pass?: string;
}

/** The plan event of a reconcile. */
export function buildPlan(input: PlanInput): Extract<TraceEvent, { type: 'plan' }> {
	const steps: PlannedStep[] = STEP_KINDS.map((kind) => ({
		kind,
		members: input.steps
			.filter((s) => s.step === kind)
			.sort((a, b) => a.view.index - b.view.index)
			.map((s) => ({ member: s.view.name, reason: stepReason(kind, s.view) })),
	}));
	const planned = new Set(input.steps.map((s) => s.view.name));
	const leftAlone: LeftAlone[] = [];
	for (const v of [...input.views].sort((a, b) => a.index - b.index)) {
		if (planned.has(v.name)) continue;
		const why = leftAloneReason(v, input);
		if (why) leftAlone.push(why);
	}
	return {
		type: 'plan',
		time: input.now,
		pool: input.pool,
		dryRun: input.dryRun,
		...(input.pass ? { pass: input.pass } : {}),
		steps,
		leftAlone,
	};
}

/** Why a step touches a member: missing; stopped; drifted: what differs; failed: why; above size. */
export function stepReason(step: ReconcileStep, v: MemberView): string {
	if (v.reconciling) return `taken over: ${replaceReason(v)}`;
	switch (step) {
		case 'create':
			return 'missing';
		case 'start':
			return v.hasLease ? 'stopped (claimed: a start destroys nothing)' : 'stopped';
		case 'replace':
			return v.drifted ? driftReason(v) : `failed: ${bounded(v.message || v.state, 200)}`;
		case 'delete':
			return `above size (index ${v.index})`;
		case 'takeover':
			return 'an expired reconciler Lease with nothing left to make';
	}
}

function driftReason(v: MemberView): string {
	return v.drift.length > 0 ? `drifted: ${bounded(v.drift.join('; '), 300)}` : 'drifted';
}

/**
 * Why reconcile leaves a member alone, or null for a member that needs nothing (Ready or
 * Starting, on the current source, within size, held by nobody or by a user).
 */
export function leftAloneReason(v: MemberView, input: PlanInput): LeftAlone | null {
	const member = v.name;
	const needs = v.drifted || v.aboveSize || v.state === 'Failed' || v.state === 'Missing';
	if (input.heldBack.includes(member))
		return {
			member,
			reason: `held back by the rollout (at most ${input.limit ?? 0} unavailable at once; claimable with the old image)`,
		};
	if (input.stormed.includes(member))
		return {
			member,
			reason: `replacing is stopped: most of the pool fails the same way (${bounded(input.storm?.kind ?? 'failed', 80)})`,
		};
	if (v.state === 'Terminating') return { member, reason: 'terminating' };
	if (v.foreign.length > 0)
		return { member, reason: `a stranger's object under its name (${v.foreign.join(', ')})` };
	if (v.leaseProblem)
		return { member, reason: `its Lease is unreadable: ${bounded(v.leaseProblem, 200)}` };
	if (v.corralClaim) return { member, reason: 'an older Corral claim' };
	if (v.reconciling)
		return {
			member,
			reason: 'another reconciler holds its Lease',
			...(v.leaseExpiresAt !== null ? { until: v.leaseExpiresAt } : {}),
		};
	if (v.hasLease) return needs ? { member, reason: 'claimed' } : null;
	if (v.maintenance) return needs ? { member, reason: 'in maintenance' } : null;
	const until = replaceHeldUntil(v, input.now);
	if (until !== null) return { member, reason: 'replace backoff', until };
	return null;
}

/** The ISO time of a trace time, to the second. */
export function traceTime(ms: number): string {
	return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
