/**
 * The reconciler's Prometheus metrics, through prom-client, in a registry of its own. Pool
 * figures are worked out from the watched objects at each scrape, so they follow the
 * cluster (a claim made elsewhere shows at the next scrape after its watch event), not
 * the last reconcile.
 */

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STEP_KINDS, type TraceEvent } from '../engine/reconcile-plan.js';
import type { ConnectionState } from '../kube/connection-state.js';
import { MEMBER_STATES } from '../pool/member-state.js';
import type { RolloutProgress } from '../pool/rollout.js';
import { type PoolCache, splitPoolKey } from './pool-cache.js';

/** The metrics of one reconciler process. */
export interface ReconcilerMetrics {
	registry: Registry;
	/** Records one reconcile of a pool: how long it took and whether it failed. */
	reconciled(key: string, seconds: number, failed: boolean): void;
	/**
	 * Counts claims of a pool refused for want of a free member (from ClaimRefused Events).
	 * Only pools whose definition is seen are counted (anyone may write an Event naming any
	 * pool), at most REFUSED_SERIES_MAX of them, and only a count that is a whole number 1..1e6.
	 */
	claimRefused(key: string, count?: number): void;
	/** Whether refusals are being counted (Events readable): known pools then show 0, not nothing. */
	countingRefusals(on: boolean): void;
	/** Follows the watches' connection states (counts reconnects). */
	connection(byKind: Record<string, ConnectionState>): void;
	/**
	 * Follows a reconcile's story: the size of each plan per kind of step, and how long each
	 * step took per kind and result (counts and times only: no pool, member or holder).
	 */
	traced(e: TraceEvent): void;
	/** Drops the series of a pool that went away. */
	forget(key: string): void;
	/** Whether this process reconciles now (ctpool_leader: 1 leading or alone, 0 standing by). */
	leading(on: boolean): void;
}

/** The most pools whose refused claims are counted at once (each is a series). */
export const REFUSED_SERIES_MAX = 1000;
/** The largest rise of the refusal counter one Event may make. */
const REFUSED_RISE_MAX = 1_000_000;

