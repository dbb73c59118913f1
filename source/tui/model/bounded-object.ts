/** Watched objects with every string cut to a bound before the console does anything with them. */

import { MadeAhead } from '../../kube/made-ahead.js';
import { SPEC_KEY, STATUS_KEY } from '../../pool/names.js';

/**
 * The most characters of one string of a watched object that the console keeps. Names and
 * labels are far shorter (at most 253); a longer value (a 1 MB Lease holder, a huge annotation
 * or message) is only ever shown cut, so it is cut once, here, and every later step (derive,
 * filter, lay out, the details view) stays cheap whatever the cluster holds.
 */
export const CONSOLE_STRING_BOUND = 1024;

/** Whether a string in value (a key or a value) is longer than the bound. Every watched object passes here: plain loops. */
function needsCut(value: unknown, depth: number): boolean {
	if (typeof value === 'string') return value.length > CONSOLE_STRING_BOUND;
	if (depth > 32 || value === null || typeof value !== 'object') return false;
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) if (needsCut(value[i], depth + 1)) return true;
		return false;
	}
	const record = value as Record<string, unknown>;
	for (const k in record) {
		if (k.length > CONSOLE_STRING_BOUND) return true;
		const v = record[k];
		if (typeof v === 'string') {
			if (v.length > CONSOLE_STRING_BOUND) return true;
		} else if (v !== null && typeof v === 'object' && needsCut(v, depth + 1)) return true;
	}
	return false;
}

function cut(value: unknown, depth: number): unknown {
	if (typeof value === 'string')
		return value.length > CONSOLE_STRING_BOUND ? `${value.slice(0, CONSOLE_STRING_BOUND)}…` : value;
	if (depth > 32 || value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) return value.map((v) => cut(v, depth + 1));
	const out: Record<string, unknown> = {};
	for (const k in value)
		out[cut(k, depth) as string] = cut((value as Record<string, unknown>)[k], depth + 1);
	return out;
}

/** The object itself when no string in it is longer than the bound, else a copy with them cut. */
export function boundedObject<T>(o: T): T {
	return needsCut(o, 0) ? (cut(o, 0) as T) : o;
}

/**
 * A watched object bounded for the console. A definition ConfigMap keeps its `spec` and
 * `status` whole: they are parsed, never shown as they are, and a status of more than a few
 * members is longer than the bound (cut, it would not parse and the console would lose the
 * last reconcile's errors). The API server caps a ConfigMap at 1 MiB.
 */
export function boundedWatched<T extends object>(kind: string, o: T): T {
	const data = (o as { data?: unknown }).data;
	if (kind !== 'configmaps' || data === null || typeof data !== 'object') return boundedObject(o);
	const { data: _, ...rest } = o as T & { data: Record<string, unknown> };
	const kept: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(data as Record<string, unknown>))
		kept[boundedString(k)] =
			(k === SPEC_KEY || k === STATUS_KEY) && typeof v === 'string' ? v : cut(v, 1);
	return { ...boundedObject(rest), data: kept } as T;
}

/** A string cut to the console's bound. */
export function boundedString(s: string): string {
	return s.length > CONSOLE_STRING_BOUND ? `${s.slice(0, CONSOLE_STRING_BOUND)}…` : s;
}

/**
 * What the console keeps of a watched object: without `metadata.managedFields` (a real API
 * server sends several KB of them with every object of a list or watch event, and nothing in
 * the console reads them), bounded as boundedWatched says. The object itself when there is
 * nothing to drop or cut.
 */
export function consoleObject<T extends { metadata?: object }>(kind: string, o: T): T {
	const ahead = keptAhead.take(kind, o);
	if (ahead) return ahead as T;
	const meta = o.metadata as { managedFields?: unknown } | undefined;
	if (meta && 'managedFields' in meta) {
		const { managedFields: _dropped, ...rest } = meta;
		return boundedWatched(kind, { ...o, metadata: rest });
	}
	return boundedWatched(kind, o);
}

/** What consoleObjectsAhead made, until the batch takes it. */
const keptAhead = new MadeAhead<object>();

/**
 * Makes what the console keeps of listed objects (consoleObject) as their page arrives, for
 * the batch of the list to take: the work is done while the server makes the next page. Only
 * for objects that read at the boundary (readAhead): consoleObject expects their metadata.
 */
export function consoleObjectsAhead(kind: string, objects: readonly object[]): void {
	for (const o of objects) keptAhead.put(kind, o, consoleObject(kind, o));
}
