/** The one confirmation of `*` on the pools screen: release every expired claim listed. */

import { isNo, isYes, listScroll, type PromptHandler } from './prompt-keys.js';

export const expiredPrompt: PromptHandler<'expired'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
	const scroll = listScroll(prompt.scroll, prompt.claims.length, key, input, false);
	if (scroll !== null) s.setPrompt({ ...prompt, scroll });
	else if (isYes(input)) {
		s.setPrompt(null);
		ctx.ops.releaseExpired(prompt.claims);
	} else if (isNo(input, key)) {
		s.setPrompt(null);
		s.setStatus(`release of ${prompt.claims.length} expired claims: cancelled`);
	}
};
