/** How a command shows read-only text: the text screen (views/text-view.tsx), Esc returns. */

import type { KeyContext } from './command.js';

/** Opens the text screen on a title and lines; Esc returns to the screen it was opened from. */
export function showText(ctx: KeyContext, title: string, lines: readonly string[]): void {
	const s = ctx.store.getState();
	const back = s.screen === 'text' ? (s.textView?.back ?? 'pools') : s.screen;
	ctx.store.setState({ textView: { title, lines, back } });
	ctx.store.getState().setScreen('text');
}
