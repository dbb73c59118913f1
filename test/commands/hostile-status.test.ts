/**
 * Issue 22, finding 12: `ctpool status` given a recorded status whose errors are not a list
 * (`"errors":"boom"`) names the problem once, not the string a character per line.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDefinition } from '../../source/engine/index.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { ctpool } from './capture.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('ctpool status with a status of the wrong shape', () => {
	it('names the problem, and prints no error a character per line', async () => {
		const ctx = c.context();
		await writeDefinition(ctx, 'odd', poolSpec({ size: 1 }));
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-odd'))!;
		await c.api.update('configmaps', {
			...cm,
			data: {
				...(cm.data as Record<string, string>),
				status: JSON.stringify({ members: [], errors: 'boom' }),
			},
		});
		const out = await ctpool(['status', 'odd', ...c.kc, '-n', c.ns]);
		expect(out.code).toBe(0);
		expect(out.stdout).not.toMatch(/^ {2}b$/m);
		expect(out.stdout).toContain('the recorded status is unreadable: status: errors is not a list');
	});
});
