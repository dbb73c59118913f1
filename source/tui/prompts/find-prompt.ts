/** The pools screen's find being typed: ↑↓ pick a hit, Enter opens it, Tab keeps the find. */

import { openHit } from '../commands/open-hit.js';
import { edited, type PromptHandler } from './prompt-keys.js';

export const findPrompt: PromptHandler<'find'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
	const page = Math.max(1, ctx.pageSize());
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
	else if (key.pageUp) s.move(-page);
	else if (key.pageDown) s.move(page);
	else {
		const next = edited(prompt, input, key);
		if (!next) return;
		s.setPrompt(next);
		if (next.value !== prompt.value) s.setFind(next.value);
	}
};
