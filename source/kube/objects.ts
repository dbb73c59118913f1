/** Cluster objects as plain JSON, the shape the API serves and the pool model reads. */

/** Object metadata as the API serves it (timestamps are strings). */
export interface KubeMeta {
	name?: string;
	namespace?: string;
	uid?: string;
	resourceVersion?: string;
	generation?: number;
	creationTimestamp?: string;
	deletionTimestamp?: string;
	deletionGracePeriodSeconds?: number;
	labels?: Record<string, string>;
	annotations?: Record<string, string>;
	finalizers?: string[];
	[key: string]: unknown;
}

/** Any namespaced object of the API as plain JSON; compatible with source/pool/objects.ts. */
export interface KubeObject {
	apiVersion?: string;
	kind?: string;
	metadata: KubeMeta;
	[key: string]: unknown;
}

/** The RFC 3339 text of a time as the API writes it: seconds, or milliseconds when present. */
export function formatTime(d: Date): string {
	const iso = d.toISOString();
	return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * A value made plain JSON: client-node's deserialised model instances (with Date fields)
 * become plain objects with string timestamps; plain JSON comes back as it is (no copy).
 */
export function plainObject<T = KubeObject>(value: unknown): T {
	return (needsPlain(value) ? toPlain(value) : value) as T;
}

function needsPlain(value: unknown): boolean {
	if (value === null || typeof value !== 'object') return false;
	if (value instanceof Date) return true;
	if (Array.isArray(value)) return value.some(needsPlain);
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) return true;
	for (const key in value) {
		if (needsPlain((value as Record<string, unknown>)[key])) return true;
	}
	return false;
}

function toPlain(value: unknown): unknown {
	if (value === null || typeof value !== 'object') return value;
	if (value instanceof Date) return formatTime(value);
	if (Array.isArray(value)) return value.map(toPlain);
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		const v = (value as Record<string, unknown>)[key];
		if (v === undefined) continue;
		out[key] = toPlain(v);
	}
	return out;
}

/** The namespace/name key of an object, unique within a kind. */
export function objectKey(obj: KubeObject): string {
	return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}
