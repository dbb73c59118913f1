import { loadYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, version } from '../../source/commands/main.js';
import { roleRules } from '../../source/pool/permissions.js';
import { putLease, uidOf } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';
import { ctpool } from './capture.js';

let c: TestCluster;
let kc: string[];
beforeAll(async () => {
	c = await startTestCluster();
	kc = c.kc;
});
afterAll(() => c?.close());

const IMG = ['--image', 'ghcr.io/example/desktop:1'];
const SMALL = ['--cpu', '1', '--mem', '64Mi', '--disk', '1Gi'];

/** The pool definition's spec, as the cluster holds it. */
async function definitionSpec(pool: string): Promise<Record<string, unknown>> {
	const cm = await c.api.get('configmaps', `corral-vdi-ctpool-${pool}`);
	if (!cm) throw new Error(`the definition of pool ${pool} is missing`);
	return JSON.parse((cm.data as Record<string, string>).spec!);
}

/** A PVC's maintenance annotation. */
async function maintenanceOf(pvc: string): Promise<string | undefined> {
	return (await c.api.get('persistentvolumeclaims', pvc))?.metadata.annotations?.[
		'corral.dev/vdi-maintenance'
	];
}

async function readyCount(pool: string): Promise<number> {
	const r = await ctpool(['status', pool, '-o', 'json', ...kc]);
	return (JSON.parse(r.stdout) as { ready: number }).ready;
}

