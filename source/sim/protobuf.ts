/**
 * Just enough of Kubernetes' protobuf encoding to read the request bodies kubectl sends as
 * protobuf (`kubectl auth can-i` posts a SelfSubjectAccessReview that way).
 */

/** The content type of Kubernetes protobuf bodies. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Fields = Map<number, (Buffer | number)[]>;

function varint(buf: Buffer, pos: number): [number, number] {
	let result = 0;
	let shift = 0;
	let p = pos;
	for (;;) {
		if (p >= buf.length) throw new Error('truncated varint');
		const b = buf[p++]!;
		result += (b & 0x7f) * 2 ** shift;
		if ((b & 0x80) === 0) return [result, p];
		shift += 7;
	}
}

/** Reads the top-level fields of a protobuf message (varints as numbers, bytes as Buffers). */
export function readFields(buf: Buffer): Fields {
	const out: Fields = new Map();
	let pos = 0;
	while (pos < buf.length) {
		const [key, p1] = varint(buf, pos);
		const field = Math.floor(key / 8);
		const wire = key & 7;
		let value: Buffer | number;
		if (wire === 0) {
			const [v, p2] = varint(buf, p1);
			value = v;
			pos = p2;
		} else if (wire === 2) {
			const [n, p2] = varint(buf, p1);
			value = buf.subarray(p2, p2 + n);
			pos = p2 + n;
		} else if (wire === 1) {
			value = buf.subarray(p1, p1 + 8);
			pos = p1 + 8;
		} else if (wire === 5) {
			value = buf.subarray(p1, p1 + 4);
			pos = p1 + 4;
		} else throw new Error(`unsupported wire type ${wire}`);
		const list = out.get(field) ?? [];
		list.push(value);
		out.set(field, list);
	}
	return out;
}

function str(f: Fields, n: number): string | undefined {
	const v = f.get(n)?.[0];
	return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

function msg(f: Fields, n: number): Fields | undefined {
	const v = f.get(n)?.[0];
	return Buffer.isBuffer(v) ? readFields(v) : undefined;
}

/** Unwraps the `k8s\0` envelope: the kind and the raw message. */
export function unwrapEnvelope(body: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
	if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\0') {
		throw new Error('missing the k8s protobuf prefix');
	}
	const unknown = readFields(body.subarray(4));
	const typeMeta = msg(unknown, 1);
	const raw = unknown.get(2)?.[0];
	return {
		apiVersion: (typeMeta && str(typeMeta, 1)) ?? '',
		kind: (typeMeta && str(typeMeta, 2)) ?? '',
		raw: Buffer.isBuffer(raw) ? raw : Buffer.alloc(0),
	};
}

/** Decodes a protobuf SelfSubjectAccessReview into its JSON form (spec only). */
export function decodeSelfSubjectAccessReview(body: Buffer): {
	spec: {
		resourceAttributes?: Record<string, string>;
		nonResourceAttributes?: Record<string, string>;
	};
} {
	const { raw } = unwrapEnvelope(body);
	const review = readFields(raw);
	const spec = msg(review, 2);
	const out: {
		resourceAttributes?: Record<string, string>;
		nonResourceAttributes?: Record<string, string>;
	} = {};
	const ra = spec && msg(spec, 1);
	if (ra) {
		const names = ['', 'namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
		const attrs: Record<string, string> = {};
		names.forEach((name, i) => {
			const v = name ? str(ra, i) : undefined;
			if (v !== undefined) attrs[name] = v;
		});
		out.resourceAttributes = attrs;
	}
	const nra = spec && msg(spec, 2);
	if (nra) {
		out.nonResourceAttributes = { path: str(nra, 1) ?? '', verb: str(nra, 2) ?? '' };
	}
	return { spec: out };
}