/** Makes the metrics over a pool cache; `now` is the clock of claim expiry. */
export function createReconcilerMetrics(cache: PoolCache, now: () => number): ReconcilerMetrics {
	const registry = new Registry();
	const poolLabels = ['namespace', 'pool'] as const;
	const figures = () =>
		cache.keys().flatMap((key) => {
			const f = cache.figures(key, now());
			return f ? [{ ...splitPoolKey(key), f }] : [];
		});
	new Gauge({
		name: 'ctpool_pool_members',
		help: 'Members of a pool per state (Missing counts members of the size with no object).',
		labelNames: [...poolLabels, 'state'],
		registers: [registry],
		collect() {
			this.reset();
			for (const { namespace, pool, f } of figures()) {
				const by = new Map<string, number>(MEMBER_STATES.map((s) => [s, 0]));
				for (const v of f.views) by.set(v.state, (by.get(v.state) ?? 0) + 1);
				for (const [state, n] of by) this.set({ namespace, pool, state }, n);
			}
		},
	});
	const count = (
		name: string,
		help: string,
		pick: (c: NonNullable<ReturnType<PoolCache['figures']>>['counts'] & object) => number,
	) =>
		new Gauge({
			name,
			help,
			labelNames: [...poolLabels],
			registers: [registry],
			collect() {
				this.reset();
				for (const { namespace, pool, f } of figures())
					if (f.counts) this.set({ namespace, pool }, pick(f.counts));
			},
		});
	count('ctpool_pool_desired', 'The size of a pool as its definition says.', (c) => c.desired);
	count('ctpool_pool_claimed', 'Members of a pool held by a user claim.', (c) => c.claimed);
	count(
		'ctpool_pool_claimable',
		'Free members of a pool: no Lease, within size, no drift, no maintenance, Ready/Starting/Stopped.',
		(c) => c.free,
	);
	count('ctpool_pool_exhausted', '1 when a pool has members but none is free.', (c) =>
		c.exhausted ? 1 : 0,
	);
	count(
		'ctpool_pool_drifted',
		'Members of a pool whose source differs from the definition.',
		(c) => c.drifted,
	);
	new Gauge({
		name: 'ctpool_pool_definition_valid',
		help: '1 when a pool definition parses and validates, 0 when it does not (nothing is reconciled).',
		labelNames: [...poolLabels],
		registers: [registry],
		collect() {
			this.reset();
			for (const { namespace, pool, f } of figures())
				this.set({ namespace, pool }, f.counts ? 1 : 0);
		},
	});
	for (const [name, help, pick] of [
		[
			'ctpool_pool_rollout_updated',
			'While a rollout runs: unclaimed members within size already on the new source.',
			(r: RolloutProgress) => r.updated,
		],
		[
			'ctpool_pool_rollout_total',
			'While a rollout runs: unclaimed members within size (the rollout is done when updated equals it).',
			(r: RolloutProgress) => r.total,
		],
	] as const)
		new Gauge({
			name,
			help,
			labelNames: [...poolLabels],
			registers: [registry],
			collect() {
				this.reset();
				for (const { namespace, pool, f } of figures())
					if (f.rollout) this.set({ namespace, pool }, pick(f.rollout));
			},
		});
	let counting = false;
	/** The pools with a refusal series (bounded: see claimRefused). */
	const refusedKeys = new Set<string>();
	const refused = new Counter({
		name: 'ctpool_claims_refused_total',
		help: "Claims refused because no member was free, by any client, counted from ctpool's ClaimRefused Events since this process started (absent when Events cannot be read).",
		labelNames: [...poolLabels],
		registers: [registry],
		collect() {
			if (!counting) return;
			for (const key of cache.keys()) {
				if (!refusedKeys.has(key) && refusedKeys.size >= REFUSED_SERIES_MAX) continue;
				refusedKeys.add(key);
				this.inc(splitPoolKey(key), 0);
			}
		},
	});
	const duration = new Histogram({
		name: 'ctpool_reconcile_duration_seconds',
		help: 'How long one reconcile of a pool took.',
		labelNames: [...poolLabels],
		buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
		registers: [registry],
	});
	const errors = new Counter({
		name: 'ctpool_reconcile_errors_total',
		help: 'Reconciles of a pool that failed (a failed step, an unreadable definition, an API error).',
		labelNames: [...poolLabels],
		registers: [registry],
	});
	const reconnects = new Counter({
		name: 'ctpool_watch_reconnects_total',
		help: 'Times a watch lost its connection and started reconnecting, per kind.',
		labelNames: ['kind'],
		registers: [registry],
	});
	const synced = new Gauge({
		name: 'ctpool_watch_synced',
		help: '1 while the watch of a kind is connected and in sync.',
		labelNames: ['kind'],
		registers: [registry],
	});
	const planSteps = new Histogram({
		name: 'ctpool_reconcile_plan_steps',
		help: 'Members one reconcile planned to touch, per kind of step (create, start, replace, delete, takeover), and left alone (kind left-alone).',
		labelNames: ['kind'],
		buckets: [0, 1, 2, 5, 10, 20, 50, 100, 250, 1000],
		registers: [registry],
	});
	const stepDuration = new Histogram({
		name: 'ctpool_reconcile_step_duration_seconds',
		help: 'How long one reconcile step on one member took (Lease taken to Lease released), per kind of step and result (done, failed, skipped).',
		labelNames: ['kind', 'result'],
		buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
		registers: [registry],
	});
	const leader = new Gauge({
		name: 'ctpool_leader',
		help: '1 while this process reconciles (the leader, or the only reconciler), 0 while it stands by.',
		registers: [registry],
	});
	leader.set(0);
	const phases = new Map<string, ConnectionState['phase']>();
	return {
		registry,
		reconciled(key, seconds, failed) {
			const labels = splitPoolKey(key);
			duration.observe(labels, seconds);
			if (failed) errors.inc(labels);
			else errors.inc(labels, 0);
		},
		claimRefused(key, count = 1) {
			if (!Number.isInteger(count) || count < 1 || count > REFUSED_RISE_MAX) return;
			if (!cache.defined(key)) return;
			if (!refusedKeys.has(key) && refusedKeys.size >= REFUSED_SERIES_MAX) return;
			refusedKeys.add(key);
			refused.inc(splitPoolKey(key), count);
		},
		countingRefusals(on) {
			counting = on;
		},
		connection(byKind) {
			for (const [kind, state] of Object.entries(byKind)) {
				const before = phases.get(kind);
				phases.set(kind, state.phase);
				synced.set({ kind }, state.phase === 'synced' ? 1 : 0);
				const trouble = state.phase === 'reconnecting' || state.phase === 'failed';
				const wasTrouble = before === 'reconnecting' || before === 'failed';
				if (trouble && !wasTrouble && before !== undefined) reconnects.inc({ kind });
				else reconnects.inc({ kind }, 0);
			}
		},
		traced(e) {
			if (e.type === 'plan') {
				for (const kind of STEP_KINDS)
					planSteps.observe({ kind }, e.steps.find((s) => s.kind === kind)?.members.length ?? 0);
				planSteps.observe({ kind: 'left-alone' }, e.leftAlone.length);
			} else if (e.type === 'step-end')
				stepDuration.observe({ kind: e.step, result: e.result }, Math.max(0, e.ms) / 1000);
		},
		forget(key) {
			const labels = splitPoolKey(key);
			duration.remove(labels);
			errors.remove(labels);
			refused.remove(labels);
			refusedKeys.delete(key);
		},
		leading(on) {
			leader.set(on ? 1 : 0);
		},
	};
}
