/** The source hash: which image and resources a member was built from. */

import { createHash } from 'node:crypto';
import { SOURCE_FIELDS, type SourceFields } from './spec.js';

/** The source fields as JSON with sorted keys: the text the hash is taken over. */
export function sourceJson(src: SourceFields): string {
	const sorted: Record<string, unknown> = {};
	for (const key of SOURCE_FIELDS) sorted[key] = src[key];
	return JSON.stringify(sorted);
}

/** First 16 hex digits of SHA-256 over the sorted JSON of the seven source fields. */
export function sourceHash(src: SourceFields): string {
	return createHash('sha256').update(sourceJson(src)).digest('hex').slice(0, 16);
}

/** What differs between the source a member was built from and the pool's, e.g. `image a -> b`. */
export function describeDrift(member: Partial<SourceFields> | null, pool: SourceFields): string[] {
	if (!member) return [];
	const out: string[] = [];
	for (const key of SOURCE_FIELDS) {
		const was = member[key];
		if (was === undefined) continue;
		if (was !== pool[key]) out.push(`${key} ${fmt(was)} -> ${fmt(pool[key])}`);
	}
	return out;
}

function fmt(v: unknown): string {
	return v === '' ? '""' : String(v);
}
