/** The filter being typed (members, or the audit screen's own): it applies as it is typed. */

import { edited, type PromptHandler } from './prompt-keys.js';

/** Esc clears the filter and closes the prompt; Enter keeps it; other keys edit it. */
export const filterPrompt: PromptHandler<'filter'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
	// the audit screen has its own filter
	const setFilter = s.screen === 'audit' ? s.setAuditFilter : s.setFilter;
	if (key.escape) {
		setFilter('');
		s.setPrompt(null);
	} else if (key.return) s.setPrompt(null);
	else {
		const next = edited(prompt, input, key);
		if (!next) return;
		s.setPrompt(next);
		if (next.value !== prompt.value) setFilter(next.value);
	}
};
