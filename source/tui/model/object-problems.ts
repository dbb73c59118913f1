/**
 * The watched objects the console cannot read (see kube/watch-boundary.ts): each named with
 * its problem while it lasts, so that the console says which object is at fault and shows
 * the rest.
 */

import type { WatchChange } from '../../kube/pool-watch.js';
import type { ObjectProblem } from '../../kube/watch-boundary.js';
import { bounded } from '../../text/sanitize.js';

/** The most unreadable objects the console names at once (the rest are counted). */
export const OBJECT_PROBLEMS_MAX = 100;

function idOf(kind: string, namespace: string, name: string): string {
	return `${kind}\u0000${namespace}\u0000${name}`;
}

function metaOf(o: unknown): { namespace: string; name: string } {
	const m = o && typeof o === 'object' ? (o as { metadata?: unknown }).metadata : undefined;
	const get = (k: string) => {
		const v = m && typeof m === 'object' ? (m as Record<string, unknown>)[k] : undefined;
		return typeof v === 'string' ? v.slice(0, 253) : '';
	};
	return { namespace: get('namespace'), name: get('name') };
}

/** The unreadable objects now, by kind, namespace and name. */
export class ObjectProblems {
	private readonly byId = new Map<string, ObjectProblem>();

	/**
	 * Takes a read batch: objects it holds readable (or deleted) are no problem any more; its
	 * problems are added. Returns the problems that are new (or changed), to be told. With no
	 * problem before or in the batch (the common case: every list of a start-up) there is
	 * nothing to look up.
	 */
	apply(changes: readonly WatchChange[], problems: readonly ObjectProblem[]): ObjectProblem[] {
		if (this.byId.size === 0 && problems.length === 0) return [];
		const before = new Map(this.byId);
		for (const c of changes) {
			if (c.op === 'reset') {
				for (const [id, p] of this.byId) if (p.kind === c.kind) this.byId.delete(id);
				continue;
			}
			const { namespace, name } = metaOf(c.object);
			this.byId.delete(idOf(c.kind, namespace, name));
		}
		const fresh: ObjectProblem[] = [];
		for (const p of problems) {
			const id = idOf(p.kind, p.namespace, p.name);
			if (before.get(id)?.problem !== p.problem) fresh.push(p);
			this.byId.set(id, p);
		}
		return fresh;
	}

	/** How many objects are unreadable now. */
	get size(): number {
		return this.byId.size;
	}

	/** The problems now, made inert for the terminal, sorted, at most OBJECT_PROBLEMS_MAX. */
	lines(): string[] {
		return [...this.byId.values()]
			.map((p) => problemLine(p))
			.sort()
			.slice(0, OBJECT_PROBLEMS_MAX);
	}
}

/** One problem as the console tells it: what is wrong, and that the object is left out. */
export function problemLine(p: ObjectProblem): string {
	return `${bounded(p.problem, 400)}; the console leaves it out until it reads`;
}
