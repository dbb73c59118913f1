/** The maintenance reason of one member: Enter turns maintenance on with it. */

import { targetPool } from '../commands/command.js';
import { ofPool } from '../model/pool-index.js';
import { edited, type PromptHandler } from './prompt-keys.js';

export const maintenancePrompt: PromptHandler<'maintenance'> = (prompt, input, key, ctx) => {
	const s = ctx.store.getState();
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
};
