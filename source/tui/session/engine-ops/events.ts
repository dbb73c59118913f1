/**
 * The details screen's reads: a member's recent Events, and the inputs its hint needs (read
 * again when the member on the details screen changes state, or another one is shown).
 */

import { memberEvents, readLastLogLines, readNodeRooms } from '../../../engine/index.js';
import { describeError } from '../../../kube/errors.js';
import { failureKind } from '../../../pool/index.js';
import { HINT_LOG_LINES, type HintInputs } from '../../model/member-hint.js';
import { selectedRow } from '../../store/store.js';
import { type OpsContext, openPoolContext } from './context.js';

/** The details screen's reads over a console's operations. */
export interface DetailsReads {
	/** Lists the recent Events of a member, and reads what its hint needs. */
	loadEvents(member: string): void;
	/** Stops reading the hint inputs again on changes. */
	close(): void;
}

const hintKey = (row: { state: string; message: string }) =>
	`${row.state}:${row.state === 'Failed' ? failureKind(row.message) : ''}`;

/** Starts following the member on the details screen (its hint inputs are read again when its state changes). */
export function detailsReads(ops: OpsContext): DetailsReads {
	const { store } = ops;
	/** What the inputs of the hint on the details screen were read for (member, state and failure). */
	const loaded: { for: { member: string; key: string } | null } = { for: null };
	// the member on the details screen changed state (or another member is shown): read again
	const unwatch = store.subscribe((s) => {
		if (s.screen !== 'details') return;
		const row = selectedRow(s);
		if (!row || (loaded.for?.member === row.name && loaded.for.key === hintKey(row))) return;
		loadHintInputs(ops, loaded, row.name);
	});
	return {
		loadEvents(member) {
			loadHintInputs(ops, loaded, member);
			loadMemberEvents(ops, member);
		},
		close: unwatch,
	};
}

function loadMemberEvents(ops: OpsContext, member: string): void {
	const { store } = ops;
	const set = store.getState().setDetails;
	set({ member, loading: true, events: [], error: null });
	void memberEvents(openPoolContext(ops), member).then(
		(events) => {
			if (store.getState().details?.member === member)
				set({ member, loading: false, events, error: null });
		},
		(err) => {
			if (store.getState().details?.member === member)
				set({ member, loading: false, events: [], error: describeError(err) });
		},
	);
}

/**
 * Reads what the hint of the member needs (its state decides): the nodes' room for an
 * Unschedulable member, the last log lines of a crashing one. A read that fails is kept as
 * the reason the hint cannot show it.
 */
function loadHintInputs(
	ops: OpsContext,
	loaded: { for: { member: string; key: string } | null },
	member: string,
): void {
	const { store } = ops;
	const state = store.getState();
	const row = state.pool ? state.pools[state.pool]?.rows.find((r) => r.name === member) : null;
	// noted before the store changes: its subscriber must see these inputs as read
	loaded.for = row ? { member, key: hintKey(row) } : null;
	state.setHintInputs(member);
	if (!row) return;
	const ctx = openPoolContext(ops);
	const keep = <T>(key: keyof HintInputs, read: Promise<T>) =>
		void read.then(
			(value) => {
				if (store.getState().hintInputs?.member === member)
					store.getState().setHintInputs(member, { [key]: { value } });
			},
			(err: unknown) => {
				if (store.getState().hintInputs?.member === member)
					store.getState().setHintInputs(member, { [key]: { unavailable: describeError(err) } });
			},
		);
	if (row.state === 'Unschedulable') keep('rooms', readNodeRooms(ctx));
	if (row.state === 'Failed' && failureKind(row.message) === 'CrashLoopBackOff')
		keep('log', readLastLogLines(ctx, member, HINT_LOG_LINES));
}
