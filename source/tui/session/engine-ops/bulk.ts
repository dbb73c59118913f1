/** The bulk operation: a force-release or maintenance on every marked member, member by member. */

import { type EngineContext, release, setMaintenance } from '../../../engine/index.js';
import { describeError } from '../../../kube/errors.js';
import { poolName } from '../../model/pool-index.js';
import { type BulkAction, bulkVerb } from '../../store/store.js';
import { act, logFailure, noteAuth, type OpsContext, plural } from './context.js';

/**
 * Releases with --force, or sets or clears maintenance on, each member in turn; a failure
 * does not stop the others. The marks of the members done go; the failed stay marked.
 */
export function bulkOp(
	ops: OpsContext,
	key: string,
	action: BulkAction,
	members: readonly string[],
	reason: string,
): void {
	const verb = bulkVerb(action);
	const logged = action === 'release' ? 'release' : 'maintenance';
	act(
		ops,
		`${verb} of ${plural(members.length, 'member')}`,
		{ pool: key, action: logged },
		async (ctx, progress) => {
			const failed: string[] = [];
			const done: string[] = [];
			for (const [i, member] of members.entries()) {
				progress(`${i + 1}/${members.length} ${member}`);
				try {
					await bulkStep(ctx, poolName(key), action, member, reason, (m) =>
						progress(`${i + 1}/${members.length} ${member}: ${m}`),
					);
					done.push(member);
				} catch (err) {
					const message = describeError(err);
					noteAuth(ops, message);
					failed.push(`${member}: ${message}`);
					logFailure(ops, { pool: key, member, action: logged }, message);
				}
			}
			// the marks of the members done go; the failed stay marked for another try
			ops.store.getState().setMarks(done, false);
			const summary = `${verb}: ${done.length} of ${members.length} done${done.length > 0 ? ` (${done.join(', ')})` : ''}`;
			if (failed.length > 0)
				throw new Error(`${summary}; ${failed.length} failed: ${failed.join('; ')}`);
			return summary;
		},
	);
}

/** One member's step of a bulk action. */
async function bulkStep(
	ctx: EngineContext,
	pool: string,
	action: BulkAction,
	member: string,
	reason: string,
	progress: (m: string) => void,
): Promise<void> {
	if (action === 'release')
		await release(ctx, pool, member, ctx.actor, { force: true, onProgress: progress });
	else
		await setMaintenance(
			ctx,
			pool,
			member,
			action === 'maintenance-on',
			action === 'maintenance-on' ? reason : undefined,
		);
}