describe('the pool commands', () => {
	it('apply creates the pool and prints what it did', async () => {
		const r = await ctpool(['apply', 'desk', ...IMG, '--size', '3', ...SMALL, ...kc]);
		expect(r.code).toBe(0);
		expect(r.stderr).toBe('');
		expect(r.stdout).toContain('desk-1 created\ndesk-2 created\ndesk-3 created\n');
		expect(r.stdout).toMatch(/pool desk: desired 3, observed 3/);
	});

	it('apply keeps the fields a flag leaves out', async () => {
		await ctpool(['apply', 'keep', ...IMG, '--size', '1', ...SMALL, '--init', ...kc]);
		const r = await ctpool(['apply', 'keep', '--size', '2', ...kc]);
		expect(r.code).toBe(0);
		expect(await definitionSpec('keep')).toEqual({
			image: 'ghcr.io/example/desktop:1',
			cpu: '1',
			memory: '64Mi',
			disk: '1Gi',
			storageClass: '',
			privileged: false,
			init: true,
			mode: 'ephemeral',
			size: 2,
		});
		const off = await ctpool(['apply', 'keep', '--no-init', ...kc]);
		expect(off.code).toBe(0);
		expect((await definitionSpec('keep')).init).toBe(false);
	});

	it('status prints aligned, sanitised columns and the counts, and changes nothing', async () => {
		await waitFor(async () => (await readyCount('desk')) === 3, 'desk ready');
		await putLease(
			c,
			'desk',
			'desk-2',
			'evil\u001b[2J\u001b]0;pwned\u0007@example.com',
			Date.now(),
			3600,
		);
		const mark = c.mark();
		const r = await ctpool(['status', 'desk', ...kc]);
		expect(r.code).toBe(0);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(r.stdout).not.toContain('\u001b');
		expect(r.stdout).not.toContain('\u0007');
		const lines = r.stdout.split('\n');
		expect(lines[0]).toContain('pool desk');
		expect(lines[0]).toContain('image ghcr.io/example/desktop:1');
		expect(lines[1]).toMatch(/desired 3 {3}observed 3 {3}ready 3 {3}claimed 1 {3}free 2/);
		const header = lines.find((l) => l.startsWith('NAME'))!;
		expect(header.split(/\s{3,}/)).toEqual([
			'NAME',
			'STATE',
			'HOLDER',
			'FLAGS',
			'NODE',
			'AGE',
			'MESSAGE',
		]);
		const row2 = lines.find((l) => l.startsWith('desk-2'))!;
		expect(row2).toContain('evil@example.com');
		// Columns line up: each column starts at the same offset in every row.
		const stateAt = header.indexOf('STATE');
		for (const l of lines.filter((x) => x.startsWith('desk-')))
			expect(l.slice(stateAt, stateAt + 5)).toBe('Ready');
		expect(await c.api.delete('leases', 'corral-vdi-ct-desk-2')).toBe(true);
	});

	it('status -o json and -o yaml print the contract status object', async () => {
		const json = await ctpool(['status', 'desk', '-o', 'json', ...kc]);
		expect(json.code).toBe(0);
		const status = JSON.parse(json.stdout);
		expect(Object.keys(status)).toEqual([
			'observedAt',
			'reconciler',
			'desired',
			'observed',
			'ready',
			'claimed',
			'free',
			'unschedulable',
			'exhausted',
			// beside the seed's counts: free split into Ready (now) and Starting/Stopped (soon)
			'claimableNow',
			'claimableSoon',
			'members',
			'errors',
		]);
		expect(status.claimableNow + status.claimableSoon).toBe(status.free);
		expect(status.members[0]).toMatchObject({
			name: 'desk-1',
			index: 1,
			state: 'Ready',
			holder: '',
		});
		const yaml = await ctpool(['status', 'desk', '--output', 'yaml', ...kc]);
		expect(yaml.code).toBe(0);
		const fromYaml = loadYaml(yaml.stdout) as typeof status;
		expect({ ...fromYaml, observedAt: '' }).toEqual({ ...status, observedAt: '' });
	});

	it('claim prints the member; a second claim by the same identity prints the same one', async () => {
		const first = await ctpool(['claim', 'desk', 'alice@example.com', ...kc]);
		expect(first.code).toBe(0);
		expect(first.stdout).toMatch(/^desk-\d\n$/);
		const second = await ctpool(['claim', 'desk', 'alice@example.com', ...kc]);
		expect(second.stdout).toBe(first.stdout);
	});

	it('claim on a full pool exits 1 with the counts', async () => {
		await ctpool(['apply', 'full', ...IMG, '--size', '1', ...SMALL, ...kc]);
		await ctpool(['claim', 'full', 'a@x', ...kc]);
		const r = await ctpool(['claim', 'full', 'b@x', ...kc]);
		expect(r.code).toBe(1);
		expect(r.stderr).toBe(
			'ctpool: pool has no free members (desired 1, claimed 1, unschedulable 0)\n',
		);
	});

	it('release by another identity is refused (exit 1), --force works, and it shows progress only on a terminal', async () => {
		const member = (await ctpool(['claim', 'desk', 'bob@example.com', ...kc])).stdout.trim();
		const refused = await ctpool(['release', 'desk', member, 'carl@example.com', ...kc]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`${member} is claimed by bob@example.com`);
		expect(refused.stderr).toContain('--force');
		const old = await uidOf(c, 'persistentvolumeclaims', `${member}-data`);
		const piped = await ctpool(['release', 'desk', member, 'carl@example.com', '--force', ...kc]);
		expect(piped.code).toBe(0);
		expect(piped.stderr).toBe('');
		expect(piped.stdout).toContain(`released ${member} (claimed by bob@example.com)`);
		expect(await uidOf(c, 'persistentvolumeclaims', `${member}-data`)).not.toBe(old);

		const again = (await ctpool(['claim', 'desk', 'dora@example.com', ...kc])).stdout.trim();
		const tty = await ctpool(['release', 'desk', again, 'dora@example.com', ...kc], { tty: true });
		expect(tty.code).toBe(0);
		expect(tty.stderr).toContain(`deleting pod ${again}`);
		expect(tty.stderr).toContain(`deleting PVC ${again}-data`);
	});

	it('release of an unclaimed member does nothing and says so', async () => {
		const mark = c.mark();
		const r = await ctpool(['release', 'desk', 'desk-3', 'al@x', ...kc]);
		expect(r.code).toBe(0);
		expect(r.stdout).toBe('desk-3 has no claim; nothing to do\n');
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});

	it('maintenance on and off', async () => {
		const on = await ctpool(['maintenance', 'desk', 'desk-3', 'on', 'disk check', ...kc]);
		expect(on.code).toBe(0);
		expect(on.stdout).toBe('desk-3 is in maintenance\n');
		expect(await maintenanceOf('desk-3-data')).toBe('disk check');
		const status = await ctpool(['status', 'desk', ...kc]);
		expect(status.stdout.split('\n').find((l) => l.startsWith('desk-3'))).toContain('maintenance');
		const off = await ctpool(['maintenance', 'desk', 'desk-3', 'off', ...kc]);
		expect(off.code).toBe(0);
		expect(await maintenanceOf('desk-3-data')).toBeUndefined();
	});

	it('reconcile exits 1 when a step failed and names it', async () => {
		await ctpool(['apply', 'nope', ...IMG, '--size', '1', ...SMALL, ...kc]);
		const old = await uidOf(c, 'pods', 'nope-1');
		expect(old).toBeDefined();
		await c.api.delete('pods', 'nope-1', { gracePeriodSeconds: 0 });
		await waitFor(async () => (await uidOf(c, 'pods', 'nope-1')) === undefined, 'nope-1 gone');
		// An identity with every rule ctpool asks for but creating pods: the cluster refuses it.
		const rules = roleRules()
			.flatMap((p) => p.rules)
			.map((r) =>
				r.resources.includes('pods') ? { ...r, verbs: r.verbs.filter((v) => v !== 'create') } : r,
			);
		const noCreate = ['--kubeconfig', await c.grant('no-pod-create', rules)];
		// its reads are allowed (once the authorizer has seen the new binding)
		await waitFor(
			async () => (await ctpool(['status', 'nope', ...noCreate])).code === 0,
			'the new identity reads the pool',
		);
		const r = await ctpool(['reconcile', 'nope', ...noCreate]);
		expect(r.code).toBe(1);
		expect(r.stderr).toMatch(
			new RegExp(`^ctpool: start nope-1: forbidden: cannot create pods in namespace ${c.ns}`),
		);
		expect(await uidOf(c, 'pods', 'nope-1')).toBeUndefined();
		const ok = await ctpool(['reconcile', 'nope', ...kc]);
		expect(ok.code).toBe(0);
		expect(ok.stdout).toContain('nope-1 started');
	});

	it('delete removes the pool', async () => {
		await ctpool(['apply', 'bye', ...IMG, '--size', '2', ...SMALL, ...kc]);
		const r = await ctpool(['delete', 'bye', ...kc]);
		expect(r.code).toBe(0);
		expect(r.stdout).toBe('pool bye deleted\n');
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-bye')).toBeUndefined();
		expect(await c.api.get('pods', 'bye-1')).toBeUndefined();
	});

	it('reconcile --watch reconciles soon after a change and exits 0 when interrupted', async () => {
		await ctpool(['apply', 'watch', ...IMG, '--size', '2', ...SMALL, ...kc]);
		const controller = new AbortController();
		const running = ctpool(['reconcile', 'watch', '--watch', '--interval', '10m', ...kc], {
			signal: controller.signal,
		});
		try {
			await waitFor(() => uidOf(c, 'pods', 'watch-2'), 'watch-2');
			// Delete a pod: the watch brings a reconcile long before the 10 minute interval.
			const old = await uidOf(c, 'pods', 'watch-2');
			await c.api.delete('pods', 'watch-2', { gracePeriodSeconds: 0 });
			await waitFor(async () => {
				const uid = await uidOf(c, 'pods', 'watch-2');
				return uid !== undefined && uid !== old;
			}, 'watch-2 started again by the watch');
		} finally {
			controller.abort();
		}
		const r = await running;
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('watch-2 started');
	});
});

