/**
 * A throwaway self-signed TLS certificate for 127.0.0.1, built with node:crypto alone.
 * kubectl sends credentials only over TLS (client-go reads a kubeconfig's user only for
 * https servers), so the simulator serves https too, with `insecure-skip-tls-verify: true`.
 */

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

function len(n: number): Buffer {
	if (n < 0x80) return Buffer.from([n]);
	const bytes: number[] = [];
	for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
	return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
	const body = Buffer.concat(content);
	return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);

function oid(dotted: string): Buffer {
	const parts = dotted.split('.').map(Number);
	const out = [40 * parts[0]! + parts[1]!];
	for (const p of parts.slice(2)) {
		const stack = [p & 0x7f];
		for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128))
			stack.unshift((v & 0x7f) | 0x80);
		out.push(...stack);
	}
	return tlv(0x06, Buffer.from(out));
}

function integer(bytes: Buffer): Buffer {
	let b = bytes;
	while (b.length > 1 && b[0] === 0 && (b[1]! & 0x80) === 0) b = b.subarray(1);
	if (b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
	return tlv(0x02, b);
}

function utcTime(d: Date): Buffer {
	const p = (n: number) => String(n).padStart(2, '0');
	const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
	return tlv(0x17, Buffer.from(s, 'ascii'));
}

function name(cn: string): Buffer {
	return seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));
}

function pem(label: string, der: Buffer): string {
	const b64 = der
		.toString('base64')
		.replace(/(.{64})/g, '$1\n')
		.replace(/\n$/, '');
	return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** A PEM certificate and key for `localhost` and 127.0.0.1, valid for ten years. */
export function selfSignedCertificate(commonName = 'ctpool-sim'): { cert: string; key: string } {
	const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
	const spki = publicKey.export({ type: 'spki', format: 'der' });
	const sigAlg = seq(oid('1.2.840.10045.4.3.2'));
	const now = Date.now();
	const san = seq(
		tlv(0x82, Buffer.from('localhost', 'ascii')),
		tlv(0x87, Buffer.from([127, 0, 0, 1])),
	);
	const extensions = tlv(
		0xa3,
		seq(
			seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq())),
			seq(
				oid('2.5.29.15'),
				tlv(0x01, Buffer.from([0xff])),
				tlv(0x04, tlv(0x03, Buffer.from([0x05, 0xa0]))),
			),
			seq(oid('2.5.29.37'), tlv(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))),
			seq(oid('2.5.29.17'), tlv(0x04, san)),
		),
	);
	const tbs = seq(
		tlv(0xa0, integer(Buffer.from([2]))),
		integer(randomBytes(16)),
		sigAlg,
		name(commonName),
		seq(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 10 * 365 * 86_400_000))),
		name(commonName),
		spki,
		extensions,
	);
	const signature = sign('sha256', tbs, privateKey);
	const cert = seq(tbs, sigAlg, tlv(0x03, Buffer.from([0]), signature));
	return {
		cert: pem('CERTIFICATE', cert),
		key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
	};
}
