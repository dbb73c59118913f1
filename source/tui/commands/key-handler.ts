/**
 * What a key does: an open prompt gets it (one handler per kind of prompt), else the command
 * the key is bound to is looked up, checked (read-only, RBAC, what is selected) and run.
 */

import type { Key } from 'ink';
import { promptKey } from '../prompts/prompt-handlers.js';
import type { Screen } from '../store/store.js';
import { blockedReasonOf } from './availability.js';
import { type CommandRecord, type ConsoleApi, type KeyContext, targetPool } from './command.js';
import { commandOf, HELP_GROUPS } from './keys.js';
import { quit, requestQuit } from './quit.js';
import { recordOf } from './registry.js';

export { bulkMembers, defaultMaintenanceReason } from './bulk.js';
export type { KeyContext };
export { requestQuit };

/** ←/→, Tab and Shift-Tab, or a group's number: another group of keys in help; true when it was one. */
function helpGroupKey(s: ConsoleApi, input: string, key: Key): boolean {
	const n = HELP_GROUPS.length;
	let next: number | null = null;
	if (key.rightArrow || (key.tab && !key.shift)) next = (s.helpGroup + 1) % n;
	else if (key.leftArrow || (key.tab && key.shift)) next = (s.helpGroup + n - 1) % n;
	else if (/^[1-9]$/.test(input) && Number(input) <= n) next = Number(input) - 1;
	if (next === null) return false;
	s.setHelpGroup(next);
	return true;
}

/**
 * The screens that take only their own keys and leave the message alone: a key that does
 * not act there is ignored (help) or answered (the log view, the text view).
 */
const OWN_KEYS: Partial<Record<Screen, (hint: string) => string | null>> = {
	help: () => null,
	logs: (hint) => `${hint}: not in the log view (Esc returns)`,
	text: (hint) => `${hint}: not in this view (Esc returns)`,
};

/** Refuses a command that cannot run now: the status line and the activity log say why. */
function refuse(s: ConsoleApi, record: CommandRecord, why: string): void {
	s.setStatus(`${record.hint}: ${why}`, 'error');
	s.logEvent({
		time: s.now,
		actor: s.session.actor,
		pool: targetPool(s) ?? '',
		action: record.hint,
		outcome: 'error',
		message: why,
	});
}

/** Runs the command a key is bound to, on a screen that takes only its own keys. */
function ownKey(s: ConsoleApi, record: CommandRecord, ctx: KeyContext): void {
	if (record.screens.includes(s.screen)) record.run(ctx);
	else {
		const why = OWN_KEYS[s.screen]?.(record.hint);
		if (why) s.setStatus(why);
	}
}

/** Checks a command, then runs it; the next action (Esc included) dismisses the last message. */
function checkedRun(s: ConsoleApi, record: CommandRecord, ctx: KeyContext): void {
	// moving, the log and help leave the message in place
	if (!record.keepsStatus) s.clearStatus();
	const blocked = blockedReasonOf(s, record);
	if (blocked) refuse(s, record, blocked);
	else record.run(ctx);
}

/** Handles one key press. */
export function handleKey(input: string, key: Key, ctx: KeyContext): void {
	const s = ctx.store.getState();
	if (key.ctrl && input === 'c') quit.run(ctx);
	else if (s.prompt) promptKey(s.prompt, input, key, ctx);
	else if (s.screen === 'help' && helpGroupKey(s, input, key)) return;
	else {
		const command = commandOf(input, key, s);
		if (!command) return;
		const record = recordOf(command);
		if (OWN_KEYS[s.screen]) ownKey(s, record, ctx);
		else checkedRun(s, record, ctx);
	}
}
