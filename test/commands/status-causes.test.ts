/**
 * `ctpool status` names the causes of a pool without free members (issue 24, finding 6): the
 * members that Failed and the claims that expired are counted in a pool's counts line and in
 * the table of pools, beside READY, UNSCHED and DRIFTED.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineContext, readPool } from '../../source/engine/index.js';
import { formatMicroTime, leaseName } from '../../source/pool/index.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { ctpool } from './capture.js';

let c: TestCluster;

async function ok(argv: string[]): Promise<string> {
	const r = await ctpool([...argv, ...c.kc]);
	expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
	return r.stdout;
}

beforeAll(async () => {
	c = await startTestCluster();
	await ok(['apply', 'desk', '--size', '2', ...POOL_FLAGS]);
	await ok(['reconcile', 'desk']);
	const ctx = createEngineContext(c.kube, { actor: 'test' });
	await waitFor(async () => (await readPool(ctx, 'desk')).counts.ready === 2, {
		what: 'desk ready',
	});
	await ok(['claim', 'desk', 'bob@example.com']);
	// bob's claim expired two hours ago
	const lease = await c.api.get('leases', leaseName('desk-1'));
	if (!lease) throw new Error('no Lease for desk-1');
	const past = formatMicroTime(Date.now() - 2 * 3_600_000);
	await c.api.update('leases', {
		...lease,
		spec: { ...(lease.spec as object), acquireTime: past, renewTime: past },
	});
	// a pool whose image cannot be pulled: its member Failed
	const flags = POOL_FLAGS.map((f) =>
		f === 'ghcr.io/example/desktop:1' ? 'registry.invalid/desktop:1' : f,
	);
	await ok(['apply', 'bad', '--size', '1', ...flags]);
	// The reconcile makes the member; on a slow machine it may see the pull fail while it
	// waits, replace the member once and fail again (exit 1): either way bad-1 ends Failed.
	const made = await ctpool(['reconcile', 'bad', ...c.kc]);
	if (made.code !== 0)
		expect({ code: made.code, stderr: made.stderr }).toMatchObject({
			code: 1,
			stderr: expect.stringContaining('ImagePullBackOff'),
		});
	await waitFor(async () => (await readPool(ctx, 'bad')).members[0]?.state === 'Failed', {
		what: 'bad-1 Failed',
	});
}, 90_000);
afterAll(async () => {
	await c?.close();
});

describe('status shows FAILED and EXPIRED', () => {
	it('in the table of pools', async () => {
		const lines = (await ok(['status'])).trim().split('\n');
		const head = lines[0] ?? '';
		expect(head).toMatch(/\bUNSCHED\s+FAILED\s+EXPIRED\s+DRIFTED\s+EXHAUSTED\b/);
		const cell = (line: string, title: string) => line.slice(head.indexOf(title)).split(/\s+/)[0];
		const desk = lines.find((l) => l.startsWith('desk ')) ?? '';
		const bad = lines.find((l) => l.startsWith('bad ')) ?? '';
		expect([cell(desk, 'FAILED'), cell(desk, 'EXPIRED')]).toEqual(['0', '1']);
		expect([cell(bad, 'FAILED'), cell(bad, 'EXPIRED')]).toEqual(['1', '0']);
	});

	it("in one pool's counts line", async () => {
		expect(await ok(['status', 'desk'])).toMatch(/\bfailed 0 {3}expired 1\b/);
		expect(await ok(['status', 'bad'])).toMatch(/\bfailed 1 {3}expired 0\b/);
	});
});
