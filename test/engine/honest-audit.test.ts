/**
 * Issue 22, finding 9: an honest audit. Each line records the user the cluster
 * authenticated its writer as (a SelfSubjectReview), beside the acting identity anyone can
 * type; a claim records its claimer's authenticated user, so a release that names the
 * holder's identity but is done by another user is recorded as a forced release, and
 * `ctpool audit --action force-release` finds it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, readAudit, release } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { authenticatedUser } from '../../source/kube/whoami.js';
import { CLAIM_USER_ANNOTATION } from '../../source/pool/index.js';
import { COMMAND_RULES, EVENT_RULES } from '../../source/pool/permissions.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
let alice: Kube;
let bob: Kube;
beforeAll(async () => {
	c = await startTestCluster();
	const rules = [...COMMAND_RULES, ...EVENT_RULES];
	alice = await loadKube({ kubeconfig: await c.grant('alice-sa', rules), namespace: c.ns });
	bob = await loadKube({ kubeconfig: await c.grant('bob-sa', rules), namespace: c.ns });
	await apply(c.context(), 'honest', poolSpec({ size: 2 }));
	await waitReady(c.context(), 'honest', 2);
});
afterAll(() => c?.close());

const aliceUser = () => `system:serviceaccount:${c.ns}:alice-sa`;
const bobUser = () => `system:serviceaccount:${c.ns}:bob-sa`;

describe('the authenticated user', () => {
	it('is what the cluster says (a SelfSubjectReview)', async () => {
		expect(await authenticatedUser(alice)).toBe(aliceUser());
		expect(await authenticatedUser(bob)).toBe(bobUser());
	});

	it('is recorded on every audit line beside the acting identity, and on the claim', async () => {
		const ctx = testContext(alice, { actor: 'alice@laptop' });
		const { member } = await claim(ctx, 'honest', 'alice@example.com');
		const lease = await c.api.get('leases', `corral-vdi-ct-${member}`);
		expect(lease?.metadata.annotations?.[CLAIM_USER_ANNOTATION]).toBe(aliceUser());
		const trail = await readAudit(c.context(), { pool: 'honest', action: 'claim' });
		expect(trail.entries[0]).toMatchObject({
			member,
			actor: 'alice@laptop',
			user: aliceUser(),
			holder: 'alice@example.com',
		});
		expect(trail.entries[0]?.message).toContain(`by alice@laptop (user ${aliceUser()})`);
	});
});

describe('a release naming the holder', () => {
	let member = '';
	it('by another authenticated user than the claimer is recorded as forced', async () => {
		const trail0 = await readAudit(c.context(), { pool: 'honest', action: 'claim' });
		member = trail0.entries[0]!.member;
		// bob names alice's identity: allowed (the identity is hers), but not hers to do
		await release(testContext(bob, { actor: 'bob@desk' }), 'honest', member, 'alice@example.com');
		const forced = await readAudit(c.context(), { pool: 'honest', action: 'force-release' });
		expect(forced.entries).toHaveLength(1);
		expect(forced.entries[0]).toMatchObject({
			member,
			holder: 'alice@example.com',
			actor: 'bob@desk',
			user: bobUser(),
			force: true,
			detail: `claimed by user ${aliceUser()}, released by user ${bobUser()}`,
		});
	});

	it("by the claimer's own user is not forced", async () => {
		await waitReady(c.context(), 'honest', 2);
		const ctx = testContext(alice, { actor: 'alice@laptop' });
		const { member: again } = await claim(ctx, 'honest', 'alice@example.com');
		await release(ctx, 'honest', again, 'alice@example.com');
		const released = await readAudit(c.context(), { pool: 'honest', action: 'release' });
		expect(released.entries[0]).toMatchObject({ member: again, force: false, user: aliceUser() });
		const forced = await readAudit(c.context(), { pool: 'honest', action: 'force-release' });
		expect(forced.entries).toHaveLength(1);
	});
});
