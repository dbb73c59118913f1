/**
 * A release under one transient server error: the promise of the seed is that "the next
 * user always gets a clean desktop", and a 503 on one call should cost a retry, not a
 * desktop.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosSpec } from '../../chaos/chaos.js';
import { apply, claim, release } from '../../source/engine/index.js';
import { MAINTENANCE_ANNOTATION, pvcName } from '../../source/pool/index.js';
import { ctpool, type RunResult } from '../commands/capture.js';
import { waitFor } from '../support/sim.js';
import { startTappedCluster, type TappedCluster } from './tapped-cluster.js';

// KNOWN ENGINE WEAKNESSES, reported to the lead (issue 7): a release does not retry a
// transient 5xx, so one 503 quarantines the member (source/engine/member-ops.ts
// destroyMember, source/engine/wait-gone.ts); when the quarantine write fails too, the
// Lease is deleted anyway and the next user gets the previous user's desktop
// (source/engine/release.ts); and the quarantine message's last recovery step fails once
// its first steps are done. Each `it.fails` asserts the right behaviour and fails until the
// engine is fixed; then vitest reports it as unexpectedly passing: change it back to `it`.
// The plain `it` before each sets the scene and checks it.

let c: TappedCluster;
beforeAll(async () => {
	c = await startTappedCluster();
});
afterAll(() => c?.close());

async function readyPool(pool: string, size: number): Promise<void> {
	await apply(c.context(), pool, chaosSpec(size));
	await waitFor(
		() =>
			c.sim.store
				.list('pods', { namespace: 'corral' })
				.filter((p) => p.metadata.name.startsWith(`${pool}-`))
				.every((p) => (p.status as { phase?: string }).phase === 'Running'),
		{ what: `pool ${pool} running` },
	);
}

function pvc(member: string) {
	return c.sim.store.get('persistentvolumeclaims', 'corral', pvcName(member));
}

describe('one 503 while a release waits for the pod to go', () => {
	let member = '';
	let outcome: unknown;
	it('hits the release (the scene)', async () => {
		await readyPool('blip', 1);
		member = (await claim(c.context(), 'blip', 'alice@example.com')).member;
		const failed = c.fail('GET', new RegExp(`/pods/${member}$`), 503);
		outcome = await release(c.context(), 'blip', member, 'alice@example.com').catch(
			(e: Error) => e,
		);
		expect(failed()).toBe(1);
	});

	it.fails('costs a retry, not the member: the release succeeds, no maintenance', () => {
		expect(outcome).not.toBeInstanceOf(Error);
		expect(pvc(member)?.metadata.annotations?.[MAINTENANCE_ANNOTATION]).toBeUndefined();
	});
});

describe('a release whose destroy and quarantine both meet a 503', () => {
	let aliceDesktop: string | undefined;
	let bobDesktop: string | undefined;
	it('fails, and bob claims next in the one-member pool (the scene)', async () => {
		await readyPool('dirty', 1);
		const { member } = await claim(c.context(), 'dirty', 'alice@example.com');
		aliceDesktop = pvc(member)?.metadata.uid;
		expect(aliceDesktop).toBeTruthy();
		c.fail('DELETE', new RegExp(`/pods/${member}$`), 503);
		c.fail('PATCH', new RegExp(`/persistentvolumeclaims/${pvcName(member)}$`), 503);
		await expect(release(c.context(), 'dirty', member, 'alice@example.com')).rejects.toThrow(
			'now in maintenance',
		);
		const bob = await claim(c.context(), 'dirty', 'bob@example.com').catch(() => null);
		bobDesktop = bob ? pvc(bob.member)?.metadata.uid : undefined;
	});

	it.fails("never gives bob alice's desktop", () => {
		expect(bobDesktop).not.toBe(aliceDesktop);
	});
});

describe("the quarantine message's own recovery steps", () => {
	let off: RunResult;
	it('are printed by a release whose pod delete got a 503, and the admin follows them (the scene)', async () => {
		await readyPool('steps', 1);
		const { member } = await claim(c.context(), 'steps', 'alice@example.com');
		c.fail('DELETE', new RegExp(`/pods/${member}$`), 503);
		const err = await release(c.context(), 'steps', member, 'alice@example.com').catch(
			(e: Error) => e,
		);
		expect(String(err)).toContain(
			`delete pod ${member} and PVC ${pvcName(member)}, then run ctpool maintenance steps ${member} off`,
		);
		c.sim.store.delete('pods', 'corral', member, { gracePeriodSeconds: 0 });
		c.sim.store.delete('persistentvolumeclaims', 'corral', pvcName(member));
		await waitFor(() => !pvc(member) && !c.sim.store.get('pods', 'corral', member), {
			what: 'pod and PVC gone',
		});
		off = await ctpool(['maintenance', 'steps', member, 'off', '--kubeconfig', c.kubeconfigPath]);
	});

	it.fails('end without an error', () => {
		expect(off.stderr).toBe('');
		expect(off.code).toBe(0);
	});
});
