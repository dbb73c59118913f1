/** PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386) and strategic merge patch. */

import { SimError } from './errors.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function isObj(v: unknown): v is Obj {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function patchError(message: string): SimError {
	return new SimError(422, 'Invalid', message, {
		causes: [{ reason: 'FieldValueInvalid', message }],
	});
}

function badPatch(message: string): SimError {
	return new SimError(400, 'BadRequest', message);
}

// ---- JSON patch --------------------------------------------------------------------------

function parsePointer(p: string): string[] {
	if (p === '') return [];
	if (!p.startsWith('/')) throw badPatch(`json patch: invalid path ${JSON.stringify(p)}`);
	return p
		.slice(1)
		.split('/')
		.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: Json, path: string[]): Json | undefined {
	let cur: Json | undefined = doc;
	for (const key of path) {
		if (Array.isArray(cur)) {
			const i = Number(key);
			if (!/^\d+$/.test(key) || i >= cur.length) return undefined;
			cur = cur[i];
		} else if (isObj(cur)) {
			if (!Object.hasOwn(cur, key)) return undefined;
			cur = cur[key];
		} else return undefined;
	}
	return cur;
}

function parentOf(doc: Json, path: string[], op: string, raw: string): Json {
	const parent = getAt(doc, path.slice(0, -1));
	if (parent === undefined || (parent !== null && typeof parent !== 'object')) {
		throw patchError(
			`${op} operation does not apply: doc is missing path: ${JSON.stringify(raw)}: missing value`,
		);
	}
	return parent;
}

function addAt(doc: Json, path: string[], value: Json, raw: string): Json {
	if (path.length === 0) return value;
	const parent = parentOf(doc, path, 'add', raw);
	const key = path[path.length - 1]!;
	if (Array.isArray(parent)) {
		const i = key === '-' ? parent.length : Number(key);
		if (!/^\d+$|^-$/.test(key) || i > parent.length) {
			throw patchError(
				`add operation does not apply: doc is missing path: ${JSON.stringify(raw)}: missing value`,
			);
		}
		parent.splice(i, 0, value);
	} else (parent as Obj)[key] = value;
	return doc;
}

function removeAt(doc: Json, path: string[], raw: string): Json {
	const parent = parentOf(doc, path, 'remove', raw);
	const key = path[path.length - 1]!;
	if (Array.isArray(parent)) {
		const i = Number(key);
		if (!/^\d+$/.test(key) || i >= parent.length) {
			throw patchError(
				`remove operation does not apply: doc is missing path: ${JSON.stringify(raw)}: missing value`,
			);
		}
		parent.splice(i, 1);
	} else {
		if (!Object.hasOwn(parent as Obj, key)) {
			throw patchError(
				`remove operation does not apply: doc is missing path: ${JSON.stringify(raw)}: missing value`,
			);
		}
		delete (parent as Obj)[key];
	}
	return doc;
}

/** Applies an RFC 6902 JSON patch to a copy of `doc`. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
	if (!Array.isArray(patch))
		throw badPatch('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
	let out = structuredClone(doc) as Json;
	for (const raw of patch) {
		if (!isObj(raw)) throw badPatch('json patch: an operation must be an object');
		const op = raw.op;
		const pathStr = typeof raw.path === 'string' ? raw.path : '';
		const path = parsePointer(pathStr);
		switch (op) {
			case 'add':
				out = addAt(out, path, structuredClone(raw.value ?? null), pathStr);
				break;
			case 'remove':
				out = removeAt(out, path, pathStr);
				break;
			case 'replace':
				if (getAt(out, path) === undefined) {
					throw patchError(
						`replace operation does not apply: doc is missing key: ${pathStr}: missing value`,
					);
				}
				if (path.length === 0) out = structuredClone(raw.value ?? null);
				else {
					out = removeAt(out, path, pathStr);
					out = addAt(out, path, structuredClone(raw.value ?? null), pathStr);
				}
				break;
			case 'move':
			case 'copy': {
				const fromStr = typeof raw.from === 'string' ? raw.from : '';
				const from = parsePointer(fromStr);
				const v = getAt(out, from);
				if (v === undefined) {
					throw patchError(
						`${op} operation does not apply: doc is missing from path: ${fromStr}: missing value`,
					);
				}
				const value = structuredClone(v);
				if (op === 'move') out = removeAt(out, from, fromStr);
				out = addAt(out, path, value, pathStr);
				break;
			}
			case 'test': {
				const v = getAt(out, path);
				if (
					JSON.stringify(v) !== JSON.stringify(raw.value ?? null) &&
					!deepEq(v, raw.value ?? null)
				) {
					// kube-apiserver 1.36 keeps the failed test's detail to itself.
					throw new SimError(
						422,
						'Invalid',
						'the server rejected our request due to an error in our request',
						{},
					);
				}
				break;
			}
			default:
				throw badPatch(`Unexpected kind: ${String(op)}`);
		}
	}
	return out;
}

function deepEq(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (Array.isArray(a) && Array.isArray(b)) {
		return a.length === b.length && a.every((x, i) => deepEq(x, b[i]));
	}
	if (isObj(a) && isObj(b)) {
		const ak = Object.keys(a);
		return ak.length === Object.keys(b).length && ak.every((k) => deepEq(a[k], b[k]));
	}
	return false;
}

// ---- merge patches -------------------------------------------------------------------------

/** Applies an RFC 7386 JSON merge patch (null removes a key; lists replace). */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
	if (!isObj(patch)) return structuredClone(patch);
	const out: Obj = isObj(doc) ? (structuredClone(doc) as Obj) : {};
	for (const [k, v] of Object.entries(patch)) {
		if (v === null) delete out[k];
		else if (isObj(v)) out[k] = applyMergePatch(out[k], v) as Json;
		else out[k] = structuredClone(v);
	}
	return out;
}

