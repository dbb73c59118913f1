/** How apply and reconcile print what a reconcile did. */

import type { ReconcileResult } from '../engine/reconcile.js';
import { waitsForVolume } from '../pool/member-state.js';
import { rolloutText } from '../pool/rollout.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandIo, println } from './io.js';

const DONE: Record<string, string> = {
	create: 'created',
	start: 'started',
	replace: 'replaced',
	delete: 'deleted',
};

/** One line per step on stdout, one per failed step on stderr, and the pool's counts. */
export function printReconcile(io: CommandIo, result: ReconcileResult, prefix = ''): void {
	for (const a of result.actions) {
		if (a.ok) println(io.stdout, `${prefix}${a.member} ${DONE[a.step] ?? a.step}`);
	}
	for (const e of result.errors) println(io.stderr, `ctpool: ${prefix}${sanitize(e)}`);
	const s = result.status;
	println(
		io.stdout,
		`${prefix}pool ${result.pool}: desired ${s.desired}, observed ${s.observed}, ready ${s.ready}, claimed ${s.claimed}, free ${s.free}, unschedulable ${s.unschedulable}${volumeWaits(s.members)}${s.exhausted ? ' (exhausted: no member is free)' : ''}${s.rollout ? `; ${rolloutText(s.rollout)}` : ''}`,
	);
}

/**
 * `, starting 4 (waiting for its volume)`: the members a new PVC holds back are a wait, not
 * a want of room; '' when none waits.
 */
export function volumeWaits(
	members: ReadonlyArray<{ state: string; message: string }>,
	separator = ', ',
): string {
	const waiting = members.filter(waitsForVolume).length;
	if (waiting === 0) return '';
	return `${separator}starting ${waiting} (waiting for ${waiting > 1 ? 'their volumes' : 'its volume'})`;
}
