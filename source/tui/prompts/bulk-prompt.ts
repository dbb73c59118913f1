/**
 * The one confirmation of an action on every marked member: the list scrolls; y accepts and
 * n or Esc cancels, except for maintenance on, whose reason is typed (Enter accepts, Esc
 * cancels).
 */

import { targetPool } from '../commands/command.js';
import { bulkVerb } from '../store/store.js';
import { edited, isNo, isYes, listScroll, type PromptHandler } from './prompt-keys.js';

export const bulkPrompt: PromptHandler<'bulk'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
	const typing = prompt.action === 'maintenance-on';
	const scroll = listScroll(prompt.scroll, prompt.members.length, key, input, typing);
	if (scroll !== null) {
		s.setPrompt({ ...prompt, scroll });
		return;
	}
	const acting = prompt.members.filter((m) => !m.skip).map((m) => m.name);
	const accept = typing ? key.return : isYes(input);
	const cancel = typing ? key.escape : isNo(input, key);
	if (accept) {
		s.setPrompt(null);
		const pool = targetPool(s);
		if (pool) ctx.ops.bulk(pool, prompt.action, acting, prompt.value.trim());
	} else if (cancel) {
		s.setPrompt(null);
		s.setStatus(`${bulkVerb(prompt.action)}: cancelled (${acting.length} marked)`);
	} else if (typing) {
		const next = edited(prompt, input, key);
		if (next) s.setPrompt(next);
	}
};
