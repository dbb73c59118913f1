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
