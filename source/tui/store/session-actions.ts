/** The session's actions: the status line, the long action in progress, the RBAC denials, the runner's request. */

import type { Command } from '../commands/keys.js';
import type { StoreContext } from './context.js';
import type { ConsoleRequest, StatusMessage } from './session-state.js';

/** The session's actions. */
export interface SessionActions {
	/**
	 * Shows a message in the status line. It goes on navigation and on the next action; one
	 * that is not an error also goes after STATUS_TTL_MS.
	 */
	setStatus(text: string, level?: StatusMessage['level']): void;
	/** Dismisses the status-line message. */
	clearStatus(): void;
	/** Starts or ends a long action. */
	setBusy(busy: { label: string; detail?: string } | null): void;
	/** Updates the progress of the long action. */
	setBusyDetail(detail: string): void;
	/** Records the RBAC denials. */
	setDenied(denied: Partial<Record<Command, string>>): void;
	/** Asks the runner to quit or to hand the terminal to a console. */
	setRequest(request: ConsoleRequest | null): void;
}

/** The session's actions over a store. */
export function sessionActions({ set, get }: StoreContext): SessionActions {
	return {
		setStatus(text, level = 'info') {
			set({ status: { text, level, time: get().now } });
		},
		clearStatus() {
			if (get().status) set({ status: null });
		},
		setBusy(busy) {
			set({
				busy: busy ? { label: busy.label, detail: busy.detail ?? '', startedAt: Date.now() } : null,
			});
		},
		setBusyDetail(detail) {
			const busy = get().busy;
			if (busy) set({ busy: { ...busy, detail } });
		},
		setDenied(denied) {
			set({ denied });
		},
		setRequest(request) {
			set({ request });
		},
	};
}
