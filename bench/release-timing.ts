/**
 * How long a release takes on the simulated cluster at real pace (time scale 1, the real
 * 30 s termination grace period): a small pool, each member claimed, then released one
 * after the other; prints each release's time and the median.
 *
 * Run: npx vite-node bench/release-timing.ts [members, default 3]
 */

import { createEngine } from '../source/engine/index.js';
import { loadKube } from '../source/kube/config.js';
import { startSimCluster } from '../source/sim/index.js';
import { waitFor } from '../test/support/wait.js';
import { benchSpec } from './pool-setup.js';

const POOL = 'timing';

async function main(): Promise<void> {
	const size = Number(process.argv[2] ?? 3);
	if (!Number.isInteger(size) || size < 1) throw new Error('members must be a whole number >= 1');
	const sim = await startSimCluster();
	try {
		const kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
		const engine = createEngine(kube, { actor: 'release-timing' });
		await engine.apply(POOL, benchSpec(size));
		await waitFor(
			async () =>
				(await engine.readPool(POOL)).members.filter((m) => m.state === 'Ready').length === size,
			{ what: `${size} Ready members`, timeoutMs: 600_000, intervalMs: 200 },
		);
		const members: string[] = [];
		for (let i = 1; i <= size; i++)
			members.push((await engine.claim(POOL, `u${i}@example.com`)).member);
		const times: number[] = [];
		for (const [i, member] of members.entries()) {
			const t0 = performance.now();
			await engine.release(POOL, member, `u${i + 1}@example.com`);
			const ms = performance.now() - t0;
			times.push(ms);
			process.stdout.write(`release ${member}: ${(ms / 1000).toFixed(2)} s\n`);
		}
		const sorted = [...times].sort((a, b) => a - b);
		const median = sorted[Math.floor(sorted.length / 2)]!;
		process.stdout.write(`median of ${times.length}: ${(median / 1000).toFixed(2)} s\n`);
	} finally {
		await sim.close();
	}
}

await main();
