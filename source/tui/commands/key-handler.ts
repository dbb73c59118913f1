/** What each key does, given the state: prompts first, then the command the key is bound to. */

import type { Key } from 'ink';
import { identityProblem } from '../../pool/index.js';
import { sanitize } from '../../text/sanitize.js';
import { shownExpiredClaims } from '../model/expired-claims.js';
import { selectedHit } from '../model/find-hits.js';
import { columnTitle } from '../model/member-columns.js';
import { poolColumnTitle } from '../model/pool-columns.js';
import { ofPool } from '../model/pool-index.js';
import {
	MEMBER_SORT_COLUMNS,
	nextSortColumn,
	POOL_SORT_COLUMNS,
	sortLabel,
} from '../model/sorting.js';
import { editLine, lineOf } from '../prompts/line-edit.js';
import type { ConsoleOperations } from '../session/operations.js';
import {
	type BulkAction,
	type BulkMember,
	bulkVerb,
	type ConsoleActions,
	type ConsoleState,
	type ConsoleStore,
	currentPool,
	selectedRow,
	visibleRows,
} from '../store/store.js';
import { blockedReason, targetPool } from './availability.js';
import { bindingOf, Command, commandOf, HELP_GROUPS } from './keys.js';

/** What the key handler acts through. */
export interface KeyContext {
	store: ConsoleStore;
	ops: ConsoleOperations;
	/** Unmounts the app (the runner then reads the store's request). */
	exit(): void;
	/** Rows in a page of the table. */
	pageSize(): number;
	/** The last first line the text of the details, help or log view can scroll to. */
	scrollMax?(): number;
}

/** The maintenance reason a prompt starts with (the admin edits it). */
export function defaultMaintenanceReason(state: ConsoleState): string {
	return `set by ${state.session.actor} in the console`;
}

/** The marked members as a bulk action lists them (in index order), each with why it is skipped. */
export function bulkMembers(state: ConsoleState, action: BulkAction): BulkMember[] {
	const p = currentPool(state);
	const byName = new Map((p?.rows ?? []).map((r) => [r.name, r]));
	const rows = [...state.marks].flatMap((name) => byName.get(name) ?? []);
	rows.sort((a, b) => a.index - b.index);
	return rows.map((r) => {
		let skip = '';
		if (action === 'release' && !r.hasLease) skip = 'no claim';
		else if (action === 'maintenance-on' && r.state === 'Missing') skip = 'does not exist yet';
		else if (action === 'maintenance-off' && !r.maintenance) skip = 'not in maintenance';
		return { name: r.name, holder: r.leaseHolder, skip };
	});
}

/** Scrolls the details, help or log text by delta lines (Infinity: the end). */
function scrollBy(ctx: KeyContext, delta: number): void {
	const s = ctx.store.getState();
	const max = Math.max(0, ctx.scrollMax?.() ?? 0);
	const cur = s.scroll < 0 ? max : Math.min(s.scroll, max);
	const next = Math.max(0, Math.min(max, cur + delta));
	// at the end the log view follows what comes
	s.setScroll(next >= max && delta > 0 ? -1 : next);
}

/** The scroll keys of a text view; true when the command was one. */
function scrollKey(command: Command, ctx: KeyContext): boolean {
	const page = Math.max(1, ctx.pageSize());
	switch (command) {
		case Command.Up:
			scrollBy(ctx, -1);
			return true;
		case Command.Down:
			scrollBy(ctx, 1);
			return true;
		case Command.PageUp:
			scrollBy(ctx, -page);
			return true;
		case Command.PageDown:
			scrollBy(ctx, page);
			return true;
		case Command.Top:
			ctx.store.getState().setScroll(0);
			return true;
		case Command.Bottom:
			ctx.store.getState().setScroll(-1);
			return true;
		default:
			return false;
	}
}

/** The keys of a confirmation over a list: ↑ ↓ PgUp PgDn (k j too, unless typing) scroll it. */
function listScroll(scroll: number, key: Key, input: string, typing: boolean): number | null {
	if (key.upArrow || (!typing && input === 'k')) return scroll - 1;
	if (key.downArrow || (!typing && input === 'j')) return scroll + 1;
	if (key.pageUp) return scroll - 5;
	if (key.pageDown) return scroll + 5;
	return null;
}

