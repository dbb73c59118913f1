/**
 * The schemas of schema-table.ts put to work: unknown and duplicate fields of a request body
 * (fieldValidation), and the OpenAPI v3 component schemas of a group version.
 */

import { DEFINITIONS, ROOTS } from './schema-table.js';

/** A parsed field type. */
type FieldType =
	| { t: 'scalar'; name: string }
	| { t: 'any' }
	| { t: 'list'; of: FieldType }
	| { t: 'map'; of: FieldType }
	| { t: 'def'; key: string };

const SCALARS = new Set([
	'string',
	'integer',
	'int32',
	'number',
	'boolean',
	'quantity',
	'int-or-string',
	'time',
	'micro-time',
]);

const parsed = new Map<string, FieldType>();

function parseType(spec: string): FieldType {
	let out = parsed.get(spec);
	if (out) return out;
	if (spec.startsWith('[]')) out = { t: 'list', of: parseType(spec.slice(2)) };
	else if (spec.startsWith('map[') && spec.endsWith(']'))
		out = { t: 'map', of: parseType(spec.slice(4, -1)) };
	else if (spec === 'any') out = { t: 'any' };
	else if (SCALARS.has(spec)) out = { t: 'scalar', name: spec };
	else if (DEFINITIONS[spec]) out = { t: 'def', key: spec };
	else throw new Error(`schema-table: unknown type ${spec}`);
	parsed.set(spec, out);
	return out;
}

