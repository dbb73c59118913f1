/** The handler of each kind of prompt: an open prompt gets every key (Ctrl-C aside). */

import type { Key } from 'ink';
import type { KeyContext } from '../commands/command.js';
import type { Prompt } from '../store/store.js';
import { bulkPrompt } from './bulk-prompt.js';
import { claimPrompt } from './claim-prompt.js';
import { expiredPrompt } from './expired-prompt.js';
import { filterPrompt } from './filter-prompt.js';
import { findPrompt } from './find-prompt.js';
import { maintenancePrompt } from './maintenance-prompt.js';
import type { PromptHandler } from './prompt-keys.js';
import { releasePrompt } from './release-prompt.js';

const HANDLERS: { [K in Prompt['kind']]: PromptHandler<K> } = {
	filter: filterPrompt,
	find: findPrompt,
	claim: claimPrompt,
	maintenance: maintenancePrompt,
	release: releasePrompt,
	bulk: bulkPrompt,
	expired: expiredPrompt,
};

/** Hands a key press to the open prompt's handler. */
export function promptKey(prompt: Prompt, input: string, key: Key, ctx: KeyContext): void {
	(HANDLERS[prompt.kind] as PromptHandler<Prompt['kind']>)(prompt, input, key, ctx);
}
