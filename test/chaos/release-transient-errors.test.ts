/**
 * A release under transient server errors: the promise of the seed is that "the next user
 * always gets a clean desktop", and a 503 on one call should cost a retry, not a desktop.
 * Found by the chaos suite; each scene is set and checked first, then the engine is held to
 * the promise.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, reconcile, release } from '../../source/engine/index.js';
import { leaseName, MAINTENANCE_ANNOTATION, pvcName } from '../../source/pool/index.js';
import { ctpool, type RunResult } from '../commands/capture.js';
import { waitFor } from '../support/wait.js';
import { readyPool, startTappedCluster, type TappedCluster } from './tapped-cluster.js';

const ELEVEN_MINUTES = 11 * 60_000;
/** Enough failures to outlast the client's retries of a GET, DELETE or PATCH. */
const ALWAYS = { times: 1000 };

let c: TappedCluster;
beforeAll(async () => {
	c = await startTappedCluster();
});
afterAll(() => c?.close());

function pvc(member: string) {
	return c.sim.store.get('persistentvolumeclaims', 'corral', pvcName(member));
}

describe('one 503 while a release waits for the pod to go', () => {
	let member = '';
	let outcome: unknown;
	it('hits the release (the scene)', async () => {
		await readyPool(c, 'blip', 1);
		member = (await claim(c.context(), 'blip', 'alice@example.com')).member;
		const failed = c.fail('GET', new RegExp(`/pods/${member}$`), 503);
		outcome = await release(c.context(), 'blip', member, 'alice@example.com').catch(
			(e: Error) => e,
		);
		expect(failed()).toBe(1);
	});

	it('costs a retry, not the member: the release succeeds, no maintenance', () => {
		expect(outcome).not.toBeInstanceOf(Error);
		expect(pvc(member)?.metadata.annotations?.[MAINTENANCE_ANNOTATION]).toBeUndefined();
	});
});

describe('a release whose destroy and quarantine both keep failing', () => {
	let member = '';
	let aliceDesktop: string | undefined;
	let bobDesktop: string | undefined;
	const stop: Array<() => number> = [];
	it('fails, and bob claims next in the one-member pool (the scene)', async () => {
		await readyPool(c, 'dirty', 1);
		member = (await claim(c.context(), 'dirty', 'alice@example.com')).member;
		aliceDesktop = pvc(member)?.metadata.uid;
		expect(aliceDesktop).toBeTruthy();
		stop.push(c.fail('DELETE', new RegExp(`/pods/${member}$`), 503, ALWAYS));
		stop.push(
			c.fail('PATCH', new RegExp(`/persistentvolumeclaims/${pvcName(member)}$`), 503, ALWAYS),
		);
		await expect(release(c.context(), 'dirty', member, 'alice@example.com')).rejects.toThrow(
			`release of ${member}`,
		);
		const bob = await claim(c.context(), 'dirty', 'bob@example.com').catch(() => null);
		bobDesktop = bob ? pvc(bob.member)?.metadata.uid : undefined;
	});

	it("never gives bob alice's desktop", () => {
		expect(bobDesktop).not.toBe(aliceDesktop);
	});

	it('makes the member again from the image once the reconciler Lease has expired', async () => {
		c.clear();
		const later = await reconcile(c.context({ now: () => Date.now() + ELEVEN_MINUTES }), 'dirty');
		expect(later.errors).toEqual([]);
		await waitFor(() => pvc(member) && pvc(member)?.metadata.uid !== aliceDesktop, {
			what: 'a new desktop',
		});
		expect(c.sim.store.get('leases', 'corral', leaseName(member))).toBeUndefined();
		const bob = await claim(c.context(), 'dirty', 'bob@example.com');
		expect(pvc(bob.member)?.metadata.uid).not.toBe(aliceDesktop);
	});
});

describe("the quarantine message's own recovery steps", () => {
	let member = '';
	let off: RunResult;
	let rec: RunResult;
	it('are printed by a release whose pod delete keeps failing, and the admin follows them (the scene)', async () => {
		await readyPool(c, 'steps', 1);
		member = (await claim(c.context(), 'steps', 'alice@example.com')).member;
		c.fail('DELETE', new RegExp(`/pods/${member}$`), 503, ALWAYS);
		const err = await release(c.context(), 'steps', member, 'alice@example.com').catch(
			(e: Error) => e,
		);
		c.clear();
		expect(String(err)).toContain('it is now in maintenance');
		expect(String(err)).toContain(
			`kubectl delete pod ${member} -n corral; kubectl delete pvc ${pvcName(member)} -n corral`,
		);
		expect(pvc(member)?.metadata.annotations?.[MAINTENANCE_ANNOTATION]).toBeTruthy();
		c.sim.store.delete('pods', 'corral', member, { gracePeriodSeconds: 0 });
		c.sim.store.delete('persistentvolumeclaims', 'corral', pvcName(member));
		await waitFor(() => !pvc(member) && !c.sim.store.get('pods', 'corral', member), {
			what: 'pod and PVC gone',
		});
		off = await ctpool(['maintenance', 'steps', member, 'off', '--kubeconfig', c.kubeconfigPath]);
		rec = await ctpool(['reconcile', 'steps', '--kubeconfig', c.kubeconfigPath]);
	});

	it('end without an error, with the member made again and out of maintenance', () => {
		expect(off.stderr).toBe('');
		expect(off.code).toBe(0);
		expect(rec.stderr).toBe('');
		expect(rec.code).toBe(0);
		expect(pvc(member)).toBeDefined();
		expect(pvc(member)?.metadata.annotations?.[MAINTENANCE_ANNOTATION]).toBeUndefined();
	});
});
