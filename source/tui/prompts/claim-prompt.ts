/** The claim prompt: the identity to claim a free member for (checked before it is sent). */

import { identityProblem } from '../../pool/index.js';
import { targetPool } from '../commands/command.js';
import { edited, type PromptHandler } from './prompt-keys.js';

export const claimPrompt: PromptHandler<'claim'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
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
};
