/**
 * The audit screen's lines: the console's audit trail narrowed to the screen's scope (all
 * shown pools, a pool, a member) and to the filter typed after `/`. The filter is words:
 * `pool:P` (`pool:NS/P` across namespaces), `ns:NS`, `member:M`, `identity:I` (also `id:` and `by:`; the actor, the holder or the
 * identity named), `action:A` (`force-release` for forced releases), `since:30m`; any other
 * word must appear in the line (pool, member, holder, actor, identity, action, note), case
 * ignored.
 */

import {
	type AuditEntry,
	type AuditFilter,
	auditMatches,
	DEFAULT_EVENT_TTL_MS,
} from '../../pool/audit.js';
import { durationMs } from '../../text/age.js';
import type { AuditScope, ConsoleState } from '../store/store.js';
import { poolKey, splitPoolKey } from './pool-index.js';

/** A parsed audit filter: the exact fields, the free words, and what did not parse. */
export interface ParsedAuditFilter {
	fields: AuditFilter;
	/** Since how long ago (ms), for `since:`. */
	sinceMs?: number;
	words: string[];
	/** A word that is not understood (`since:yesterday`), shown to the user; else ''. */
	problem: string;
}

const KEYS: Record<string, 'namespace' | 'pool' | 'member' | 'identity' | 'action' | 'since'> = {
	ns: 'namespace',
	namespace: 'namespace',
	pool: 'pool',
	member: 'member',
	identity: 'identity',
	id: 'identity',
	by: 'identity',
	action: 'action',
	since: 'since',
};

/** Parses the filter text. */
export function parseAuditFilter(text: string): ParsedAuditFilter {
	const out: ParsedAuditFilter = { fields: {}, words: [], problem: '' };
	for (const word of text.trim().split(/\s+/)) {
		if (!word) continue;
		const m = /^([a-z]+):(.*)$/.exec(word);
		const key = m ? KEYS[m[1]!] : undefined;
		if (!m || !key) {
			out.words.push(word.toLowerCase());
			continue;
		}
		const value = m[2]!;
		if (key === 'since') {
			const ms = durationMs(value);
			if (ms === null) out.problem = `since:${value} is not a duration (use 30m, 2h)`;
			else out.sinceMs = ms;
		} else if (key === 'pool' && value.includes('/')) {
			// pool:team-b/desk names the namespace too (-A shows pools so)
			const { namespace, pool } = splitPoolKey(value);
			if (namespace) out.fields.namespace = namespace;
			if (pool) out.fields.pool = pool;
		} else if (value) out.fields[key] = value;
	}
	return out;
}

function haystack(e: AuditEntry): string {
	return [
		e.namespace,
		e.pool,
		e.member,
		e.target,
		e.holder,
		e.actor,
		e.identity,
		e.action,
		e.force ? '--force' : '',
		e.message,
	]
		.join('\n')
		.toLowerCase();
}

/**
 * The lines of a scope that pass a filter, newest first (the entries' order). The scope's
 * pool is a pool key: `namespace/pool` when the console watches every namespace.
 */
export function filterAudit(
	entries: readonly AuditEntry[],
	scope: AuditScope,
	filterText: string,
	now: number,
	allNamespaces = false,
): AuditEntry[] {
	const f = parseAuditFilter(filterText);
	const fields: AuditFilter = { ...f.fields };
	if (f.sinceMs !== undefined) fields.since = now - f.sinceMs;
	return entries.filter(
		(e) =>
			(scope.pool === undefined ||
				poolKey(allNamespaces ? e.namespace : null, e.pool) === scope.pool) &&
			(scope.member === undefined || e.member === scope.member) &&
			auditMatches(e, fields) &&
			(f.words.length === 0 ||
				(() => {
					const h = haystack(e);
					return f.words.every((w) => h.includes(w));
				})()),
	);
}

/**
 * The last lines of the audit screen for each entries array (the feed replaces it on every
 * change), so two stores never share or evict each other's answers.
 */
const linesMemo = new WeakMap<
	readonly AuditEntry[],
	{ scope: AuditScope; filter: string; minute: number; all: boolean; lines: AuditEntry[] }
>();

/** The audit screen's lines for a state (remembered while nothing they depend on changes). */
export function auditLines(
	state: Pick<ConsoleState, 'audit' | 'auditView' | 'now' | 'session'>,
): readonly AuditEntry[] {
	const { entries } = state.audit;
	const { scope, filter } = state.auditView;
	// `since:` moves with the clock: a minute is fine enough for it
	const minute = Math.floor(state.now / 60_000);
	const all = state.session.allNamespaces;
	const memo = linesMemo.get(entries);
	if (
		memo &&
		memo.scope === scope &&
		memo.filter === filter &&
		memo.minute === minute &&
		memo.all === all
	)
		return memo.lines;
	const lines = filterAudit(entries, scope, filter, state.now, all);
	linesMemo.set(entries, { scope, filter, minute, all, lines });
	return lines;
}

/** The refused claims by pool for each entries array (see linesMemo). */
const refusedMemo = new WeakMap<
	readonly AuditEntry[],
	{ minute: number; all: boolean; byPool: ReadonlyMap<string, number> }
>();

/**
 * Claims refused over the last hour, by pool; null when Events cannot be read, undefined
 * while they are being read.
 */
export function refusedByPool(
	state: Pick<ConsoleState, 'audit' | 'now' | 'session'>,
): ReadonlyMap<string, number> | null | undefined {
	const { audit } = state;
	if (audit.status === 'denied') return null;
	if (audit.status === 'off' || (audit.status === 'loading' && audit.entries.length === 0))
		return undefined;
	const minute = Math.floor(state.now / 60_000);
	const all = state.session.allNamespaces;
	const memo = refusedMemo.get(audit.entries);
	if (memo && memo.minute === minute && memo.all === all) return memo.byPool;
	const since = state.now - DEFAULT_EVENT_TTL_MS;
	const byPool = new Map<string, number>();
	for (const e of audit.entries)
		if (e.action === 'claim-refused' && e.time >= since) {
			// by pool key: across namespaces (-A) the same name may be two pools
			const key = poolKey(all ? e.namespace : null, e.pool);
			byPool.set(key, (byPool.get(key) ?? 0) + e.count);
		}
	refusedMemo.set(audit.entries, { minute, all, byPool });
	return byPool;
}

/** The claims refused over the last hour in one pool (null: unreadable; undefined: not read yet). */
export function refusedIn(
	state: Pick<ConsoleState, 'audit' | 'now' | 'session'>,
	pool: string,
): number | null | undefined {
	const byPool = refusedByPool(state);
	return byPool ? (byPool.get(pool) ?? 0) : byPool;
}
