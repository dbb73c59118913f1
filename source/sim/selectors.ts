/** Label and field selectors, parsed the way the API server parses them. */

import { badRequest } from './errors.js';
import { resourceInfo } from './resources.js';
import type { FieldMatcher, LabelMatcher, SimObject } from './store-api.js';

type LabelOp = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface LabelRequirement {
	key: string;
	op: LabelOp;
	values: string[];
}

const KEY =
	/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits at commas that are not inside parentheses. */
function splitTop(s: string): string[] {
	const out: string[] = [];
	let depth = 0;
	let cur = '';
	for (const ch of s) {
		if (ch === '(') depth++;
		else if (ch === ')') depth--;
		if (ch === ',' && depth === 0) {
			out.push(cur);
			cur = '';
		} else cur += ch;
	}
	out.push(cur);
	return out;
}

function parseError(detail: string): Error {
	return badRequest(`unable to parse requirement: ${detail}`);
}

function checkKey(key: string): string {
	if (!KEY.test(key) || key.length > 317) {
		throw parseError(
			`Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
		);
	}
	return key;
}

function checkValue(v: string): string {
	if (!VALUE.test(v) || v.length > 63) {
		throw parseError(
			`Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
		);
	}
	return v;
}

function parseRequirement(raw: string): LabelRequirement {
	const s = raw.trim();
	if (s.startsWith('!')) return { key: checkKey(s.slice(1).trim()), op: '!', values: [] };
	const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(s);
	if (set) {
		const values = set[3]!
			.split(',')
			.map((v) => v.trim())
			.map(checkValue);
		return { key: checkKey(set[1]!), op: set[2] as 'in' | 'notin', values };
	}
	const cmp = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(.*)$/.exec(s);
	if (cmp) {
		const key = checkKey(cmp[1]!);
		const value = cmp[3]!.trim();
		const sym = cmp[2]!;
		if (sym === '<' || sym === '>') {
			if (!/^-?\d+$/.test(value))
				throw parseError(`for 'Gt', 'Lt' operators, the value must be an integer`);
			return { key, op: sym === '<' ? 'lt' : 'gt', values: [value] };
		}
		return { key, op: sym === '!=' ? '!=' : '=', values: [checkValue(value)] };
	}
	if (/^\S+$/.test(s)) return { key: checkKey(s), op: 'exists', values: [] };
	throw parseError(`found '${s}', expected: in, notin, =, ==, !=, gt, lt`);
}

function matches(req: LabelRequirement, labels: Record<string, string>): boolean {
	const has = Object.hasOwn(labels, req.key);
	const v = labels[req.key];
	switch (req.op) {
		case '=':
			return has && v === req.values[0];
		case '!=':
			return !has || v !== req.values[0];
		case 'in':
			return has && req.values.includes(v!);
		case 'notin':
			return !has || !req.values.includes(v!);
		case 'exists':
			return has;
		case '!':
			return !has;
		case 'gt':
		case 'lt': {
			if (!has || !/^-?\d+$/.test(v!)) return false;
			const n = Number(v);
			const bound = Number(req.values[0]);
			return req.op === 'gt' ? n > bound : n < bound;
		}
	}
}

/**
 * Parses a label selector (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
 * comma = AND). Returns undefined for an empty selector; throws 400 when it does not parse.
 */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher | undefined {
	if (!selector || selector.trim() === '') return undefined;
	const reqs = splitTop(selector)
		.filter((p) => p.trim() !== '')
		.map(parseRequirement);
	return (labels) => reqs.every((r) => matches(r, labels ?? {}));
}

/** The value a field selector compares for a field path of an object ('' when absent). */
export function fieldValue(obj: SimObject, field: string): string {
	if (field === 'source') {
		const src = (obj as { source?: { component?: string } }).source;
		return src?.component ?? '';
	}
	let cur: unknown = obj;
	for (const part of field.split('.')) {
		if (cur === null || typeof cur !== 'object') return '';
		cur = (cur as Record<string, unknown>)[part];
	}
	if (cur === undefined || cur === null) return '';
	if (typeof cur === 'boolean' || typeof cur === 'number') return String(cur);
	return typeof cur === 'string' ? cur : '';
}

/**
 * Parses a field selector for a resource (`f=v`, `f==v`, `f!=v`, comma = AND). Supports
 * metadata.name, metadata.namespace and the resource's extra fields; others are 400
 * `field label not supported: X`. Returns undefined for an empty selector.
 */
export function parseFieldSelector(
	resource: string,
	selector: string | null | undefined,
): FieldMatcher | undefined {
	if (!selector || selector.trim() === '') return undefined;
	const allowed = new Set([
		'metadata.name',
		'metadata.namespace',
		...resourceInfo(resource).fields,
	]);
	const reqs = selector
		.split(',')
		.filter((p) => p.trim() !== '')
		.map((p) => {
			const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(p);
			if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${p}'`);
			const field = m[1]!;
			if (!allowed.has(field))
				throw badRequest(
					// A kind with only the metadata fields answers from the generic field set.
					resourceInfo(resource).fields.length === 0
						? `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`
						: `field label not supported: ${field}`,
				);
			return { field, neg: m[2] === '!=', value: m[3]! };
		});
	return (obj) =>
		reqs.every((r) => {
			const v = fieldValue(obj, r.field);
			return r.neg ? v !== r.value : v === r.value;
		});
}
