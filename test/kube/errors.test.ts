import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, test } from 'vitest';
import { loadKube } from '../../source/kube/config.js';
import {
	apiFailure,
	describeError,
	isAlreadyExists,
	isConflict,
	isNotFound,
	KubeHttpError,
	redact,
	registerSecret,
} from '../../source/kube/errors.js';
import { PoolError } from '../../source/pool/errors.js';
import { startTestSim, type TestSim } from '../support/sim.js';

function status(code: number, reason: string, message: string, details?: unknown): string {
	return JSON.stringify({
		kind: 'Status',
		apiVersion: 'v1',
		metadata: {},
		status: 'Failure',
		message,
		reason,
		details,
		code,
	});
}

function apiException(code: number, body: string | undefined): ApiException<unknown> {
	return new ApiException(code, 'Unknown API Status Code!', body, {});
}

describe('apiFailure', () => {
	test('parses the Status body client-node keeps as raw text', () => {
		const err = apiException(404, status(404, 'NotFound', 'pods "desk-1" not found'));
		expect(apiFailure(err)).toEqual({
			code: 404,
			reason: 'NotFound',
			message: 'pods "desk-1" not found',
		});
		expect(isNotFound(err)).toBe(true);
		expect(isConflict(err)).toBe(false);
	});

	test('tells AlreadyExists from Conflict', () => {
		const exists = apiException(409, status(409, 'AlreadyExists', 'leases "x" already exists'));
		const conflict = apiException(409, status(409, 'Conflict', 'the object has been modified'));
		expect(isAlreadyExists(exists)).toBe(true);
		expect(isConflict(exists)).toBe(false);
		expect(isConflict(conflict)).toBe(true);
		expect(isAlreadyExists(conflict)).toBe(false);
	});

	test('a 401 without a body and a non-JSON body still read well', () => {
		expect(apiFailure(apiException(401, undefined))).toMatchObject({
			code: 401,
			reason: 'Unauthorized',
		});
		expect(describeError(apiException(401, undefined))).toContain('unauthorized');
		expect(apiFailure(new KubeHttpError(502, 'bad gateway'))).toEqual({
			code: 502,
			reason: 'InternalError',
			message: 'bad gateway',
		});
	});

	test('422 lists the causes', () => {
		const err = apiException(
			422,
			status(422, 'Invalid', 'Pod "x" is invalid', {
				causes: [{ field: 'spec.containers[0].image', message: 'Required value' }],
			}),
		);
		expect(describeError(err)).toBe('Pod "x" is invalid: spec.containers[0].image: Required value');
	});

	test('network errors are code 0 with a readable reason', () => {
		const refused = Object.assign(new Error('request to http://127.0.0.1:9/x failed'), {
			name: 'FetchError',
			code: 'ECONNREFUSED',
			type: 'system',
		});
		expect(apiFailure(refused)).toMatchObject({ code: 0, reason: 'ConnectionRefused' });
		expect(apiFailure(new Error('plain bug'))).toBeNull();
		expect(apiFailure(new PoolError('usage', 'x'))).toBeNull();
	});
});

describe('describeError', () => {
	test('a 403 names verb, resource, namespace and the permission to ask for', () => {
		const err = apiException(
			403,
			status(403, 'Forbidden', 'pods "desk-1" is forbidden: User "bob" cannot delete resource'),
		);
		expect(describeError(err, { verb: 'delete', resource: 'pods', namespace: 'corral' })).toBe(
			'forbidden: cannot delete pods in namespace corral (ask for the "delete" permission on pods; the operator tier has it: ctpool rbac --tier operator -n corral)',
		);
	});

	test('names what was tried for other failures', () => {
		const err = apiException(404, status(404, 'NotFound', 'pods "desk-1" not found'));
		expect(
			describeError(err, { verb: 'get', resource: 'pods', namespace: 'corral', name: 'desk-1' }),
		).toBe('get pods/desk-1 in namespace corral: pods "desk-1" not found');
		expect(describeError(new PoolError('busy', 'desk-1 is busy'))).toBe('desk-1 is busy');
		expect(describeError(apiException(500, status(500, 'InternalError', 'etcd down')))).toBe(
			'server error (HTTP 500: etcd down)',
		);
	});

	test('never shows tokens, keys or passwords', () => {
		registerSecret('plain-opaque-token-value');
		const jwt =
			'eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
		const body = status(
			404,
			'NotFound',
			`namespaces "plain-opaque-token-value" not found; Authorization: Bearer ${jwt}; password=hunter2hunter2`,
		);
		const text = describeError(apiException(404, body));
		expect(text).not.toContain('plain-opaque-token-value');
		expect(text).not.toContain(jwt);
		expect(text).not.toContain('hunter2');
		const message = describeError(
			new Error(
				'client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo= -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
			),
		);
		expect(message).not.toContain('LS0tLS1CRUdJTi');
		expect(message).not.toContain('MIIEow');
	});
});

describe('redact', () => {
	test('keeps ordinary cluster text', () => {
		const text =
			'pods "desk-12" not found; image ghcr.io/example/desktop@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef uid 3f2c1a9e-8d7b-4c6a-9e1f-0a1b2c3d4e5f';
		expect(redact(text)).toBe(text);
	});

	test('removes credentials in their usual shapes', () => {
		expect(redact('Authorization: Bearer abc.def-ghi')).not.toContain('abc.def-ghi');
		expect(redact('https://admin:s3cret@example.com/api')).toBe(
			'https://[redacted]@example.com/api',
		);
		expect(redact('token=sha256~AbCdEfGhIjKlMnOpQrStUvWxYz0123456789')).not.toContain('AbCdEfGh');
		expect(
			redact('opaque 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 x'),
		).toBe('opaque [redacted] x');
	});
});

describe('against the simulated cluster', () => {
	let testSim: TestSim | undefined;
	afterEach(async () => {
		await testSim?.cleanup();
		testSim = undefined;
	});

	test('the token in a request path never shows in an error text', async () => {
		testSim = await startTestSim();
		const sim = testSim.cluster;
		const kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
		const token = sim.token;
		const notFound = await kube.core
			.readNamespacedPod({ name: token, namespace: 'corral' })
			.catch((e: unknown) => e);
		expect(isNotFound(notFound)).toBe(true);
		expect(describeError(notFound)).toMatch(/^pods "\[redacted\]" not found$/);
		expect(JSON.stringify(apiFailure(notFound))).not.toContain(token);
		expect(
			describeError(notFound, { verb: 'get', resource: 'pods', namespace: token, name: token }),
		).not.toContain(token);

		sim.config.deny = ['get pods'];
		const forbidden = await kube.core
			.readNamespacedPod({ name: token, namespace: 'corral' })
			.catch((e: unknown) => e);
		expect(apiFailure(forbidden)?.code).toBe(403);
		expect(describeError(forbidden)).not.toContain(token);
		expect(describeError(forbidden, { verb: 'get', resource: 'pods', namespace: 'corral' })).toBe(
			'forbidden: cannot get pods in namespace corral (ask for the "get" permission on pods; the viewer tier has it: ctpool rbac --tier viewer -n corral)',
		);
	});
});
