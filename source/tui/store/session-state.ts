/** The session's slice of the console state: what it runs against, the status line, the long action in progress, the RBAC denials and what the runner must do. */

import type { CommandScope } from '../../pool/command-hint.js';
import type { Command } from '../commands/keys.js';

/** A long action in progress. */
export interface Busy {
	label: string;
	startedAt: number;
	/** Progress reported by the action. */
	detail: string;
}

/** The last outcome shown in the status line. */
export interface StatusMessage {
	text: string;
	level: 'info' | 'ok' | 'error';
	/** When it was set, on the store's clock. */
	time: number;
}

/** How long a message that is not an error stays in the status line (ms). */
export const STATUS_TTL_MS = 5000;

/** What the console runs against; fixed for the session. */
export interface ConsoleSession {
	namespace: string;
	context: string;
	server: string;
	/** The identity the claim prompt is prefilled with ('' when none was given). */
	identity: string;
	/** Who the console acts as in the log. */
	actor: string;
	readOnly: boolean;
	/** A line shown in the header, e.g. where the demo wrote its kubeconfig. */
	note: string;
	/** Every namespace is watched (-A): pools are keyed `namespace/pool` (see pool-key.ts). */
	allNamespaces: boolean;
	/**
	 * What a suggested command needs to run as printed: the namespace a bare ctpool picks
	 * (-n is written for any other) and the --context given. Absent: -n is always written.
	 */
	commandScope?: CommandScope;
}

/** What the runner must do once the app unmounts. */
export type ConsoleRequest =
	| { kind: 'quit' }
	/** Quit once the operation in flight has finished (a first q, Ctrl-C, SIGTERM or SIGHUP). */
	| { kind: 'finish' }
	/** Quit now, abandoning the operation in flight (it hands the member back to reconcile). */
	| { kind: 'abandon' }
	| { kind: 'console'; member: string };

/** The session's state. */
export interface SessionState {
	session: ConsoleSession;
	busy: Busy | null;
	status: StatusMessage | null;
	/** Commands the identity lacks RBAC rights for, with the reason. */
	denied: Partial<Record<Command, string>>;
	request: ConsoleRequest | null;
}

/** A session's first state. */
export function initialSessionState(session: ConsoleSession): SessionState {
	return { session, busy: null, status: null, denied: {}, request: null };
}
