/**
 * The one parse step for a watched or listed object (pod, PVC, Lease, definition ConfigMap):
 * every field the pool model reads has the type source/pool/objects.ts declares, or the
 * object is a named problem (`Pod corral/desk-1: status.conditions is not a list`). Never
 * throws. A real API server only serves well-typed objects; this step is what keeps a
 * forged answer, a proxy or a bug from reaching the model as a value it cannot read.
 */

import type { NodeObjectLike } from './node-room.js';
import type { ConfigMapObject, LeaseObject, PodObject, PvcObject } from './objects.js';

/** A parse of something read from the cluster: a typed value, or a named problem. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The kinds of object the pool model reads, by their plural resource names. */
export type ObjectKind = 'pods' | 'persistentvolumeclaims' | 'leases' | 'configmaps' | 'nodes';

/** The typed object of each kind. */
export interface ObjectOfKind {
	pods: PodObject;
	persistentvolumeclaims: PvcObject;
	leases: LeaseObject;
	configmaps: ConfigMapObject;
	nodes: NodeObjectLike;
}

const KIND_NAME: Record<ObjectKind, string> = {
	pods: 'Pod',
	persistentvolumeclaims: 'PersistentVolumeClaim',
	leases: 'Lease',
	configmaps: 'ConfigMap',
	nodes: 'Node',
};

/** The most characters of a name or namespace (a DNS subdomain). */
const NAME_MAX = 253;

/** Thrown inside readObject only: the first field of the wrong shape. */
class ShapeProblem {
	constructor(readonly text: string) {}
}

type Fields = Record<string, unknown>;

function fail(path: string, what: string): never {
	throw new ShapeProblem(`${path} ${what}`);
}

function isRecord(v: unknown): v is Fields {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An optional object field: absent, or an object. */
function obj(o: Fields, key: string, path: string): Fields | undefined {
	const v = o[key];
	if (v === undefined || v === null) return undefined;
	if (!isRecord(v)) fail(`${path}${key}`, 'is not an object');
	return v;
}

/** An optional list field: absent, or a list of objects. */
function objects(o: Fields, key: string, path: string): Fields[] {
	const v = o[key];
	if (v === undefined || v === null) return [];
	if (!Array.isArray(v)) fail(`${path}${key}`, 'is not a list');
	v.forEach((x, i) => {
		if (!isRecord(x)) fail(`${path}${key}[${i}]`, 'is not an object');
	});
	return v as Fields[];
}

/** Optional scalar fields of one type. */
function typed(o: Fields, path: string, type: 'string' | 'boolean', keys: readonly string[]): void {
	for (const key of keys) {
		const v = o[key];
		if (v !== undefined && v !== null && typeof v !== type)
			fail(`${path}${key}`, type === 'string' ? 'is not text' : 'is not true or false');
	}
}

/** Optional number fields: finite. */
function finite(o: Fields, path: string, keys: readonly string[]): void {
	for (const key of keys) {
		const v = o[key];
		if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v)))
			fail(`${path}${key}`, 'is not a finite number');
	}
}

/** An optional time: RFC 3339 text or a Date (client-node's listed objects). */
function times(o: Fields, path: string, keys: readonly string[]): void {
	for (const key of keys) {
		const v = o[key];
		if (v !== undefined && v !== null && typeof v !== 'string' && !(v instanceof Date))
			fail(`${path}${key}`, 'is not a time');
	}
}

/** An optional list of strings. */
function strings(o: Fields, key: string, path: string): void {
	const v = o[key];
	if (v === undefined || v === null) return;
	if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
		fail(`${path}${key}`, 'is not a list of text');
}

/** An optional map of strings (labels, annotations, ConfigMap data). */
function stringMap(o: Fields, key: string, path: string): void {
	const v = obj(o, key, path);
	if (!v) return;
	// every object of every list passes here: no entry arrays
	for (const k of Object.keys(v))
		if (typeof v[k] !== 'string')
			fail(`${path}${key}[${JSON.stringify(k.slice(0, 60))}]`, 'is not text');
}

function metadata(o: Fields): void {
	const m = o.metadata;
	if (!isRecord(m)) fail('metadata', 'is not an object');
	typed(m, 'metadata.', 'string', ['name', 'namespace', 'uid', 'resourceVersion']);
	for (const key of ['name', 'namespace'] as const) {
		const v = m[key];
		if (typeof v === 'string' && v.length > NAME_MAX)
			fail(`metadata.${key}`, `is longer than ${NAME_MAX} characters`);
	}
	times(m, 'metadata.', ['creationTimestamp', 'deletionTimestamp']);
	stringMap(m, 'labels', 'metadata.');
	stringMap(m, 'annotations', 'metadata.');
}

function container(c: Fields, path: string): void {
	typed(c, path, 'string', ['name', 'image']);
	strings(c, 'command', path);
	strings(c, 'args', path);
	const resources = obj(c, 'resources', path);
	if (resources) {
		obj(resources, 'requests', `${path}resources.`);
		obj(resources, 'limits', `${path}resources.`);
	}
	const security = obj(c, 'securityContext', path);
	if (security) typed(security, `${path}securityContext.`, 'boolean', ['privileged']);
}

