/**
 * The protobuf body decoder against bodies built here field by field, as Go's generated
 * marshallers write them (the kubectl tests check it against the real client).
 */

import { describe, expect, it } from 'vitest';
import { decodeProtobufBody, unwrapEnvelope } from '../../source/sim/protobuf.js';

function varint(n: bigint): Buffer {
	const out: number[] = [];
	let v = BigInt.asUintN(64, n);
	do {
		let b = Number(v & 0x7fn);
		v >>= 7n;
		if (v > 0n) b |= 0x80;
		out.push(b);
	} while (v > 0n);
	return Buffer.from(out);
}

/** A length-delimited field. */
function bytes(field: number, value: Buffer | string): Buffer {
	const b = typeof value === 'string' ? Buffer.from(value) : value;
	return Buffer.concat([varint(BigInt(field * 8 + 2)), varint(BigInt(b.length)), b]);
}

/** A varint field. */
function int(field: number, value: number): Buffer {
	return Buffer.concat([varint(BigInt(field * 8)), varint(BigInt(value))]);
}

function message(...parts: Buffer[]): Buffer {
	return Buffer.concat(parts);
}

function mapEntry(field: number, key: string, value: Buffer | string): Buffer {
	return bytes(field, message(bytes(1, key), bytes(2, value)));
}

function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
	const typeMeta = message(bytes(1, apiVersion), bytes(2, kind));
	return Buffer.concat([
		Buffer.from('k8s\0', 'latin1'),
		message(bytes(1, typeMeta), bytes(2, raw)),
	]);
}

const meta = (name: string, namespace = '') =>
	message(bytes(1, name), bytes(2, ''), bytes(3, namespace), bytes(8, Buffer.alloc(0)));

describe('protobuf request bodies', () => {
	it('decodes a Secret: bytes map as base64, strings, empty strings and zero times left out', () => {
		const raw = message(
			bytes(1, message(meta('s1', 'corral'), mapEntry(11, 'app', 'x'))),
			mapEntry(2, 'password', Buffer.from([0, 1, 2, 255])),
			bytes(3, 'Opaque'),
		);
		expect(decodeProtobufBody(envelope('v1', 'Secret', raw))).toEqual({
			apiVersion: 'v1',
			kind: 'Secret',
			metadata: { name: 's1', namespace: 'corral', labels: { app: 'x' } },
			data: { password: Buffer.from([0, 1, 2, 255]).toString('base64') },
			type: 'Opaque',
		});
	});

	it('decodes a RoleBinding with repeated subjects and its roleRef', () => {
		const subject = (kind: string, name: string, ns = '') =>
			bytes(2, message(bytes(1, kind), bytes(2, ''), bytes(3, name), bytes(4, ns)));
		const raw = message(
			bytes(1, meta('rb')),
			subject('ServiceAccount', 'sa', 'corral'),
			subject('User', 'alice'),
			bytes(3, message(bytes(1, 'rbac.authorization.k8s.io'), bytes(2, 'Role'), bytes(3, 'r'))),
		);
		expect(
			decodeProtobufBody(envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', raw)),
		).toEqual({
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'RoleBinding',
			metadata: { name: 'rb' },
			subjects: [
				{ kind: 'ServiceAccount', name: 'sa', namespace: 'corral' },
				{ kind: 'User', name: 'alice' },
			],
			roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
		});
	});

	it('decodes an Eviction with its DeleteOptions, a zero grace kept and a negative int64', () => {
		const opts = message(int(1, 0), bytes(2, message(bytes(1, 'uid-1'))));
		const raw = message(bytes(1, meta('p', 'corral')), bytes(2, opts));
		expect(decodeProtobufBody(envelope('policy/v1', 'Eviction', raw))).toEqual({
			apiVersion: 'policy/v1',
			kind: 'Eviction',
			metadata: { name: 'p', namespace: 'corral' },
			deleteOptions: { gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' } },
		});
		const neg = Buffer.concat([varint(8n), varint(-1n)]);
		expect(decodeProtobufBody(envelope('v1', 'DeleteOptions', neg))).toMatchObject({
			gracePeriodSeconds: -1,
		});
	});

	it('decodes a TokenRequest and a set Time', () => {
		const raw = message(
			bytes(1, message(bytes(1, 'sa'), bytes(8, message(int(1, 1_700_000_000))))),
			bytes(2, message(bytes(1, 'https://example'), int(4, 1200))),
		);
		expect(decodeProtobufBody(envelope('authentication.k8s.io/v1', 'TokenRequest', raw))).toEqual({
			apiVersion: 'authentication.k8s.io/v1',
			kind: 'TokenRequest',
			metadata: { name: 'sa', creationTimestamp: '2023-11-14T22:13:20Z' },
			spec: { audiences: ['https://example'], expirationSeconds: 1200 },
		});
	});

	it('refuses a body without the magic, a truncated one, and a kind without a schema', () => {
		expect(() => unwrapEnvelope(Buffer.from('{}'))).toThrow('missing the k8s protobuf prefix');
		const whole = envelope('v1', 'ConfigMap', message(bytes(1, meta('cm'))));
		expect(() => decodeProtobufBody(whole.subarray(0, whole.length - 3))).toThrow(/truncated/);
		expect(() => decodeProtobufBody(envelope('v1', 'Pod', Buffer.alloc(0)))).toThrow(
			'the simulated cluster cannot decode a protobuf Pod',
		);
	});
});
