/**
 * What must differ between two clusters, made equal: uids, times, resourceVersions, IPs,
 * continue tokens and the ServiceAccount volume's random suffix. Then a path-by-path
 * comparison of two answers.
 */

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const IP = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Keys whose values are the cluster's own (a resourceVersion, a token), kept only as present or not. */
const OPAQUE = new Set(['resourceVersion', 'continue', 'uid', 'token', 'clusterIP']);

function normaliseString(s: string): string {
	if (UID.test(s)) return '<uid>';
	if (TIME.test(s)) return '<time>';
	if (IP.test(s)) return '<ip>';
	return s
		.replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-<x>')
		.replace(/too old resource version: \d+ \(\d+\)/g, 'too old resource version: <rv> (<rv>)')
		.replace(
			/(ResourceVersion in the precondition|ResourceVersion in record) \(\d+\)/g,
			'$1 (<rv>)',
		)
		.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>');
}

/** A JSON value with what must differ replaced by placeholders. */
export function normalise(value: unknown, ns: string): unknown {
	if (typeof value === 'string') return normaliseString(value);
	if (Array.isArray(value)) return value.map((v) => normalise(v, ns));
	if (value === null || typeof value !== 'object') return value;
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(value)) {
		if (OPAQUE.has(k) && typeof v === 'string') out[k] = v === '' ? '' : `<${k}>`;
		else out[k] = normalise(v, ns);
	}
	return out;
}

/** One place where two answers differ. */
export interface Difference {
	/** A JSON path (`body.metadata.labels.x`, `status`). */
	path: string;
	real: string;
	sim: string;
}

function show(v: unknown): string {
	if (v === undefined) return '(absent)';
	const s = JSON.stringify(v);
	return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** Every leaf where `real` and `sim` differ (a missing key on one side is a difference). */
export function diffValues(real: unknown, sim: unknown, path = ''): Difference[] {
	const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
	if (Array.isArray(real) && Array.isArray(sim)) {
		const out: Difference[] = [];
		const n = Math.max(real.length, sim.length);
		for (let i = 0; i < n; i++) out.push(...diffValues(real[i], sim[i], `${path}[${i}]`));
		return out;
	}
	if (isObj(real) && isObj(sim)) {
		const a = real as Record<string, unknown>;
		const b = sim as Record<string, unknown>;
		const out: Difference[] = [];
		for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
			out.push(...diffValues(a[k], b[k], path ? `${path}.${k}` : k));
		return out;
	}
	if (JSON.stringify(real) === JSON.stringify(sim)) return [];
	return [{ path, real: show(real), sim: show(sim) }];
}