function containerStatus(c: Fields, path: string): void {
	typed(c, path, 'string', ['name', 'image', 'imageID']);
	typed(c, path, 'boolean', ['ready']);
	finite(c, path, ['restartCount']);
	const state = obj(c, 'state', path);
	if (!state) return;
	const waiting = obj(state, 'waiting', `${path}state.`);
	if (waiting) typed(waiting, `${path}state.waiting.`, 'string', ['reason', 'message']);
	const running = obj(state, 'running', `${path}state.`);
	if (running) times(running, `${path}state.running.`, ['startedAt']);
	const terminated = obj(state, 'terminated', `${path}state.`);
	if (terminated) {
		typed(terminated, `${path}state.terminated.`, 'string', ['reason', 'message']);
		finite(terminated, `${path}state.terminated.`, ['exitCode']);
	}
}

function pod(o: Fields): void {
	const spec = obj(o, 'spec', '');
	if (spec) {
		typed(spec, 'spec.', 'string', ['nodeName']);
		for (const key of ['containers', 'initContainers'])
			objects(spec, key, 'spec.').forEach((c, i) => {
				container(c, `spec.${key}[${i}].`);
			});
		for (const v of objects(spec, 'volumes', 'spec.')) {
			const claim = obj(v, 'persistentVolumeClaim', 'spec.volumes[].');
			if (claim) typed(claim, 'spec.volumes[].persistentVolumeClaim.', 'string', ['claimName']);
		}
	}
	const status = obj(o, 'status', '');
	if (!status) return;
	typed(status, 'status.', 'string', ['phase', 'reason', 'message']);
	objects(status, 'conditions', 'status.').forEach((c, i) => {
		typed(c, `status.conditions[${i}].`, 'string', ['type', 'status', 'reason', 'message']);
	});
	objects(status, 'containerStatuses', 'status.').forEach((c, i) => {
		containerStatus(c, `status.containerStatuses[${i}].`);
	});
}

function pvc(o: Fields): void {
	const spec = obj(o, 'spec', '');
	if (spec) {
		typed(spec, 'spec.', 'string', ['storageClassName', 'volumeName']);
		const resources = obj(spec, 'resources', 'spec.');
		if (resources) obj(resources, 'requests', 'spec.resources.');
	}
	const status = obj(o, 'status', '');
	if (status) typed(status, 'status.', 'string', ['phase']);
}

function lease(o: Fields): void {
	const spec = obj(o, 'spec', '');
	if (!spec) return;
	typed(spec, 'spec.', 'string', ['holderIdentity']);
	finite(spec, 'spec.', ['leaseDurationSeconds', 'leaseTransitions']);
	times(spec, 'spec.', ['acquireTime', 'renewTime']);
}

/** A node, as far as the room on it goes (the Unschedulable hint). */
function node(o: Fields): void {
	const spec = obj(o, 'spec', '');
	if (spec) typed(spec, 'spec.', 'boolean', ['unschedulable']);
	const status = obj(o, 'status', '');
	if (!status) return;
	obj(status, 'allocatable', 'status.');
	obj(status, 'capacity', 'status.');
	objects(status, 'conditions', 'status.').forEach((c, i) => {
		typed(c, `status.conditions[${i}].`, 'string', ['type', 'status']);
	});
}

const CHECK: Record<ObjectKind, (o: Fields) => void> = {
	pods: pod,
	persistentvolumeclaims: pvc,
	leases: lease,
	configmaps: (o) => stringMap(o, 'data', ''),
	nodes: node,
};

/** `Pod corral/desk-1`, from whatever the object holds (bounded). */
export function objectLabel(kind: ObjectKind, raw: unknown): string {
	const m = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : {};
	const name = typeof m.name === 'string' ? m.name.slice(0, NAME_MAX) : '?';
	const ns = typeof m.namespace === 'string' ? `${m.namespace.slice(0, NAME_MAX)}/` : '';
	return `${KIND_NAME[kind]} ${ns}${name}`;
}

/**
 * Reads one object of a kind: the object itself (no copy) when every field the model reads
 * has its declared type, else the problem, naming the object and the field. Never throws.
 */
export function readObject<K extends ObjectKind>(kind: K, raw: unknown): Parsed<ObjectOfKind[K]> {
	try {
		if (!isRecord(raw)) fail('the object', 'is not an object');
		metadata(raw);
		CHECK[kind](raw);
		return { ok: true, value: raw as unknown as ObjectOfKind[K] };
	} catch (err) {
		const text = err instanceof ShapeProblem ? err.text : 'is unreadable';
		return { ok: false, problem: `${objectLabel(kind, raw)}: ${text}` };
	}
}

/** The objects of a list that read well, and the problems of those that do not. */
export function readObjects<K extends ObjectKind>(
	kind: K,
	raws: readonly unknown[],
): { objects: ObjectOfKind[K][]; problems: string[] } {
	const out: ObjectOfKind[K][] = [];
	const problems: string[] = [];
	for (const raw of raws) {
		const r = readObject(kind, raw);
		if (r.ok) out.push(r.value);
		else problems.push(r.problem);
	}
	return { objects: out, problems };
}
