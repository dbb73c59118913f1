/**
 * The built binary as the in-cluster reconciler runs it: `ctpool reconcile --all -A --watch
 * --metrics-addr 127.0.0.1:0` over three pools in two namespaces of the simulated cluster.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDefinition } from '../../source/engine/apply.js';
import { claim } from '../../source/engine/claim.js';
import { createEngineContext } from '../../source/engine/context.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { sample } from '../support/reconciler-process.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
let child: ChildProcess | null = null;
let stderr = '';

beforeAll(async () => {
	requireBuild();
	c = await startTestCluster({}, { namespaces: ['team-b'] });
});
afterAll(async () => {
	if (child && child.exitCode === null) child.kill('SIGKILL');
	await c?.close();
});

async function get(url: string): Promise<{ status: number; text: string }> {
	const res = await fetch(url);
	return { status: res.status, text: await res.text() };
}

describe('ctpool reconcile --all -A --watch --metrics-addr', { timeout: 120_000 }, () => {
	it('reconciles every pool, serves their figures, follows a claim from elsewhere, and picks up a new pool', async () => {
		const corral = c.context();
		const teamB = createEngineContext(c.kube, { namespace: 'team-b', actor: 'test-admin' });
		await writeDefinition(corral, 'alpha', poolSpec({ size: 2 }));
		await writeDefinition(corral, 'bravo', poolSpec({ size: 1 }));
		await writeDefinition(teamB, 'charlie', poolSpec({ size: 2 }));

		child = spawn(
			process.execPath,
			[
				CLI,
				'reconcile',
				'--all',
				'-A',
				'--watch',
				'--interval',
				'10m',
				'--metrics-addr',
				'127.0.0.1:0',
				'--kubeconfig',
				c.sim.kubeconfigPath,
			],
			{ stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' } },
		);
		child.stdout?.resume();
		child.stderr?.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		const base = await waitFor(
			() => /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1],
			{ what: 'the metrics address on stderr', timeoutMs: 30_000 },
		);
		expect(base).not.toMatch(/:0$/);
		expect((await get(`${base}/healthz`)).status).toBe(200);
		await waitFor(async () => (await get(`${base}/readyz`)).status === 200, {
			what: '/readyz ready once the watches are in sync',
			timeoutMs: 30_000,
		});

		const ready = (text: string, namespace: string, pool: string) =>
			sample(text, 'ctpool_pool_members', { namespace, pool, state: 'Ready' });
		const reconciled = (text: string, namespace: string, pool: string) =>
			(sample(text, 'ctpool_reconcile_duration_seconds_count', { namespace, pool }) ?? 0) > 0;
		const metrics = await waitFor(
			async () => {
				const { text } = await get(`${base}/metrics`);
				return ready(text, 'corral', 'alpha') === 2 &&
					ready(text, 'corral', 'bravo') === 1 &&
					ready(text, 'team-b', 'charlie') === 2 &&
					reconciled(text, 'corral', 'alpha') &&
					reconciled(text, 'corral', 'bravo') &&
					reconciled(text, 'team-b', 'charlie')
					? text
					: undefined;
			},
			{ what: 'every pool reconciled and Ready in /metrics', timeoutMs: 60_000 },
		);
		expect(sample(metrics, 'ctpool_pool_desired', { namespace: 'team-b', pool: 'charlie' })).toBe(
			2,
		);
		expect(sample(metrics, 'ctpool_pool_claimable', { namespace: 'corral', pool: 'alpha' })).toBe(
			2,
		);
		expect(sample(metrics, 'ctpool_pool_claimed', { namespace: 'corral', pool: 'alpha' })).toBe(0);
		expect(sample(metrics, 'ctpool_pool_exhausted', { namespace: 'corral', pool: 'bravo' })).toBe(
			0,
		);
		expect(
			sample(metrics, 'ctpool_reconcile_errors_total', { namespace: 'corral', pool: 'alpha' }),
		).toBe(0);
		expect(metrics).toMatch(/^ctpool_watch_reconnects_total\{kind="pods"\} 0$/m);

		// a claim made by another client shows in the figures, through the watch
		const claimedAt = Date.now();
		await claim(corral, 'bravo', 'alice@example.com');
		await waitFor(
			async () => {
				const { text } = await get(`${base}/metrics`);
				return (
					sample(text, 'ctpool_pool_claimed', { namespace: 'corral', pool: 'bravo' }) === 1 &&
					sample(text, 'ctpool_pool_claimable', { namespace: 'corral', pool: 'bravo' }) === 0 &&
					sample(text, 'ctpool_pool_exhausted', { namespace: 'corral', pool: 'bravo' }) === 1
				);
			},
			{ what: 'the claim of bravo in /metrics' },
		);
		console.log(`[measured] a claim showed in /metrics after ${Date.now() - claimedAt} ms`);

		// a claim refused to another client (bravo is full) is counted from its Event
		await expect(claim(corral, 'bravo', 'bob@example.com')).rejects.toMatchObject({
			kind: 'no-free',
		});
		await waitFor(
			async () =>
				sample((await get(`${base}/metrics`)).text, 'ctpool_claims_refused_total', {
					namespace: 'corral',
					pool: 'bravo',
				}) === 1,
			{ what: 'the refused claim of bravo in /metrics' },
		);

		// a pool defined while it runs is reconciled
		await writeDefinition(teamB, 'delta', poolSpec({ size: 1 }));
		await waitFor(async () => ready((await get(`${base}/metrics`)).text, 'team-b', 'delta') === 1, {
			what: 'delta, defined while it runs, reconciled',
			timeoutMs: 60_000,
		});
		expect(c.sim.store.get('pods', 'team-b', 'delta-1')).toBeDefined();
		expect(stderr).toContain('pool team-b/delta found; reconciling it');

		const exited = new Promise<number | null>((resolve) =>
			child?.once('exit', (code) => resolve(code)),
		);
		child.kill('SIGINT');
		expect(await exited).toBe(0);
	});
});
