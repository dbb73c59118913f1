/**
 * The acting identity (--identity, else $CTPOOL_IDENTITY) is checked like a claim identity
 * before any cluster call: no raw newlines (an injected line in `kubectl get events`), no
 * control, bidi or invisible characters, at most 253 characters, and never the reconciler's
 * own identity. Issue 22, finding 9.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_POOL_LABEL } from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { ctpool, defaultEnv } from './capture.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
	const made = await ctpool([
		'apply',
		'who',
		'--image',
		'ghcr.io/example/desktop:1',
		'--size',
		'1',
		...c.kc,
	]);
	expect(made.code).toBe(0);
});
afterAll(() => c?.close());

async function eventCount(): Promise<number> {
	return (await c.api.list('events', { labelSelector: AUDIT_POOL_LABEL })).length;
}

const INJECTED =
	'ops\n0s  Normal  Claimed  persistentvolumeclaim/who-1-data  claimed who-1 by admin';

/** --identity values, and a piece of the error each must give. */
const BAD: Array<[string, string, string]> = [
	['a raw newline', INJECTED, '--identity: the identity contains control characters'],
	['the reconciler', 'corral-vdi/reconciler', "is the reconciler's own identity"],
	['a bidi override', 'alice\u202e@example.com', 'invisible characters'],
	['an escape sequence', 'ops\u001b[2J', 'control characters'],
	['too long a name', 'a'.repeat(254), 'use at most 253'],
	['white space', 'ops team', 'white space'],
];

describe('an acting identity', () => {
	for (const [what, identity, message] of BAD)
		it(`with ${what} is refused with a usage error before any change`, async () => {
			const events = await eventCount();
			const r = await ctpool([
				'claim',
				'who',
				'alice@example.com',
				'--identity',
				identity,
				...c.kc,
			]);
			expect(r.code).toBe(2);
			expect(r.stderr).toContain(message);
			expect(r.stderr).not.toContain('\n0s');
			expect(await c.api.get('leases', 'corral-vdi-ct-who-1')).toBeUndefined();
			expect(await eventCount()).toBe(events);
		});

	it('from $CTPOOL_IDENTITY is checked the same, naming the variable', async () => {
		const r = await ctpool(['claim', 'who', 'alice@example.com', ...c.kc], {
			env: { ...defaultEnv(), CTPOOL_IDENTITY: 'corral-vdi/reconciler' },
		});
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('$CTPOOL_IDENTITY');
		expect(r.stderr).toContain('or unset CTPOOL_IDENTITY');
		expect(await c.api.get('leases', 'corral-vdi-ct-who-1')).toBeUndefined();
	});

	it('is refused by the console too, before it starts', async () => {
		const r = await ctpool(['who', '--identity', 'corral-vdi/reconciler', ...c.kc], { tty: true });
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("is the reconciler's own identity");
	});

	it('that is plain is recorded as the actor', async () => {
		const r = await ctpool([
			'claim',
			'who',
			'alice@example.com',
			'--identity',
			'ops@desk',
			...c.kc,
		]);
		expect(r.code).toBe(0);
		const audit = await ctpool(['audit', 'who', '--action', 'claim', '-o', 'json', ...c.kc]);
		const items = (JSON.parse(audit.stdout) as { items: Array<{ actor: string }> }).items;
		expect(items.map((i) => i.actor)).toEqual(['ops@desk']);
	});
});
