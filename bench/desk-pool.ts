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
		}).then(async (setup) => {
			ctx.log(
				`pool ${DESK.pool}: ${setup.members} members created in ${(setup.createMs / 1000).toFixed(1)} s, all Ready after ${(setup.readyMs / 1000).toFixed(1)} s (definition size ${setup.size})`,
			);
			await settleCluster(ctx);
			return setup;
		});
		made.set(ctx, p);
	}
	return p;
}

/** The cluster counts as settled below this share of a core (%), over SETTLE_WINDOW_MS. */
const SETTLED_CPU_PERCENT = 5;
const SETTLE_WINDOW_MS = 1000;
/** The longest the bench waits for the cluster to settle (ms). */
const SETTLE_MAX_MS = 30_000;

/**
 * Waits until the simulated cluster has settled after a pool was made: its controllers go on
 * for seconds after every pod is Ready (statuses, Events), and a measured round during that
 * time measures the cluster's busy spell more than the client (the two cores are shared).
 * Every baseline of a scenario runs after this too. A real control plane reports no usage of
 * its own (real-cluster.ts): no wait.
 */
export async function settleCluster(ctx: BenchContext): Promise<void> {
	const started = performance.now();
	let before = await ctx.sim.usage();
	let share = Number.POSITIVE_INFINITY;
	while (performance.now() - started < SETTLE_MAX_MS) {
		await new Promise((r) => setTimeout(r, SETTLE_WINDOW_MS));
		const now = await ctx.sim.usage();
		const usedMs = (now.cpu.user - before.cpu.user + now.cpu.system - before.cpu.system) / 1000;
		share = (100 * usedMs) / SETTLE_WINDOW_MS;
		before = now;
		if (share < SETTLED_CPU_PERCENT) break;
	}
	ctx.log(
		`cluster settled after ${((performance.now() - started) / 1000).toFixed(1)} s (${share.toFixed(1)} % of a core over the last second)`,
	);
}