/** Keeps a list's first shown line within it. */
function clampScroll(scroll: number, length: number): number {
	return Math.max(0, Math.min(length - 1, scroll));
}

/** The prompt's line after a key press (readline keys; see line-edit.ts), or null. */
function edited<P extends { value: string; cursor?: number }>(
	prompt: P,
	input: string,
	key: Key,
): P | null {
	const line = editLine(lineOf(prompt), input, key);
	return line ? { ...prompt, value: line.value, cursor: line.cursor } : null;
}

/**
 * Quits, or, while an operation runs, asks to quit once it has finished (the status line
 * says so); a second quit abandons it.
 */
export function requestQuit(store: ConsoleStore, exit: () => void): void {
	const s = store.getState();
	if (s.busy && s.request?.kind !== 'finish') {
		s.setRequest({ kind: 'finish' });
		s.setStatus(
			`finishing ${sanitize(s.busy.label)} before quitting; q or Ctrl-C again abandons it (the next reconcile then repairs the member)`,
		);
		return;
	}
	s.setRequest({ kind: s.busy ? 'abandon' : 'quit' });
	exit();
}

/** Opens the selected hit of the find: its pool, and the member's details. */
function openHit(ctx: KeyContext): boolean {
	const s = ctx.store.getState();
	const hit = selectedHit(s);
	if (!hit) return false;
	s.openPool(hit.key);
	if (!hit.member) return true;
	const after = ctx.store.getState();
	after.selectMember(hit.member);
	after.setScreen('details');
	ctx.ops.loadEvents(hit.member);
	return true;
}

function quit(ctx: KeyContext): void {
	requestQuit(ctx.store, ctx.exit);
}

/** The commands that leave the status-line message in place. */
const KEEPS_STATUS: ReadonlySet<Command> = new Set([
	Command.Up,
	Command.Down,
	Command.PageUp,
	Command.PageDown,
	Command.Top,
	Command.Bottom,
	Command.Log,
	Command.Help,
]);

/** ←/→, Tab and Shift-Tab, or a group's number: another group of keys in help; true when it was one. */
function helpGroupKey(s: ConsoleState & ConsoleActions, input: string, key: Key): boolean {
	const n = HELP_GROUPS.length;
	let next: number | null = null;
	if (key.rightArrow || (key.tab && !key.shift)) next = (s.helpGroup + 1) % n;
	else if (key.leftArrow || (key.tab && key.shift)) next = (s.helpGroup + n - 1) % n;
	else if (/^[1-9]$/.test(input) && Number(input) <= n) next = Number(input) - 1;
	if (next === null) return false;
	s.setHelpGroup(next);
	return true;
}

/** Opens the audit screen on what the screen shows: every shown pool, the pool, the member. */
function openAudit(ctx: KeyContext): void {
	const s = ctx.store.getState();
	if (s.screen === 'members' && s.pool) s.openAudit({ pool: s.pool });
	else if (s.screen === 'details' && s.pool) {
		const row = selectedRow(s);
		s.openAudit(row ? { pool: s.pool, member: row.name } : { pool: s.pool });
	} else if (s.screen === 'pools') s.openAudit({});
}

