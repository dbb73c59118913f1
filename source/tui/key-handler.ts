/** What each key does, given the state: prompts first, then the command the key is bound to. */

import type { Key } from 'ink';
import { identityProblem } from '../pool/index.js';
import { sanitize } from '../text/sanitize.js';
import { blockedReason, targetPool } from './availability.js';
import { selectedHit } from './find-hits.js';
import { bindingOf, Command, commandOf } from './keys.js';
import type { ConsoleOperations } from './operations.js';
import { type ConsoleStore, selectedRow } from './store.js';

/** What the key handler acts through. */
export interface KeyContext {
	store: ConsoleStore;
	ops: ConsoleOperations;
	/** Unmounts the app (the runner then reads the store's request). */
	exit(): void;
	/** Rows in a page of the table. */
	pageSize(): number;
}

function isPrintable(input: string, key: Key): boolean {
	return (
		input.length > 0 &&
		!key.ctrl &&
		!key.meta &&
		!key.return &&
		!key.escape &&
		!key.tab &&
		!/[\u0000-\u001f\u007f]/.test(input)
	);
}

function editText(value: string, input: string, key: Key): string | null {
	if (key.backspace || key.delete) return value.slice(0, -1);
	if (isPrintable(input, key)) return value + sanitize(input);
	return null;
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
				const value = editText(prompt.value, input, key);
				if (value !== null) {
					s.setPrompt({ kind: 'filter', value });
					setFilter(value);
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
			} else if (key.upArrow) s.move(-1);
			else if (key.downArrow) s.move(1);
			else if (key.pageUp) s.move(-Math.max(1, ctx.pageSize()));
			else if (key.pageDown) s.move(Math.max(1, ctx.pageSize()));
			else {
				const value = editText(prompt.value, input, key);
				if (value !== null) {
					s.setPrompt({ kind: 'find', value });
					s.setFind(value);
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
				const value = editText(prompt.value, input, key);
				if (value !== null) s.setPrompt({ kind: 'claim', value, error: null });
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
			s.setStatus(`release of ${prompt.member} cancelled`);
		}
		return;
	}

	const command = commandOf(input, key);
	if (!command) return;
	if (s.screen === 'help') {
		if (command === Command.Back || command === Command.Help) s.setScreen(s.helpReturn);
		else if (command === Command.Quit) quit(ctx);
		return;
	}
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
			} else if (s.screen === 'details') s.setScreen('members');
			else if (s.screen === 'members') {
				if (s.filter) s.setFilter('');
				else s.setScreen('pools');
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
		case Command.Claim:
			s.setPrompt({ kind: 'claim', value: s.session.identity, error: null });
			return;
		case Command.Release:
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
			if (row && pool) ctx.ops.maintenance(pool, row.name, !row.maintenance);
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
