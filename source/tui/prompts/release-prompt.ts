/** The release confirm: y accepts, n or Esc cancels, anything else is ignored. */

import { targetPool } from '../commands/command.js';
import { ofPool } from '../model/pool-index.js';
import { isNo, isYes, type PromptHandler } from './prompt-keys.js';

export const releasePrompt: PromptHandler<'release'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
	if (isYes(input)) {
		s.setPrompt(null);
		const pool = targetPool(s);
		if (pool) ctx.ops.release(pool, prompt.member);
	} else if (isNo(input, key)) {
		s.setPrompt(null);
		s.setStatus(`release of ${prompt.member}${ofPool(targetPool(s) ?? '')} cancelled`);
	}
};