function fieldsOf(key: string): Record<string, FieldType> {
	const def = DEFINITIONS[key]!;
	const out: Record<string, FieldType> = {};
	for (const [name, spec] of Object.entries(def.fields)) {
		out[name] = parseType(typeof spec === 'string' ? spec : spec[0]);
	}
	return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function walk(type: FieldType, value: unknown, path: string, out: string[], prune: boolean): void {
	if (value === null || value === undefined) return;
	switch (type.t) {
		case 'def': {
			if (!isObject(value)) return;
			const fields = fieldsOf(type.key);
			for (const k of Object.keys(value)) {
				const p = path ? `${path}.${k}` : k;
				const ft = fields[k];
				if (!ft) {
					out.push(p);
					if (prune) delete value[k];
				} else walk(ft, value[k], p, out, prune);
			}
			return;
		}
		case 'list':
			if (Array.isArray(value)) {
				for (let i = 0; i < value.length; i++) walk(type.of, value[i], `${path}[${i}]`, out, prune);
			}
			return;
		case 'map':
			if (isObject(value))
				for (const [k, v] of Object.entries(value)) walk(type.of, v, `${path}.${k}`, out, prune);
			return;
		default:
			return;
	}
}

/**
 * The paths of the fields of an object its kind's schema does not know (`spec.foo`,
 * `spec.containers[0].bar`), in document order; with `prune`, they are removed from the
 * object, as decoding into the real types drops them. Kinds without a schema have none.
 */
export function unknownFields(resource: string, obj: unknown, prune: boolean): string[] {
	const root = ROOTS[resource];
	if (!root) return [];
	const out: string[] = [];
	walk({ t: 'def', key: root }, obj, '', out, prune);
	return out;
}

/** The Go type a field decodes into, as encoding/json names it in its errors. */
function goType(type: FieldType): string {
	switch (type.t) {
		case 'scalar':
			return (
				{ integer: 'int64', int32: 'int32', number: 'float64', boolean: 'bool' }[type.name] ??
				'string'
			);
		case 'any':
			return 'interface {}';
		case 'list':
			return `[]${goType(type.of)}`;
		case 'map':
			return type.of.t === 'scalar' && type.of.name === 'quantity'
				? 'v1.ResourceList'
				: `map[string]${goType(type.of)}`;
		case 'def':
			return `v1.${type.key.slice(type.key.lastIndexOf('.') + 1)}`;
	}
}

/** How encoding/json names a JSON value in a type error (`string`, `number 1.5`, `object`). */
function jsonKind(v: unknown, wantInt: boolean): string {
	if (typeof v === 'string') return 'string';
	if (typeof v === 'boolean') return 'bool';
	if (typeof v === 'number') return wantInt ? `number ${v}` : 'number';
	return Array.isArray(v) ? 'array' : 'object';
}

/** The type error of a value against a field type, if any (scalars and structure only). */
function mismatch(type: FieldType, v: unknown): string | undefined {
	if (v === null || v === undefined) return undefined;
	switch (type.t) {
		case 'scalar': {
			const n = type.name;
			if (n === 'string') {
				return typeof v === 'string' ? undefined : jsonKind(v, false);
			}
			if (n === 'boolean') return typeof v === 'boolean' ? undefined : jsonKind(v, false);
			if (n === 'number') return typeof v === 'number' ? undefined : jsonKind(v, false);
			if (n === 'integer' || n === 'int32') {
				if (typeof v !== 'number') return jsonKind(v, false);
				const limit = n === 'int32' ? 2 ** 31 : 2 ** 63;
				return Number.isInteger(v) && v >= -limit && v < limit ? undefined : jsonKind(v, true);
			}
			return undefined;
		}
		case 'any':
			return undefined;
		case 'list':
			return Array.isArray(v) ? undefined : jsonKind(v, false);
		case 'map':
		case 'def':
			return isObject(v) ? undefined : jsonKind(v, false);
	}
}

function firstTypeError(
	struct: string,
	fields: Record<string, FieldType>,
	obj: Record<string, unknown>,
	path: string[],
): string | undefined {
	for (const [k, v] of Object.entries(obj)) {
		const ft = fields[k];
		if (!ft) continue;
		const at = [...path, k];
		const err = checkValue(struct, ft, v, at);
		if (err) return err;
	}
	return undefined;
}

function checkValue(struct: string, type: FieldType, v: unknown, at: string[]): string | undefined {
	const bad = mismatch(type, v);
	if (bad) {
		return `json: cannot unmarshal ${bad} into Go struct field ${struct}.${at.join('.')} of type ${goType(type)}`;
	}
	if (v === null || v === undefined) return undefined;
	if (type.t === 'def') {
		const name = type.key.slice(type.key.lastIndexOf('.') + 1);
		return firstTypeError(name, fieldsOf(type.key), v as Record<string, unknown>, at);
	}
	if (type.t === 'list') {
		for (const item of v as unknown[]) {
			const err = checkValue(struct, type.of, item, at);
			if (err) return err;
		}
	}
	if (type.t === 'map') {
		for (const item of Object.values(v as Record<string, unknown>)) {
			const err = checkValue(struct, type.of, item, at);
			if (err) return err;
		}
	}
	return undefined;
}

/**
 * The first value of an object whose JSON type its field cannot hold, as encoding/json
 * reports it (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
 * of type int32`), or undefined. Subtrees typed `any`, quantities, int-or-strings and times
 * (their own decoders have their own messages) are not checked.
 */
export function typeError(resource: string, obj: unknown): string | undefined {
	const root = ROOTS[resource];
	if (!root || !isObject(obj)) return undefined;
	const name = root.slice(root.lastIndexOf('.') + 1);
	return firstTypeError(name, fieldsOf(root), obj, []);
}

/** Whether a resource's kind has a schema. */
export function hasSchema(resource: string): boolean {
	return ROOTS[resource] !== undefined;
}

/** A field path with its position in the body text. */
export interface FieldAt {
	/** The path (`metadata.name`, `spec.containers[0].image`). */
	path: string;
	/** The offset of the key in the text. */
	pos: number;
}

/**
 * Scans JSON text for keys given twice in one object. Returns each duplicate (at its second
 * occurrence) and the first offset of every key path, both in document order. The text should
 * be valid JSON (anything else ends the scan early; it never loops).
 */
export function scanKeys(text: string): { duplicates: FieldAt[]; first: Map<string, number> } {
	const duplicates: FieldAt[] = [];
	const first = new Map<string, number>();
	let i = 0;
	const ws = () => {
		while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
	};
	const str = (): string => {
		const start = i;
		i++;
		while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
		i++;
		return JSON.parse(text.slice(start, i)) as string;
	};
	const value = (path: string): void => {
		ws();
		const c = text[i];
		if (c === '{') {
			i++;
			const seen = new Set<string>();
			ws();
			if (text[i] === '}') {
				i++;
				return;
			}
			while (i < text.length) {
				ws();
				const pos = i;
				const key = str();
				const p = path ? `${path}.${key}` : key;
				if (seen.has(key)) duplicates.push({ path: p, pos });
				else {
					seen.add(key);
					if (!first.has(p)) first.set(p, pos);
				}
				ws();
				i++; // ':'
				value(p);
				ws();
				if (text[i++] === '}') return;
			}
		} else if (c === '[') {
			i++;
			ws();
			if (text[i] === ']') {
				i++;
				return;
			}
			for (let n = 0; i < text.length; n++) {
				value(`${path}[${n}]`);
				ws();
				if (text[i++] === ']') return;
			}
		} else if (c === '"') str();
		else while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++;
	};
	value('');
	return { duplicates, first };
}

/**
 * The strict decoding errors of a body, in document order: `unknown field "spec.foo"` for
 * each unknown path and `duplicate field "metadata.name"` for each key given twice.
 */
export function strictErrors(text: string | undefined, unknown: string[]): string[] {
	if (text === undefined) return unknown.map((p) => `unknown field ${JSON.stringify(p)}`);
	let scanned: ReturnType<typeof scanKeys>;
	try {
		scanned = scanKeys(text);
	} catch {
		scanned = { duplicates: [], first: new Map() };
	}
	const { duplicates, first } = scanned;
	const all = [
		...unknown.map((p) => ({
			pos: first.get(p) ?? Number.MAX_SAFE_INTEGER,
			msg: `unknown field ${JSON.stringify(p)}`,
		})),
		...duplicates.map((d) => ({ pos: d.pos, msg: `duplicate field ${JSON.stringify(d.path)}` })),
	];
	return all.sort((a, b) => a.pos - b.pos).map((e) => e.msg);
}

// ---- OpenAPI ----------------------------------------------------------------------------

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** The OpenAPI component name of a definition key (`core.v1.Pod` -> `io.k8s.api.core.v1.Pod`). */
export function componentName(key: string): string {
	return key.startsWith('meta.v1.') ? `${META}.${key.slice(8)}` : `io.k8s.api.${key}`;
}

const SCALAR_SCHEMAS: Record<string, { ref?: string; schema: Record<string, unknown> }> = {
	string: { schema: { type: 'string' } },
	integer: { schema: { type: 'integer', format: 'int64' } },
	int32: { schema: { type: 'integer', format: 'int32' } },
	number: { schema: { type: 'number', format: 'double' } },
	boolean: { schema: { type: 'boolean' } },
	quantity: {
		ref: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
		schema: {
			description:
				"Quantity is a fixed-point representation of a number, serialised as a string ('100m', '1Gi').",
			oneOf: [{ type: 'string' }, { type: 'number' }],
		},
	},
	'int-or-string': {
		ref: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
		schema: {
			description: 'IntOrString is a type that can hold an int32 or a string.',
			oneOf: [{ type: 'integer' }, { type: 'string' }],
		},
	},
	time: {
		ref: `${META}.Time`,
		schema: {
			description: 'Time is a wrapper around time.Time, serialised as RFC 3339.',
			type: 'string',
			format: 'date-time',
		},
	},
	'micro-time': {
		ref: `${META}.MicroTime`,
		schema: {
			description: 'MicroTime is version of Time with microsecond level precision.',
			type: 'string',
			format: 'date-time',
		},
	},
};

function typeSchema(type: FieldType, used: Set<string>): Record<string, unknown> {
	switch (type.t) {
		case 'scalar': {
			const s = SCALAR_SCHEMAS[type.name]!;
			if (!s.ref) return { ...s.schema };
			used.add(type.name);
			return { allOf: [{ $ref: `#/components/schemas/${s.ref}` }] };
		}
		case 'any':
			return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
		case 'list':
			return { type: 'array', items: typeSchema(type.of, used) };
		case 'map':
			return { type: 'object', additionalProperties: typeSchema(type.of, used) };
		case 'def':
			used.add(type.key);
			return { allOf: [{ $ref: `#/components/schemas/${componentName(type.key)}` }], default: {} };
	}
}

/**
 * The OpenAPI v3 component schemas for some resources' kinds and everything they refer to,
 * with `x-kubernetes-group-version-kind` on each root.
 */
export function openApiSchemas(
	roots: { resource: string; gvk: { group: string; version: string; kind: string } }[],
): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	const gvkOf = new Map<string, unknown>();
	const todo: string[] = [];
	for (const r of roots) {
		const key = ROOTS[r.resource];
		if (!key) continue;
		gvkOf.set(key, [r.gvk]);
		todo.push(key);
	}
	const used = new Set<string>();
	const done = new Set<string>();
	while (todo.length > 0) {
		const key = todo.pop()!;
		if (done.has(key)) continue;
		done.add(key);
		const def = DEFINITIONS[key]!;
		const properties: Record<string, unknown> = {};
		const before = new Set(used);
		for (const [name, spec] of Object.entries(def.fields)) {
			const [t, description] = typeof spec === 'string' ? [spec, undefined] : spec;
			properties[name] = {
				...typeSchema(parseType(t), used),
				...(description ? { description } : {}),
			};
		}
		for (const u of used) if (!before.has(u) && DEFINITIONS[u]) todo.push(u);
		out[componentName(key)] = {
			description: def.description,
			type: 'object',
			properties,
			...(gvkOf.has(key) ? { 'x-kubernetes-group-version-kind': gvkOf.get(key) } : {}),
		};
	}
	for (const u of used) {
		const s = SCALAR_SCHEMAS[u];
		if (s?.ref) out[s.ref] = s.schema;
	}
	return out;
}
