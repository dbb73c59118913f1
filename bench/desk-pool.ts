/**
 * The big pool of the start-up and live-view scenarios, made once per run: `desk` in the
 * corral namespace, every member Running and Ready, the members on screen claimed.
 */

import type { BenchContext } from './context.js';
import { makePool, type PoolSetup } from './pool-setup.js';

/** The namespace and pool of the big pool. */
export const DESK = { namespace: 'corral', pool: 'desk' } as const;

/** The holder the members on screen start with. */
export const INITIAL_HOLDER = 'bench-init';

const made = new WeakMap<BenchContext, Promise<PoolSetup>>();

/** The members on screen whose Lease holders the churn changes (desk-1 .. desk-V). */
export function visibleMembers(ctx: BenchContext): string[] {
	const n = Math.min(ctx.opts.visible, ctx.opts.members);
	return Array.from({ length: n }, (_, i) => `${DESK.pool}-${i + 1}`);
}

/** Makes the big pool the first time it is asked for; later calls get the same one. */
export function deskPool(ctx: BenchContext): Promise<PoolSetup> {
	let p = made.get(ctx);
	if (!p) {
		ctx.log(`making pool ${DESK.pool} of ${ctx.opts.members} members`);
		p = makePool(ctx.sim.api, {
			...DESK,
			members: ctx.opts.members,
			leases: visibleMembers(ctx).map((member) => ({ member, holder: INITIAL_HOLDER })),
		}).then((setup) => {
			ctx.log(
				`pool ${DESK.pool}: ${setup.members} members created in ${(setup.createMs / 1000).toFixed(1)} s, all Ready after ${(setup.readyMs / 1000).toFixed(1)} s (definition size ${setup.size})`,
			);
			return setup;
		});
		made.set(ctx, p);
	}
	return p;
}
