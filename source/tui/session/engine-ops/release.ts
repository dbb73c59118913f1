/** The release operation: a member released with --force. */

import { release } from '../../../engine/index.js';
import { poolName } from '../../model/pool-index.js';
import { act, type OpsContext } from './context.js';

/** Releases a member with --force (its data is destroyed and it is made again). */
export function releaseOp(ops: OpsContext, key: string, member: string): void {
	act(
		ops,
		`releasing ${member}`,
		{ pool: key, member, action: 'release' },
		async (ctx, progress) => {
			const r = await release(ctx, poolName(key), member, ops.actor, {
				force: true,
				onProgress: progress,
			});
			return r.message;
		},
	);
}
