/**
 * Kubernetes' protobuf request bodies (`application/vnd.kubernetes.protobuf`): the `k8s\0`
 * magic, a runtime.Unknown envelope naming apiVersion and kind, and the object's message,
 * decoded into its JSON form from a compact table of field numbers per message (taken from
 * k8s.io/api and k8s.io/apimachinery generated.proto). kubectl's imperative commands
 * (`create namespace|configmap|secret|serviceaccount|role|rolebinding|...`, `create token`,
 * `auth can-i`, `drain`'s evictions and deletes) send their bodies this way.
 */

/** The content type of Kubernetes protobuf bodies. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Value = Buffer | bigint;
type Fields = Map<number, Value[]>;

function varint(buf: Buffer, pos: number): [bigint, number] {
	let result = 0n;
	let shift = 0n;
	let p = pos;
	for (;;) {
		if (p >= buf.length) throw new Error('truncated varint');
		const b = buf[p++]!;
		result |= BigInt(b & 0x7f) << shift;
		if ((b & 0x80) === 0) return [result, p];
		shift += 7n;
		if (shift > 70n) throw new Error('varint too long');
	}
}

/** Reads the top-level fields of a protobuf message (varints as bigints, bytes as Buffers). */
export function readFields(buf: Buffer): Fields {
	const out: Fields = new Map();
	let pos = 0;
	while (pos < buf.length) {
		const [key, p1] = varint(buf, pos);
		const field = Number(key >> 3n);
		const wire = Number(key & 7n);
		let value: Value;
		if (wire === 0) {
			const [v, p2] = varint(buf, p1);
			value = v;
			pos = p2;
		} else if (wire === 2) {
			const [n, p2] = varint(buf, p1);
			const end = p2 + Number(n);
			if (end > buf.length) throw new Error('truncated field');
			value = buf.subarray(p2, end);
			pos = end;
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

/**
 * Messages by name: `number name type` entries separated by `;`. Types: `s` string, `i`
 * int64/int32, `n` an int left out when 0, `b` bool, `f` a bool left out when false, `y`
 * bytes (base64 in JSON), `T` meta/v1 Time, `IntOrString`, `{s` a map of strings, `{y` a map
 * of bytes, another message's name; a leading `*` makes it repeated.
 */
const MESSAGES: Record<string, string> = {
	ObjectMeta:
		'1 name s;2 generateName s;3 namespace s;5 uid s;6 resourceVersion s;7 generation i;8 creationTimestamp T;9 deletionTimestamp T;10 deletionGracePeriodSeconds i;11 labels {s;12 annotations {s;13 ownerReferences *OwnerReference;14 finalizers *s',
	OwnerReference: '1 kind s;3 name s;4 uid s;5 apiVersion s;6 controller b;7 blockOwnerDeletion b',
	ObjectReference:
		'1 kind s;2 namespace s;3 name s;4 uid s;5 apiVersion s;6 resourceVersion s;7 fieldPath s',
	LocalObjectReference: '1 name s',
	LabelSelector: '1 matchLabels {s;2 matchExpressions *LabelSelectorRequirement',
	LabelSelectorRequirement: '1 key s;2 operator s;3 values *s',
	Preconditions: '1 uid s;2 resourceVersion s',
	DeleteOptions:
		'1 gracePeriodSeconds i;2 preconditions Preconditions;3 orphanDependents b;4 propagationPolicy s;5 dryRun *s',
	Namespace: '1 metadata ObjectMeta;2 spec NamespaceSpec',
	NamespaceSpec: '1 finalizers *s',
	ConfigMap: '1 metadata ObjectMeta;2 data {s;3 binaryData {y;4 immutable b',
	Secret: '1 metadata ObjectMeta;2 data {y;3 type s;4 stringData {s;5 immutable b',
	ServiceAccount:
		'1 metadata ObjectMeta;2 secrets *ObjectReference;3 imagePullSecrets *LocalObjectReference;4 automountServiceAccountToken b',
	Role: '1 metadata ObjectMeta;2 rules *PolicyRule',
	ClusterRole: '1 metadata ObjectMeta;2 rules *PolicyRule;3 aggregationRule AggregationRule',
	AggregationRule: '1 clusterRoleSelectors *LabelSelector',
	PolicyRule: '1 verbs *s;2 apiGroups *s;3 resources *s;4 resourceNames *s;5 nonResourceURLs *s',
	RoleBinding: '1 metadata ObjectMeta;2 subjects *Subject;3 roleRef RoleRef',
	ClusterRoleBinding: '1 metadata ObjectMeta;2 subjects *Subject;3 roleRef RoleRef',
	Subject: '1 kind s;2 apiGroup s;3 name s;4 namespace s',
	RoleRef: '1 apiGroup s;2 kind s;3 name s',
	TokenRequest: '1 metadata ObjectMeta;2 spec TokenRequestSpec',
	TokenRequestSpec: '1 audiences *s;3 boundObjectRef BoundObjectReference;4 expirationSeconds i',
	BoundObjectReference: '1 kind s;2 apiVersion s;3 name s;4 uid s',
	SelfSubjectReview: '1 metadata ObjectMeta',
	SelfSubjectAccessReview: '1 metadata ObjectMeta;2 spec SelfSubjectAccessReviewSpec',
	SelfSubjectAccessReviewSpec:
		'1 resourceAttributes ResourceAttributes;2 nonResourceAttributes NonResourceAttributes',
	ResourceAttributes:
		'1 namespace s;2 verb s;3 group s;4 version s;5 resource s;6 subresource s;7 name s',
	NonResourceAttributes: '1 path s;2 verb s',
	SelfSubjectRulesReview: '1 metadata ObjectMeta;2 spec SelfSubjectRulesReviewSpec',
	SelfSubjectRulesReviewSpec: '1 namespace s',
	Eviction: '1 metadata ObjectMeta;2 deleteOptions DeleteOptions',
	Service: '1 metadata ObjectMeta;2 spec ServiceSpec',
	ServiceSpec:
		'1 ports *ServicePort;2 selector {s;3 clusterIP s;4 type s;5 externalIPs *s;7 sessionAffinity s;8 loadBalancerIP s;9 loadBalancerSourceRanges *s;10 externalName s;11 externalTrafficPolicy s;12 healthCheckNodePort n;13 publishNotReadyAddresses f;17 ipFamilyPolicy s;18 clusterIPs *s;19 ipFamilies *s;20 allocateLoadBalancerNodePorts b;21 loadBalancerClass s;22 internalTrafficPolicy s',
	ServicePort:
		'1 name s;2 protocol s;3 port i;4 targetPort IntOrString;5 nodePort n;6 appProtocol s',
};

interface FieldSpec {
	name: string;
	type: string;
	repeated: boolean;
}

const SCHEMAS = new Map<string, Map<number, FieldSpec>>();
for (const [msg, spec] of Object.entries(MESSAGES)) {
	const fields = new Map<number, FieldSpec>();
	for (const entry of spec.split(';')) {
		const [n = '', name = '', t = ''] = entry.trim().split(/\s+/);
		const repeated = t.startsWith('*');
		fields.set(Number(n), { name, type: repeated ? t.slice(1) : t, repeated });
	}
	SCHEMAS.set(msg, fields);
}

/** The kinds whose bodies can be decoded. */
export const DECODABLE_KINDS: ReadonlySet<string> = new Set([
	'Namespace',
	'ConfigMap',
	'Secret',
	'ServiceAccount',
	'Role',
	'ClusterRole',
	'RoleBinding',
	'ClusterRoleBinding',
	'TokenRequest',
	'SelfSubjectReview',
	'SelfSubjectAccessReview',
	'SelfSubjectRulesReview',
	'DeleteOptions',
	'Eviction',
	'Service',
]);

function int64(v: Value): number {
	if (typeof v !== 'bigint') throw new Error('expected a varint');
	return Number(BigInt.asIntN(64, v));
}

function time(buf: Buffer): string | null {
	const f = readFields(buf);
	const s = f.get(1)?.[0];
	const seconds = s === undefined ? 0 : int64(s);
	if (buf.length === 0) return null;
	return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function scalar(type: string, v: Value): unknown {
	switch (type) {
		case 's':
			if (!Buffer.isBuffer(v)) throw new Error('expected a string');
			return v.toString('utf8');
		case 'y':
			if (!Buffer.isBuffer(v)) throw new Error('expected bytes');
			return v.toString('base64');
		case 'i':
			return int64(v);
		case 'n':
			return int64(v) === 0 ? null : int64(v);
		case 'b':
			return int64(v) !== 0;
		case 'f':
			return int64(v) === 0 ? null : true;
		case 'IntOrString': {
			if (!Buffer.isBuffer(v)) throw new Error('expected an IntOrString');
			const f = readFields(v);
			const t = f.get(1)?.[0];
			if (t !== undefined && int64(t) === 1) return scalar('s', f.get(3)?.[0] ?? Buffer.alloc(0));
			const i = f.get(2)?.[0];
			return i === undefined ? 0 : int64(i);
		}
		case 'T':
			if (!Buffer.isBuffer(v)) throw new Error('expected a Time');
			return time(v);
		default:
			if (!Buffer.isBuffer(v)) throw new Error(`expected a ${type} message`);
			return decodeMessage(type, v);
	}
}

/** Decodes one message of a known name into its JSON form (unknown fields are dropped). */
export function decodeMessage(name: string, buf: Buffer): Record<string, unknown> {
	const schema = SCHEMAS.get(name);
	if (!schema) throw new Error(`no protobuf schema for ${name}`);
	const out: Record<string, unknown> = {};
	for (const [n, values] of readFields(buf)) {
		const spec = schema.get(n);
		if (!spec) continue;
		if (spec.type.startsWith('{')) {
			const map: Record<string, unknown> = {};
			for (const entry of values) {
				if (!Buffer.isBuffer(entry)) throw new Error('expected a map entry');
				const kv = readFields(entry);
				const k = kv.get(1)?.[0];
				const v = kv.get(2)?.[0];
				map[k ? String(scalar('s', k)) : ''] = v === undefined ? '' : scalar(spec.type.slice(1), v);
			}
			out[spec.name] = map;
		} else if (spec.repeated) {
			out[spec.name] = values.map((v) => scalar(spec.type, v));
		} else {
			// Go writes every non-pointer string, set or not; its JSON leaves the empty ones out.
			const v = scalar(spec.type, values[values.length - 1]!);
			if (v !== null && v !== '') out[spec.name] = v;
		}
	}
	return out;
}

function str(f: Fields, n: number): string | undefined {
	const v = f.get(n)?.[0];
	return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

/** Unwraps the `k8s\0` envelope: the kind and the raw message. */
export function unwrapEnvelope(body: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
	if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\0') {
		throw new Error('missing the k8s protobuf prefix');
	}
	const unknown = readFields(body.subarray(4));
	const tm = unknown.get(1)?.[0];
	const typeMeta = Buffer.isBuffer(tm) ? readFields(tm) : undefined;
	const raw = unknown.get(2)?.[0];
	return {
		apiVersion: (typeMeta && str(typeMeta, 1)) ?? '',
		kind: (typeMeta && str(typeMeta, 2)) ?? '',
		raw: Buffer.isBuffer(raw) ? raw : Buffer.alloc(0),
	};
}

/**
 * Decodes a protobuf request body into the JSON object it stands for, apiVersion and kind
 * included. Throws for a malformed body or a kind without a schema here.
 */
export function decodeProtobufBody(body: Buffer): Record<string, unknown> {
	const { apiVersion, kind, raw } = unwrapEnvelope(body);
	if (!DECODABLE_KINDS.has(kind)) {
		throw new Error(`the simulated cluster cannot decode a protobuf ${kind || 'object'}`);
	}
	return { ...(apiVersion ? { apiVersion } : {}), kind, ...decodeMessage(kind, raw) };
}

/** Decodes a protobuf SelfSubjectAccessReview into its JSON form. */
export function decodeSelfSubjectAccessReview(body: Buffer): {
	spec: {
		resourceAttributes?: Record<string, string>;
		nonResourceAttributes?: Record<string, string>;
	};
} {
	const obj = decodeProtobufBody(body) as { spec?: Record<string, Record<string, string>> };
	return { spec: obj.spec ?? {} };
}
