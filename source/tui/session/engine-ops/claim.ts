/** The claim operation: a free member of the pool for an identity. */

import { claim, claimFromFeed } from '../../../engine/index.js';
import { poolName } from '../../model/pool-index.js';
import { act, type OpsContext } from './context.js';

/** Claims a free member of the pool for the identity, and selects it. */
export function claimOp(ops: OpsContext, key: string, identity: string): void {
	act(ops, `claiming in ${key} for ${identity}`, { pool: key, action: 'claim' }, async (ctx) => {
		const pool = poolName(key);
		// From the console's watch (client-go's informer pattern: the Lease create arbitrates):
		// the claim reads nothing before its Lease create (engine/claim.ts says why it is safe).
		const feed = ops.claimFeed?.(ctx.namespace, pool);
		if (feed) claimFromFeed(ctx, pool, feed);
		const r = await claim(ctx, pool, identity);
		ops.store.getState().selectMember(r.member);
		return r.existing
			? `${identity} already holds ${r.member}${r.renewed ? ' (expired claim renewed)' : ''}`
			: `${r.member} claimed by ${identity}${r.started ? ' (starting it)' : ''}`;
	});
}
