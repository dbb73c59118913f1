import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim } from '../../source/engine/index.js';
import { RESOURCES } from '../../source/sim/resources.js';
import { typeError, unknownFields } from '../../source/sim/schema.js';
import { waitReady } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { simFetch } from '../support/sim.js';

const NS = 'corral';
let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const post = (path: string, body: string, query = '') =>
	simFetch(c.sim, `${path}${query}`, {
		method: 'POST',
		body,
		headers: { 'Content-Type': 'application/json' },
	});

const podJson = (extra: string) =>
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fv"${extra.startsWith('meta:') ? `,${extra.slice(5)}` : ''}},"spec":{"containers":[{"name":"ct","image":"busybox:1"${extra.startsWith('ct:') ? `,${extra.slice(3)}` : ''}}]${extra.startsWith('spec:') ? `,${extra.slice(5)}` : ''}}}`;

describe('fieldValidation as a 1.32 server', () => {
	const pods = `/api/v1/namespaces/${NS}/pods`;

	it('Strict: unknown and duplicate fields are 400 with the decoder text, in document order', async () => {
		const r = await post(pods, podJson('spec:"foo":1,"bar":{"x":1}'), '?fieldValidation=Strict');
		expect(r.status).toBe(400);
		expect(r.json()).toMatchObject({
			reason: 'BadRequest',
			message:
				'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo", unknown field "spec.bar"',
		});
		const inner = await post(pods, podJson('ct:"imagee":"x"'), '?fieldValidation=Strict');
		expect((inner.json() as { message: string }).message).toBe(
			'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagee"',
		);
		const meta = await post(pods, podJson('meta:"labelz":{}'), '?fieldValidation=Strict');
		expect((meta.json() as { message: string }).message).toContain(
			'strict decoding error: unknown field "metadata.labelz"',
		);
		const dup = await post(pods, podJson('meta:"name":"fv2"'), '?fieldValidation=Strict');
		expect((dup.json() as { message: string }).message).toBe(
			'Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name"',
		);
		expect(c.sim.store.get('pods', NS, 'fv')).toBeUndefined();
		expect(c.sim.store.get('pods', NS, 'fv2')).toBeUndefined();
	});

	it('Warn (the default when absent): a Warning header per field, and the field is dropped', async () => {
		const r = await post(pods, podJson('spec:"foo":1'));
		expect(r.status).toBe(201);
		expect(r.headers.get('warning')).toBe('299 - "unknown field \\"spec.foo\\""');
		expect((r.json() as { spec: Record<string, unknown> }).spec.foo).toBeUndefined();
		expect(c.sim.store.get('pods', NS, 'fv')?.spec).not.toHaveProperty('foo');
		const warned = await simFetch(c.sim, `${pods}/fv?fieldValidation=Warn`, {
			method: 'PATCH',
			body: '{"spec":{"bar":2},"metadata":{"labels":{"a":"b"}}}',
			headers: { 'Content-Type': 'application/merge-patch+json' },
		});
		expect(warned.status).toBe(200);
		expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.bar\\""');
		expect(c.sim.store.get('pods', NS, 'fv')?.metadata.labels).toEqual({ a: 'b' });
		expect(c.sim.store.get('pods', NS, 'fv')?.spec).not.toHaveProperty('bar');
	});

	it('Ignore: the field is dropped without a word', async () => {
		const r = await post(
			`/api/v1/namespaces/${NS}/configmaps`,
			'{"metadata":{"name":"fv-ign"},"datta":{"a":"1"}}',
			'?fieldValidation=Ignore',
		);
		expect(r.status).toBe(201);
		expect(r.headers.get('warning')).toBeNull();
		expect(c.sim.store.get('configmaps', NS, 'fv-ign')).not.toHaveProperty('datta');
	});

	it('Strict on a patch checks the patched object; the text names no kind', async () => {
		const r = await simFetch(c.sim, `${pods}/fv?fieldValidation=Strict`, {
			method: 'PATCH',
			body: '{"spec":{"containers":[{"name":"ct","colour":"red"}]}}',
			headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
		});
		expect(r.status).toBe(400);
		expect((r.json() as { message: string }).message).toBe(
			'strict decoding error: unknown field "spec.containers[0].colour"',
		);
		const bad = await simFetch(c.sim, `${pods}/fv?fieldValidation=Sloppy`, {
			method: 'PATCH',
			body: '{}',
			headers: { 'Content-Type': 'application/merge-patch+json' },
		});
		expect(bad.status).toBe(422);
		expect((bad.json() as { message: string }).message).toBe(
			'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Sloppy": supported values: "", "Ignore", "Strict", "Warn"',
		);
	});

	it('a value of the wrong JSON type is 400 as encoding/json words it, whatever the mode', async () => {
		const deploy = (replicas: string) =>
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"typed"},"spec":{"replicas":${replicas},"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;
		const path = `/apis/apps/v1/namespaces/${NS}/deployments`;
		const s = await post(path, deploy('"3"'), '?fieldValidation=Ignore');
		expect(s.status).toBe(400);
		expect((s.json() as { message: string }).message).toBe(
			'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
		);
		const f = await post(path, deploy('1.5'));
		expect((f.json() as { message: string }).message).toContain(
			'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
		);
		const inner = await post(pods, podJson('ct:"command":["sleep",5]'));
		expect((inner.json() as { message: string }).message).toBe(
			'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.command of type string',
		);
		const patch = await simFetch(c.sim, `${pods}/fv`, {
			method: 'PATCH',
			body: '{"metadata":{"labels":{"n":1}}}',
			headers: { 'Content-Type': 'application/merge-patch+json' },
		});
		expect(patch.status).toBe(400);
		expect((patch.json() as { message: string }).message).toBe(
			'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
		);
		expect(c.sim.store.get('deployments', NS, 'typed')).toBeUndefined();
	});

	it('every object a running pool makes is known to its schema, and survives a Strict PUT', async () => {
		const ctx = c.context();
		await apply(ctx, 'fv', poolSpec({ size: 2 }));
		await apply(ctx, 'fvp', poolSpec({ size: 1, privileged: true }));
		await waitReady(ctx, 'fv', 2);
		await waitReady(ctx, 'fvp', 1);
		await claim(ctx, 'fv', 'ann@example.com');
		let checked = 0;
		for (const info of RESOURCES.values()) {
			for (const obj of c.sim.store.list(info.name)) {
				expect({
					obj: `${info.name}/${obj.metadata.name}`,
					unknown: unknownFields(info.name, obj, false),
				}).toEqual({
					obj: `${info.name}/${obj.metadata.name}`,
					unknown: [],
				});
				expect(typeError(info.name, obj)).toBeUndefined();
				checked++;
			}
		}
		expect(checked).toBeGreaterThan(10);
		for (const resource of ['pods', 'persistentvolumeclaims', 'leases', 'events', 'configmaps']) {
			const info = RESOURCES.get(resource)!;
			const obj = c.sim.store.list(resource, { namespace: NS })[0]!;
			const base = info.group ? `/apis/${info.group}/${info.version}` : '/api/v1';
			const r = await simFetch(
				c.sim,
				`${base}/namespaces/${NS}/${resource}/${obj.metadata.name}?fieldValidation=Strict`,
				{
					method: 'PUT',
					body: JSON.stringify(obj),
					headers: { 'Content-Type': 'application/json' },
				},
			);
			expect({ resource, status: r.status, body: r.status === 200 ? '' : r.text }).toEqual({
				resource,
				status: 200,
				body: '',
			});
		}
	});
});
