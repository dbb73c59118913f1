/**
 * What changed between the source a member was built from and the pool's: only the fields
 * that really differ, values compared normalised (quantities by value, image references in
 * their full form, a StorageClass the API server filled in for "the cluster default" as that
 * default), the most important first: image, then the resources, then the rest. One text for
 * the console's table and details, `ctpool status`, the status JSON and the audit.
 */

import { parseQuantity } from './quantity.js';
import { sourceHash } from './source-hash.js';
import { SOURCE_FIELDS_BY_WEIGHT, type SourceFields } from './spec.js';

/** The source fields in the order drift names them: image, resources, the rest. */
const DRIFT_ORDER = SOURCE_FIELDS_BY_WEIGHT;

/**
 * An image reference in its full form, as a container runtime reads it: the registry
 * docker.io when none is named, `library/` for its one-part names, the tag latest when
 * neither tag nor digest is given. `busybox` and `docker.io/library/busybox:latest` are one
 * image.
 */
export function normaliseImage(ref: string): string {
	const at = ref.indexOf('@');
	const name = at >= 0 ? ref.slice(0, at) : ref;
	const digest = at >= 0 ? ref.slice(at) : '';
	const slash = name.indexOf('/');
	const first = slash >= 0 ? name.slice(0, slash) : '';
	const hasDomain =
		first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
	let domain = hasDomain ? first : 'docker.io';
	let path = hasDomain ? name.slice(slash + 1) : name;
	if (domain === 'index.docker.io') domain = 'docker.io';
	const colon = path.lastIndexOf(':');
	const tag = colon >= 0 ? path.slice(colon) : '';
	if (colon >= 0) path = path.slice(0, colon);
	if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
	return `${domain}/${path}${tag || digest ? tag : ':latest'}${digest}`;
}

function sameQuantity(a: unknown, b: unknown): boolean {
	const x = parseQuantity(String(a));
	const y = parseQuantity(String(b));
	return x !== null && y !== null ? x === y : String(a) === String(b);
}

/**
 * The StorageClass a member was built from, as written in its definition. A PVC made for "the
 * cluster default" (an empty storageClass) carries the default's name once the API server
 * admitted it; the member's source hash tells which was written. Undefined when the hash
 * cannot tell (then a named class and the default are taken as the same).
 */
function writtenStorageClass(
	member: Partial<SourceFields>,
	memberHash: string | undefined,
): string | undefined {
	const seen = member.storageClass;
	if (seen === undefined || !memberHash) return undefined;
	const base = { ...member } as SourceFields;
	if (DRIFT_ORDER.some((k) => base[k] === undefined)) return undefined;
	// the default first: what a definition leaves empty most often
	for (const storageClass of seen === '' ? [''] : ['', seen]) {
		// cpu is hashed as written: a number or a string of one
		for (const cpu of [String(base.cpu), Number(base.cpu)])
			if (sourceHash({ ...base, cpu, storageClass }) === memberHash) return storageClass;
	}
	return undefined;
}

function sameStorageClass(
	member: Partial<SourceFields>,
	pool: SourceFields,
	memberHash: string | undefined,
): boolean {
	const seen = member.storageClass ?? '';
	if (seen === pool.storageClass) return true;
	const written = writtenStorageClass(member, memberHash);
	if (written !== undefined) return written === pool.storageClass;
	// the default's name is not known here: an empty side matches any class
	return seen === pool.storageClass || seen === '' || pool.storageClass === '';
}

function same(
	key: (typeof DRIFT_ORDER)[number],
	member: Partial<SourceFields>,
	pool: SourceFields,
	memberHash: string | undefined,
): boolean {
	const was = member[key];
	switch (key) {
		case 'image':
			return normaliseImage(String(was)) === normaliseImage(pool.image);
		case 'cpu':
		case 'memory':
		case 'disk':
			return sameQuantity(was, pool[key]);
		case 'storageClass':
			return sameStorageClass(member, pool, memberHash);
		default:
			return was === pool[key];
	}
}

function shown(key: (typeof DRIFT_ORDER)[number], v: unknown): string {
	if (key === 'storageClass' && v === '') return '(cluster default)';
	return v === '' ? '""' : String(v);
}

/**
 * What differs between the source a member was built from and the pool's, one entry per
 * field that really differs, in DRIFT_ORDER: `image desktop:1 -> desktop:2`, `memory 12Gi ->
 * 6Gi`. A field the member's record does not hold is not compared. memberHash (the member's
 * source label) settles whether a named StorageClass was written or filled in for the
 * default. Empty when nothing differs.
 */
export function describeDrift(
	member: Partial<SourceFields> | null,
	pool: SourceFields,
	memberHash?: string,
): string[] {
	if (!member) return [];
	const out: string[] = [];
	for (const key of DRIFT_ORDER) {
		if (member[key] === undefined || same(key, member, pool, memberHash)) continue;
		const was =
			key === 'storageClass'
				? (writtenStorageClass(member, memberHash) ?? member[key])
				: member[key];
		out.push(`${key} ${shown(key, was)} -> ${shown(key, pool[key])}`);
	}
	return out;
}
