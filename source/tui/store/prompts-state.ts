/** The prompts' and marks' slice of the console state: the open prompt and the marked members. */

import type { ExpiredClaim } from '../../engine/release-expired.js';

/** A member a bulk action is asked for, as its confirmation lists it. */
export interface BulkMember {
	name: string;
	/** The Lease holder ('' when none). */
	holder: string;
	/** Why the action skips it ('' when it acts on it). */
	skip: string;
}

/** What a bulk confirmation does once accepted. */
export type BulkAction = 'release' | 'maintenance-on' | 'maintenance-off';

/** How a bulk action is named in messages. */
export function bulkVerb(action: BulkAction): string {
	return action === 'release'
		? 'force-release'
		: action === 'maintenance-on'
			? 'maintenance on'
			: 'maintenance off';
}

/**
 * An open prompt: the claim identity, the release confirm, the filter being typed, the
 * maintenance reason, or the one confirmation of an action on every marked member.
 */
export type Prompt =
	| { kind: 'claim'; value: string; cursor?: number; error: string | null }
	| { kind: 'maintenance'; member: string; value: string; cursor?: number }
	| {
			kind: 'bulk';
			action: BulkAction;
			members: BulkMember[];
			/** The maintenance reason (maintenance-on only). */
			value: string;
			/** Where the cursor is in value (absent: at its end). */
			cursor?: number;
			/** The first listed member shown (the list scrolls with ↑ ↓). */
			scroll: number;
	  }
	| {
			kind: 'release';
			member: string;
			holder: string;
			/** Why its Lease will not expire as it should (a stranded member), else absent. */
			stranded?: string;
	  }
	/** The one confirmation of `*` on the pools screen: every expired claim shown, across pools. */
	| { kind: 'expired'; claims: ExpiredClaim[]; scroll: number }
	| { kind: 'filter'; value: string; cursor?: number }
	/** The find on the pools screen being typed (↑↓ pick a hit, Enter opens it). */
	| { kind: 'find'; value: string; cursor?: number };

/** The prompts' and marks' state. */
export interface PromptsState {
	prompt: Prompt | null;
	/** The marked members of the open pool. */
	marks: ReadonlySet<string>;
	/** A member was marked on this pool's screen: the mark column stays while it lives. */
	markColumn: boolean;
}

/** No prompt, no mark. */
export function initialPromptsState(): PromptsState {
	return { prompt: null, marks: new Set<string>(), markColumn: false };
}