/** Merge keys of the list fields of the built-in kinds the simulator serves. */
const MERGE_KEYS: Record<string, string> = {
	containers: 'name',
	initContainers: 'name',
	ephemeralContainers: 'name',
	volumes: 'name',
	env: 'name',
	imagePullSecrets: 'name',
	volumeMounts: 'mountPath',
	volumeDevices: 'devicePath',
	conditions: 'type',
	ownerReferences: 'uid',
	hostAliases: 'ip',
	topologySpreadConstraints: 'topologyKey',
	resourceClaims: 'name',
	readinessGates: 'conditionType',
};

/** Lists of scalars merged as sets ($deleteFromPrimitiveList removes). */
const PRIMITIVE_MERGE = new Set(['finalizers']);

function mergeKeyFor(field: string, items: Json[]): string | undefined {
	if (field === 'ports') {
		const first = items.find(isObj);
		if (first && 'containerPort' in first) return 'containerPort';
		return 'port';
	}
	return MERGE_KEYS[field];
}

function mergeList(field: string, cur: Json | undefined, patch: Json[]): Json[] {
	const base = Array.isArray(cur) ? (structuredClone(cur) as Json[]) : [];
	if (PRIMITIVE_MERGE.has(field)) {
		const out = [...base];
		for (const v of patch) if (!out.some((x) => deepEq(x, v))) out.push(structuredClone(v));
		return out;
	}
	const key = mergeKeyFor(field, patch);
	if (!key || !patch.every(isObj)) return structuredClone(patch);
	if (patch.some((p) => isObj(p) && p.$patch === 'replace')) {
		return patch
			.filter((p) => !(isObj(p) && p.$patch === 'replace'))
			.map((p) => structuredClone(p));
	}
	const out = base;
	for (const item of patch as Obj[]) {
		const idx = out.findIndex((x) => isObj(x) && deepEq(x[key], item[key]));
		if (item.$patch === 'delete') {
			if (idx >= 0) out.splice(idx, 1);
			continue;
		}
		if (idx >= 0) out[idx] = applyStrategicMergePatch(out[idx], item) as Json;
		else out.push(applyStrategicMergePatch({}, item) as Json);
	}
	return out;
}

/**
 * Applies a strategic merge patch: a merge patch whose known lists (containers, volumes,
 * env, ports, conditions, ...) merge by key, `finalizers` merge as a set, and `$patch`,
 * `$setElementOrder/`, `$deleteFromPrimitiveList/` and `$retainKeys` directives are honoured
 * or ignored.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown): unknown {
	if (!isObj(patch)) return structuredClone(patch);
	if (patch.$patch === 'replace') {
		const { $patch: _, ...rest } = patch;
		return structuredClone(rest);
	}
	if (patch.$patch === 'delete') return null;
	const out: Obj = isObj(doc) ? (structuredClone(doc) as Obj) : {};
	for (const [k, v] of Object.entries(patch)) {
		if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
		if (k.startsWith('$deleteFromPrimitiveList/')) {
			const field = k.slice('$deleteFromPrimitiveList/'.length);
			const list = out[field];
			if (Array.isArray(list) && Array.isArray(v)) {
				out[field] = list.filter((x) => !v.some((d) => deepEq(d, x)));
			}
			continue;
		}
		if (v === null) delete out[k];
		else if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
		else if (isObj(v)) {
			const merged = applyStrategicMergePatch(out[k], v);
			if (merged === null) delete out[k];
			else out[k] = merged as Json;
		} else out[k] = v;
	}
	return out;
}