/** Handles one key press. */
export function handleKey(input: string, key: Key, ctx: KeyContext): void {
	const s = ctx.store.getState();
	if (key.ctrl && input === 'c') {
		quit(ctx);
		return;
	}
	const prompt = s.prompt;
	if (prompt) {
		if (prompt.kind === 'filter') {
			// the audit screen has its own filter
			const setFilter = s.screen === 'audit' ? s.setAuditFilter : s.setFilter;
			if (key.escape) {
				setFilter('');
				s.setPrompt(null);
			} else if (key.return) s.setPrompt(null);
			else {
				const next = edited(prompt, input, key);
				if (next) {
					s.setPrompt(next);
					if (next.value !== prompt.value) setFilter(next.value);
				}
			}
			return;
		}
		if (prompt.kind === 'find') {
			if (key.escape) {
				s.setFind('');
				s.setPrompt(null);
			} else if (key.return) {
				s.setPrompt(null);
				if (!openHit(ctx) && s.find.trim())
					s.setStatus(`nothing matches "${s.find.trim()}" (Esc clears the find)`, 'error');
			} else if (key.tab) s.setPrompt(null);
			else if (key.upArrow) s.move(-1);
			else if (key.downArrow) s.move(1);
			else if (key.pageUp) s.move(-Math.max(1, ctx.pageSize()));
			else if (key.pageDown) s.move(Math.max(1, ctx.pageSize()));
			else {
				const next = edited(prompt, input, key);
				if (next) {
					s.setPrompt(next);
					if (next.value !== prompt.value) s.setFind(next.value);
				}
			}
			return;
		}
		if (prompt.kind === 'claim') {
			if (key.escape) {
				s.setPrompt(null);
				s.setStatus('claim cancelled');
			} else if (key.return) {
				const identity = prompt.value.trim();
				const problem = identityProblem(identity);
				const pool = targetPool(s);
				if (problem) s.setPrompt({ ...prompt, error: problem });
				else if (pool) {
					s.setPrompt(null);
					ctx.ops.claim(pool, identity);
				}
			} else {
				const next = edited(prompt, input, key);
				if (next) s.setPrompt({ ...next, error: null });
			}
			return;
		}
		if (prompt.kind === 'maintenance') {
			if (key.escape) {
				s.setPrompt(null);
				s.setStatus(`maintenance of ${prompt.member}${ofPool(targetPool(s) ?? '')} cancelled`);
			} else if (key.return) {
				const pool = targetPool(s);
				s.setPrompt(null);
				if (pool) ctx.ops.maintenance(pool, prompt.member, true, prompt.value.trim());
			} else {
				const next = edited(prompt, input, key);
				if (next) s.setPrompt(next);
			}
			return;
		}
		if (prompt.kind === 'bulk') {
			const scroll = listScroll(prompt.scroll, key, input, prompt.action === 'maintenance-on');
			if (scroll !== null) {
				s.setPrompt({ ...prompt, scroll: clampScroll(scroll, prompt.members.length) });
				return;
			}
			const acting = prompt.members.filter((m) => !m.skip).map((m) => m.name);
			const accept =
				prompt.action === 'maintenance-on' ? key.return : input === 'y' || input === 'Y';
			const cancel =
				key.escape || (prompt.action !== 'maintenance-on' && (input === 'n' || input === 'N'));
			if (accept) {
				s.setPrompt(null);
				const pool = targetPool(s);
				if (pool) ctx.ops.bulk(pool, prompt.action, acting, prompt.value.trim());
			} else if (cancel) {
				s.setPrompt(null);
				s.setStatus(`${bulkVerb(prompt.action)}: cancelled (${acting.length} marked)`);
			} else if (prompt.action === 'maintenance-on') {
				const next = edited(prompt, input, key);
				if (next) s.setPrompt(next);
			}
			return;
		}
		if (prompt.kind === 'expired') {
			const scroll = listScroll(prompt.scroll, key, input, false);
			if (scroll !== null)
				s.setPrompt({ ...prompt, scroll: clampScroll(scroll, prompt.claims.length) });
			else if (input === 'y' || input === 'Y') {
				s.setPrompt(null);
				ctx.ops.releaseExpired(prompt.claims);
			} else if (input === 'n' || input === 'N' || key.escape) {
				s.setPrompt(null);
				s.setStatus(`release of ${prompt.claims.length} expired claims: cancelled`);
			}
			return;
		}
		if (prompt.kind !== 'release') return;
		// the release confirm: y accepts, n or Esc cancels, anything else is ignored
		if (input === 'y' || input === 'Y') {
			s.setPrompt(null);
			const pool = targetPool(s);
			if (pool) ctx.ops.release(pool, prompt.member);
		} else if (input === 'n' || input === 'N' || key.escape) {
			s.setPrompt(null);
			s.setStatus(`release of ${prompt.member}${ofPool(targetPool(s) ?? '')} cancelled`);
		}
		return;
	}

	if (s.screen === 'help' && helpGroupKey(s, input, key)) return;
	const command = commandOf(input, key);
	if (!command) return;
	if (s.screen === 'help') {
		if (command === Command.Back || command === Command.Help) s.setScreen(s.helpReturn);
		else if (command === Command.Quit) quit(ctx);
		else scrollKey(command, ctx);
		return;
	}
	if (s.screen === 'logs') {
		if (command === Command.Back) {
			ctx.ops.stopLog();
			s.setPodLog(null);
			s.setScreen(s.logReturn);
		} else if (command === Command.Previous && s.podLog) {
			const previous = !s.podLog.previous;
			s.setScroll(-1);
			ctx.ops.followLog(s.podLog.member, previous);
		} else if (command === Command.Help) s.setScreen('help');
		else if (command === Command.Log) s.toggleLog();
		else if (command === Command.Quit) quit(ctx);
		else if (!scrollKey(command, ctx))
			s.setStatus(`${bindingOf(command).hint}: not in the log view (Esc returns)`);
		return;
	}
	if ((s.screen === 'details' || s.screen === 'trace') && scrollKey(command, ctx)) return;
	// the next action (Esc included) dismisses the message of the last one; moving, the log and
	// help do not
	if (!KEEPS_STATUS.has(command)) s.clearStatus();
	const blocked = blockedReason(s, command);
	if (blocked) {
		const text = `${bindingOf(command).hint}: ${blocked}`;
		s.setStatus(text, 'error');
		s.logEvent({
			time: s.now,
			actor: s.session.actor,
			pool: targetPool(s) ?? '',
			action: bindingOf(command).hint,
			outcome: 'error',
			message: blocked,
		});
		return;
	}
	const row = selectedRow(s);
	const pool = targetPool(s);
	switch (command) {
		case Command.Up:
			s.move(-1);
			return;
		case Command.Down:
			s.move(1);
			return;
		case Command.PageUp:
			s.move(-Math.max(1, ctx.pageSize()));
			return;
		case Command.PageDown:
			s.move(Math.max(1, ctx.pageSize()));
			return;
		case Command.Top:
			s.moveTo('top');
			return;
		case Command.Bottom:
			s.moveTo('bottom');
			return;
		case Command.PrevMember:
		case Command.NextMember: {
			s.move(command === Command.PrevMember ? -1 : 1);
			const next = selectedRow(ctx.store.getState());
			s.setScroll(0);
			if (next && next.name !== row?.name) ctx.ops.loadEvents(next.name);
			return;
		}
		case Command.Sort:
		case Command.Reverse: {
			const onPools = s.screen === 'pools';
			if (command === Command.Reverse)
				s.setSort({ reverse: !(onPools ? s.poolSort : s.memberSort).reverse });
			else if (onPools) s.setSort({ column: nextSortColumn(POOL_SORT_COLUMNS, s.poolSort.column) });
			else s.setSort({ column: nextSortColumn(MEMBER_SORT_COLUMNS, s.memberSort.column) });
			const after = ctx.store.getState();
			s.setStatus(
				onPools
					? sortLabel(poolColumnTitle(after.poolSort.column), after.poolSort)
					: sortLabel(columnTitle(after.memberSort.column), after.memberSort),
			);
			return;
		}
		case Command.Mark:
			if (row) s.setMarks([row.name], !s.marks.has(row.name));
			return;
		case Command.MarkExpired: {
			if (s.screen === 'pools') {
				confirmExpired(s);
				return;
			}
			const expired = visibleRows(s).filter((r) => r.claimExpired && !r.reconciling);
			s.setMarks(
				expired.map((r) => r.name),
				true,
			);
			s.setStatus(
				expired.length > 0
					? `marked ${expired.length} member${expired.length > 1 ? 's' : ''} whose claim expired (x force-releases every mark)`
					: s.filter
						? 'no member the filter shows has an expired claim'
						: 'no member has an expired claim',
			);
			return;
		}
		case Command.Unmark: {
			const n = s.marks.size;
			s.clearMarks();
			s.setStatus(n > 0 ? `unmarked ${n}` : 'nothing is marked');
			return;
		}
		case Command.ContainerLog:
			if (row) {
				s.setPodLog({
					member: row.name,
					previous: false,
					phase: 'connecting',
					lines: [],
					dropped: 0,
					error: null,
				});
				s.setScreen('logs');
				ctx.ops.followLog(row.name, false);
			}
			return;
		case Command.Open:
			if (s.screen === 'pools' && s.find) openHit(ctx);
			else if (s.screen === 'pools') {
				if (pool) s.openPool(pool);
			} else if (s.screen === 'members' && row) {
				s.selectMember(row.name);
				s.setScreen('details');
				ctx.ops.loadEvents(row.name);
			}
			return;
		case Command.Back:
			if (s.screen === 'pools' && s.find) s.setFind('');
			else if (s.screen === 'audit') {
				if (s.auditView.filter) s.setAuditFilter('');
				else s.setScreen(s.auditView.back);
			} else if (s.screen === 'trace') s.setScreen(s.traceView.back);
			else if (s.screen === 'details') s.setScreen('members');
			else if (s.screen === 'members') {
				if (s.filter) s.setFilter('');
				else {
					s.clearTraceMarks();
					s.setScreen('pools');
				}
			}
			return;
		case Command.Filter:
			if (s.screen === 'pools') s.setPrompt({ kind: 'find', value: s.find });
			else
				s.setPrompt({
					kind: 'filter',
					value: s.screen === 'audit' ? s.auditView.filter : s.filter,
				});
			return;
		case Command.Audit:
			openAudit(ctx);
			return;
		case Command.Trace: {
			const pool = targetPool(s);
			if (pool) s.openTrace(pool);
			return;
		}
		case Command.Claim:
			s.setPrompt({ kind: 'claim', value: s.session.identity, error: null });
			return;
		case Command.Release:
			if (s.screen === 'members' && s.marks.size > 0) {
				openBulk(s, 'release');
				return;
			}
			if (row)
				s.setPrompt({
					kind: 'release',
					member: row.name,
					holder: row.leaseHolder,
					...(row.leaseProblem ? { stranded: row.leaseProblem } : {}),
				});
			return;
		case Command.Reconcile:
			if (pool) ctx.ops.reconcile(pool);
			return;
		case Command.Loop:
			ctx.ops.toggleLoop(pool);
			return;
		case Command.Maintenance:
			if (s.screen === 'members' && s.marks.size > 0) {
				const marked = bulkMembers(s, 'maintenance-on');
				const anyOff = marked.some((m) => !m.skip && !isInMaintenance(s, m.name));
				openBulk(s, anyOff ? 'maintenance-on' : 'maintenance-off');
				return;
			}
			if (row && pool) {
				if (row.maintenance) ctx.ops.maintenance(pool, row.name, false);
				else
					s.setPrompt({
						kind: 'maintenance',
						member: row.name,
						value: defaultMaintenanceReason(s),
					});
			}
			return;
		case Command.Console:
			if (row) {
				s.setRequest({ kind: 'console', member: row.name });
				ctx.exit();
			}
			return;
		case Command.Log:
			s.toggleLog();
			return;
		case Command.Help:
			s.setScreen('help');
			return;
		case Command.Quit:
			quit(ctx);
			return;
	}
}