describe('help and version', () => {
	for (const name of Object.keys(COMMANDS)) {
		it(`ctpool ${name} --help prints its usage and exits 0`, async () => {
			const r = await ctpool([name, '--help']);
			expect(r.code).toBe(0);
			expect(r.stdout).toContain(`Usage: ctpool ${name}`);
			expect(r.stdout).toContain('--namespace');
		});
	}

	it('ctpool --help lists the commands; --version prints the version', async () => {
		const help = await ctpool(['--help']);
		expect(help.code).toBe(0);
		for (const name of [...Object.keys(COMMANDS), 'sim'])
			expect(help.stdout).toContain(`  ${name}`);
		expect(help.stdout).toMatch(
			/-A, --all-namespaces\s+the console on every pool in every namespace/,
		);
		expect(help.stdout).toMatch(
			/--bell\s+ring the terminal bell each time a watched pool becomes exhausted/,
		);
		const both = await ctpool(['desk', '-A']);
		expect(both.code).toBe(2);
		expect(both.stderr).toContain('-A/--all-namespaces opens every pool');
		const v = await ctpool(['--version']);
		// Run from source, the build is 'dev' (the bundle has the git commit written in).
		expect(v).toEqual({
			code: 0,
			stdout: `ctpool ${version()} (build dev, node ${process.version})\n`,
			stderr: '',
		});
		expect(version()).toMatch(/^\d+\.\d+\.\d+/);
	});

	it('the console refuses to start without a terminal', async () => {
		const r = await ctpool(['desk', ...kc]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('the console needs a terminal');
	});
});
