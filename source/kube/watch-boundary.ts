/**
 * The boundary of a pool watch's batches: every object passes readObject (pool/object-shape.ts)
 * before a consumer (the console's store, the reconciler's cache) sees it. An object that
 * does not read is left out, and named in a problem; one that was readable before and is not
 * now goes from the consumer as if deleted. The rest of the batch goes on as it came.
 */

import { POOL_LABEL } from '../pool/names.js';
import { readObject } from '../pool/object-shape.js';
import { MadeAhead } from './made-ahead.js';
import type { KubeObject } from './objects.js';
import type { WatchChange, WatchKind } from './pool-watch.js';

/** An object of a batch that did not read. */
export interface ObjectProblem {
	kind: WatchKind;
	/** Its namespace and name ('' when unreadable). */
	namespace: string;
	name: string;
	/** Its pool label, when it has a readable one ('' otherwise). */
	pool: string;
	/** What is wrong: `Pod corral/desk-1: status.conditions is not a list`. */
	problem: string;
}

/** A batch with its unreadable objects left out, and their problems. */
export interface ReadBatch {
	changes: WatchChange[];
	problems: ObjectProblem[];
}

function text(o: unknown, key: string): string {
	const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
	return typeof v === 'string' ? v : '';
}

/** The parts of an unreadable object that name it, each checked. */
function whereOf(
	raw: unknown,
): Pick<ObjectProblem, 'namespace' | 'name' | 'pool'> & { meta: boolean } {
	const meta = raw && typeof raw === 'object' ? (raw as { metadata?: unknown }).metadata : null;
	const labels = meta && typeof meta === 'object' ? (meta as { labels?: unknown }).labels : null;
	return {
		meta: Boolean(meta && typeof meta === 'object' && !Array.isArray(meta)),
		namespace: text(meta, 'namespace').slice(0, 253),
		name: text(meta, 'name').slice(0, 253),
		pool: text(labels, POOL_LABEL).slice(0, 63),
	};
}

/** Reads made ahead of their batch (readAhead): null when the object read, else its problem. */
const readsAhead = new MadeAhead<string | null>();

/**
 * Reads the objects of a list page as it arrives (a pool watch's onListPage), so that the
 * batch of the list (readBatch) finds them read: the reading is done while the server makes
 * the next page, not after the last. Returns the objects that read.
 */
export function readAhead(kind: WatchKind, objects: readonly unknown[]): object[] {
	const readable: object[] = [];
	for (const raw of objects) {
		if (raw === null || typeof raw !== 'object') continue;
		const read = readObject(kind, raw);
		readsAhead.put(kind, raw, read.ok ? null : read.problem);
		if (read.ok) readable.push(raw);
	}
	return readable;
}

/** An object's problem (null: it reads): the read made ahead (taken: made once), else made now. */
function problemOf(kind: WatchKind, raw: unknown): string | null {
	if (raw !== null && typeof raw === 'object') {
		const ahead = readsAhead.take(kind, raw);
		if (ahead !== undefined) return ahead;
	}
	const read = readObject(kind, raw);
	return read.ok ? null : read.problem;
}

/**
 * Reads a batch (see the file's comment). A reset keeps its readable objects; an upsert of an
 * unreadable object becomes a delete of its name (when it has one); a delete needs only a
 * readable name. Never throws.
 */
export function readBatch(changes: readonly WatchChange[]): ReadBatch {
	const out: WatchChange[] = [];
	const problems: ObjectProblem[] = [];
	const check = (kind: WatchKind, raw: unknown): KubeObject | null => {
		const problem = problemOf(kind, raw);
		if (problem === null) return raw as KubeObject;
		const { meta: _, ...where } = whereOf(raw);
		problems.push({ kind, ...where, problem });
		return null;
	};
	for (const change of changes) {
		if (change.op === 'reset') {
			const objects = Array.isArray(change.objects) ? change.objects : [];
			const kept: KubeObject[] = [];
			for (const raw of objects) {
				const o = check(change.kind, raw);
				if (o) kept.push(o);
			}
			out.push({ kind: change.kind, op: 'reset', objects: kept });
			continue;
		}
		if (change.op === 'upsert') {
			const o = check(change.kind, change.object);
			if (o) out.push(change);
			else {
				const w = whereOf(change.object);
				if (w.name)
					out.push({
						kind: change.kind,
						op: 'delete',
						object: { metadata: { name: w.name, namespace: w.namespace } },
					});
			}
			continue;
		}
		const w = whereOf(change.object);
		if (w.meta && w.name)
			out.push({
				kind: change.kind,
				op: 'delete',
				object: readObject(change.kind, change.object).ok
					? change.object
					: { metadata: { name: w.name, namespace: w.namespace } },
			});
	}
	return { changes: out, problems };
}
