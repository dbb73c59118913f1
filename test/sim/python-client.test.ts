/**
 * The Kubernetes Python client against the simulated cluster: list, watch with resume and a
 * 410 that leads to a relist, create/patch/delete, and exec through its stream API (the
 * old v4 channel protocol of client 22.6). It sends booleans as `True`.
 */

import { describe, expect, it } from 'vitest';
import { describePython, runPythonScenario } from '../support/python.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

describePython('the Kubernetes Python client against the simulated cluster', () => {
	describe('at the default compaction window', () => {
		const env = withSim();
		const run = <T>(scenario: string) => runPythonScenario<T>(env.kubeconfigPath, NS, scenario);

		it('lists, with a label selector', async () => {
			const r = await run<{ names: string[]; selected: string[]; resourceVersion: string }>('list');
			expect(r.names).toEqual(expect.arrayContaining(['py-list-1', 'py-list-2']));
			expect(r.selected).toEqual(['py-list-1']);
			expect(Number(r.resourceVersion)).toBeGreaterThan(0);
		});

		it('watches from a resourceVersion (watch=True) and sees every change since', async () => {
			const r = await run<{ from: string; events: Array<[string, string, unknown]>; last: string }>(
				'watch-resume',
			);
			expect(r.events).toEqual([
				['ADDED', 'py-w-1', null],
				['MODIFIED', 'py-w-1', { k: 'v' }],
				['DELETED', 'py-w-1', { k: 'v' }],
			]);
			expect(Number(r.last)).toBeGreaterThan(Number(r.from));
			// Each watch request of the client was a watch, not a list read as one.
			const watches = env.cluster.audit
				.requests()
				.filter((q) => q.verb === 'watch' && q.resource === 'configmaps');
			expect(watches.length).toBeGreaterThanOrEqual(1);
		});

		it('creates, reads, patches and deletes; errors come back as the real status', async () => {
			const r = await run<{
				readData: Record<string, string>;
				patchedData: Record<string, string>;
				missing: { status: number; message: string };
				invalid: { status: number; reason: string };
				graceSeconds: number;
				terminating: boolean;
				afterZero: number | string;
			}>('crud');
			expect(r.readData).toEqual({ a: '1' });
			expect(r.patchedData).toEqual({ a: '1', b: '2' });
			expect(r.missing).toEqual({ status: 404, message: 'configmaps "py-crud" not found' });
			expect(r.invalid).toEqual({ status: 422, reason: 'Invalid' });
			// DeleteOptions in the body: the grace period asked for, then 0 removes it at once.
			expect(r.terminating).toBe(true);
			expect(r.graceSeconds).toBe(600);
			expect(r.afterZero).toBe(404);
		});

		it('runs a command through exec (stream API), with stdout, stderr and the exit code', async () => {
			const r = await run<{
				preloaded: string;
				stdout: string;
				stderr: string;
				returncode: number;
			}>('exec');
			expect(r.preloaded).toBe('hello from\npy-exec\n');
			expect(r.stdout).toBe('to-out\n');
			expect(r.stderr).toBe('to-err\n');
			expect(r.returncode).toBe(3);
		});
	});

	describe('with a short compaction window', () => {
		// 500 ms stands for the real 5 minutes.
		const env = withSim({ compactionMs: 500 });

		it('a watch from a compacted resourceVersion gets 410; the client relists and watches again', async () => {
			const store = env.cluster.store;
			const old = store.create('configmaps', {
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: { name: 'py-old', namespace: NS, labels: { py: 'old' } },
			});
			store.create('configmaps', {
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: { name: 'py-later', namespace: NS, labels: { py: 'old' } },
			});
			const rv = old.metadata.resourceVersion!;
			await waitFor(() => store.compactedRevision() > Number(rv), { what: 'the compaction' });
			const r = await runPythonScenario<{
				gone: { status: number; reason: string } | null;
				relisted: string[];
				events: Array<[string, string]>;
			}>(env.kubeconfigPath, NS, 'watch-410', rv);
			expect(r.gone?.status).toBe(410);
			expect(r.gone?.reason).toMatch(/^Expired: too old resource version: \d+ \(\d+\)$/);
			expect(r.relisted).toEqual(['py-later', 'py-old']);
			expect(r.events).toEqual([['ADDED', 'py-after']]);
		});
	});
});