/** `*` on the pools screen: one confirmation of every expired claim shown, or why there is none. */
function confirmExpired(s: ConsoleState & ConsoleActions): void {
	const claims = shownExpiredClaims(s);
	if (claims.length === 0) {
		s.setStatus(
			s.find.trim()
				? `no member the find shows has an expired claim`
				: 'no member of the shown pools has an expired claim',
		);
		return;
	}
	s.setPrompt({ kind: 'expired', claims, scroll: 0 });
}

function isInMaintenance(state: ConsoleState, member: string): boolean {
	const p = currentPool(state);
	const i = p?.positions.get(member);
	return i !== undefined && Boolean(p?.rows[i]?.maintenance);
}

/** Opens the one confirmation of a bulk action, or says why there is nothing to act on. */
function openBulk(s: ConsoleState & ConsoleActions, action: BulkAction): void {
	const members = bulkMembers(s, action);
	if (!members.some((m) => !m.skip)) {
		const why =
			action === 'release'
				? 'none of the marked members has a claim'
				: action === 'maintenance-on'
					? 'none of the marked members exists yet'
					: 'none of the marked members is in maintenance';
		s.setStatus(`${bulkVerb(action)}: ${why}`, 'error');
		return;
	}
	s.setPrompt({
		kind: 'bulk',
		action,
		members,
		value: action === 'maintenance-on' ? defaultMaintenanceReason(s) : '',
		scroll: 0,
	});
}
