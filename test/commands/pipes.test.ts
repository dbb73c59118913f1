/**
 * Issue 12, finding 10: a reader that goes away (`ctpool status | head -1`) ends the command
 * quietly with its usual exit code, never an EPIPE stack trace. The built binary, with an
 * output far larger than a pipe holds (a 1 MB Lease holder, kept whole in JSON and YAML), so
 * that every run writes after the reader has gone.
 */

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../../source/engine/index.js';
import { putLease } from '../engine/fixtures.js';
import { builtOrSay, CLI } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';

const built = builtOrSay('the pipe tests');

/** Runs the binary and closes its stdout after the first chunk, as `| head -c N` does. */
function runClosingStdout(
	args: string[],
): Promise<{ code: number | null; stderr: string; got: number }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' },
		});
		let got = 0;
		let stderr = '';
		child.stdout.once('data', (d: Buffer) => {
			got = d.length;
			child.stdout.destroy();
		});
		child.stderr.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		child.on('error', reject);
		child.on('close', (code) => resolve({ code, stderr, got }));
	});
}

// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
// only when the file is run alone before `npm run build`.
describe.skipIf(!built)('a closed stdout', () => {
	let c: TestCluster;
	beforeAll(async () => {
		c = await startTestCluster();
		await apply(c.context(), 'pipe', poolSpec({ size: 2 }));
		await putLease(c, 'pipe', 'pipe-1', `big${'x'.repeat(1024 * 1024)}`, Date.now(), 3600);
	});
	afterAll(() => c?.close());

	it.each([['json'], ['yaml'], ['table']])(
		'ends status -o %s quietly with exit 0',
		async (format) => {
			const r = await runClosingStdout([
				'status',
				'pipe',
				'-o',
				format,
				'--kubeconfig',
				c.sim.kubeconfigPath,
			]);
			expect(r.got).toBeGreaterThan(0);
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
		},
	);
});
