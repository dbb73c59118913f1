/**
 * Two claims at once by one identity (a double click, a retried request): the contract says
 * a claim gives the identity "its own member if it already holds one", so both must end on
 * one member. The chaos runs saw identities holding two members after double clicks.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimResult, claim } from '../../source/engine/index.js';
import { readyPool, startTappedCluster, type TappedCluster } from './tapped-cluster.js';

let c: TappedCluster;
beforeAll(async () => {
	c = await startTappedCluster();
	await readyPool(c, 'twice', 8);
});
afterAll(() => c?.close());

function heldBy(identity: string): string[] {
	return c.sim.store
		.list('leases', { namespace: 'corral' })
		.filter((l) => (l.spec as { holderIdentity?: string }).holderIdentity === identity)
		.map((l) => l.metadata.name)
		.sort();
}

// Found by the chaos runs (issue 7): each claim looked for the identity's own member only in
// the list it made before creating a Lease, so two claims at once each won a member. Now the
// claim whose Lease came later sees the earlier one, gives its member back and answers with
// the same member. The scene checks that the claims themselves succeed.
describe('two claims at once by the same identity', () => {
	const results: Array<[ClaimResult, ClaimResult]> = [];
	const held: string[][] = [];
	it('both succeed (the scene)', async () => {
		for (const who of ['ann', 'ben', 'cat']) {
			const identity = `${who}@example.com`;
			const both = (await Promise.all([
				claim(c.context(), 'twice', identity),
				claim(c.context(), 'twice', identity),
			])) as [ClaimResult, ClaimResult];
			results.push(both);
			held.push(heldBy(identity));
		}
		expect(results).toHaveLength(3);
	});

	it('end on one member: both report it, and the identity holds one Lease', () => {
		for (const [i, [a, b]] of results.entries()) {
			expect(a.member).toBe(b.member);
			expect(held[i]).toHaveLength(1);
		}
	});
});
