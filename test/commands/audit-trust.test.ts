/**
 * `ctpool audit` says plainly what its lines prove: Events are written by their reporters and
 * can be forged by anyone who may create events, and the cluster's own record is the API
 * server's audit log. A line whose stated time lies beyond its creation is shown at its
 * creation, marked. Issue 22, finding 9.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ANNOTATION, AUDIT_POOL_LABEL } from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { ctpool } from './capture.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
	expect(
		(
			await ctpool([
				'apply',
				'trust',
				'--image',
				'ghcr.io/example/desktop:1',
				'--size',
				'1',
				...c.kc,
			])
		).code,
	).toBe(0);
	// a forged line: mallory may create events, and says 2099
	await c.api.create('events', {
		apiVersion: 'v1',
		kind: 'Event',
		metadata: {
			name: 'trust.forged',
			namespace: c.ns,
			labels: { [AUDIT_POOL_LABEL]: 'trust' },
			annotations: {
				[AUDIT_ANNOTATION]: JSON.stringify({
					v: 1,
					action: 'release',
					pool: 'trust',
					member: 'trust-1',
					actor: 'root@admin',
				}),
			},
		},
		involvedObject: { kind: 'ConfigMap', name: 'corral-vdi-ctpool-trust', namespace: c.ns },
		reason: 'Released',
		message: 'released trust-1 by root@admin',
		type: 'Normal',
		lastTimestamp: '2099-01-01T00:00:00Z',
	} as KubeObject);
});
afterAll(() => c?.close());

describe('ctpool audit', () => {
	it('says that Events can be forged and where the cluster audit log is', async () => {
		const r = await ctpool(['audit', 'trust', ...c.kc]);
		expect(r.code).toBe(0);
		expect(r.stderr).toContain("anyone with 'create' on events can forge a line");
		expect(r.stderr).toContain('kube-apiserver --audit-log-path');
		const help = await ctpool(['audit', '--help']);
		expect(help.stdout).toContain('can forge a line');
		expect(help.stdout).toContain('--audit-log-path');
	});

	it('shows a line stating a future time at its creation, marked, on top no more than it is', async () => {
		const r = await ctpool(['audit', 'trust', ...c.kc]);
		const forged = r.stdout.split('\n').find((l) => l.includes('release'));
		expect(forged).toMatch(/^\d+s! /);
		expect(r.stderr).toContain('"!": the Event stated a time beyond its creation');
		const json = JSON.parse((await ctpool(['audit', 'trust', '-o', 'json', ...c.kc])).stdout) as {
			metadata: { note: string; oldest: string };
			items: Array<{ event: string; time: string; timeClamped: boolean }>;
		};
		const item = json.items.find((i) => i.event === 'trust.forged')!;
		expect(item.timeClamped).toBe(true);
		expect(Date.parse(item.time)).toBeLessThanOrEqual(Date.now());
		expect(json.metadata.note).toContain('can forge a line');
	});
});
