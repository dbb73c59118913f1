/**
 * The authenticated user of the audit is asked once per process and connection (one
 * SelfSubjectReview, however many Events are written), and a review the cluster refuses or
 * fails just leaves the user out: the Events are still written.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, readAudit, release } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { testContext } from '../support/cluster.js';
import { readyPool, startTappedCluster, type TappedCluster } from './tapped-cluster.js';

const REVIEWS = /\/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews$/;

let c: TappedCluster;
beforeAll(async () => {
	c = await startTappedCluster();
	await readyPool(c, 'who', 2);
});
afterAll(() => c?.close());

function reviewsSeen(): number {
	return c.seen.filter((r) => r.startsWith('POST ') && REVIEWS.test(r.slice(5))).length;
}

describe('the SelfSubjectReview', () => {
	it('is asked once per connection, however many acts are recorded', async () => {
		const kube = await loadKube({ kubeconfig: c.kubeconfigPath });
		const before = reviewsSeen();
		for (const who of ['ann', 'ben']) {
			const ctx = testContext(kube, { actor: `${who}@desk` });
			const { member } = await claim(ctx, 'who', `${who}@example.com`);
			await release(ctx, 'who', member, `${who}@example.com`);
			await c.running('who');
		}
		expect(reviewsSeen() - before).toBe(1);
		const trail = await readAudit(c.context(), { pool: 'who', identity: 'ann@desk' });
		expect(trail.entries.length).toBeGreaterThan(0);
		for (const e of trail.entries) expect(e.user).toBe('kubernetes-admin');
	});

	it('refused (403) leaves the user out of the record, and the Events are written', async () => {
		const refused = c.fail('POST', REVIEWS, 403);
		const kube = await loadKube({ kubeconfig: c.kubeconfigPath });
		const ctx = testContext(kube, { actor: 'cat@desk' });
		const { member } = await claim(ctx, 'who', 'cat@example.com');
		expect(refused()).toBe(1);
		const trail = await readAudit(c.context(), { pool: 'who', identity: 'cat@desk' });
		expect(trail.entries.map((e) => [e.action, e.member, e.user])).toEqual([['claim', member, '']]);
		expect(trail.entries[0]?.message).toBe(`claimed ${member} for cat@example.com by cat@desk`);
	});
});
