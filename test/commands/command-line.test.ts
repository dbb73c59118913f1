/**
 * kubectl's command line (issue 24, finding 4): global flags before the command as after it,
 * "did you mean" for a word close to a command, and a console opened only on a pool that
 * exists (else the error lists the namespace's pools and the commands).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	editDistance,
	flagKinds,
	splitCommand,
	suggestionsFor,
} from '../../source/commands/command-line.js';
import { COMMANDS } from '../../source/commands/main.js';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { ctpool } from './capture.js';

const TEAM_B = `${onRealCluster ? `${testNamespace()}-` : ''}cl-b`;
const WORDS = new Set([...Object.keys(COMMANDS), 'sim', 'completion', 'help']);

describe('splitting a command line', () => {
	const kinds = flagKinds(
		{ namespace: { type: 'string', shortFlag: 'n' }, kubeconfig: { type: 'string' } },
		{ allNamespaces: { type: 'boolean', shortFlag: 'A' } },
	);
	it.each([
		[['-n', 'team-b', 'status'], 'status', ['-n', 'team-b']],
		[['--kubeconfig', 'X', 'status', 'desk'], 'status', ['--kubeconfig', 'X', 'desk']],
		[['--kubeconfig=X', '-A', 'find', 'bob'], 'find', ['--kubeconfig=X', '-A', 'bob']],
		[['-n', 'status', 'desk'], undefined, ['-n', 'status', 'desk']],
		[['desk', 'status'], undefined, ['desk', 'status']],
		[['--', 'status'], undefined, ['--', 'status']],
		[['status', '-n', 'x'], 'status', ['-n', 'x']],
	])('%j -> %s', (argv, command, rest) => {
		expect(splitCommand(argv, WORDS, kinds)).toEqual({ command, rest });
	});

	it('suggests commands within two edits or by their start, nearest first', () => {
		expect(editDistance('stauts', 'status')).toBe(2);
		expect(suggestionsFor('stauts', WORDS)).toEqual(['status']);
		expect(suggestionsFor('relase', WORDS)).toEqual(['release']);
		expect(suggestionsFor('recon', WORDS)).toEqual(['reconcile']);
		expect(suggestionsFor('Claim', WORDS)).toEqual(['claim']);
		expect(suggestionsFor('desk', WORDS)).toEqual([]);
	});

	it('a flag spelled alike takes a value in every command or in none', () => {
		expect(() => flagKinds({ nodes: { type: 'string' } }, { nodes: { type: 'boolean' } })).toThrow(
			'the flag --nodes takes a value in one command and none in another',
		);
	});
});

let c: TestCluster;
async function run(argv: string[], tty = false) {
	return ctpool(argv, { tty });
}

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [TEAM_B] });
	for (const [ns, pool] of [
		[c.ns, 'desk'],
		[c.ns, 'lab'],
		[TEAM_B, 'kiosk'],
	] as const) {
		const r = await ctpool(['apply', pool, '--size', '1', ...POOL_FLAGS, '-n', ns, ...c.kc]);
		expect(r.stderr).toBe('');
	}
	const claimed = await ctpool(['claim', 'kiosk', 'bob@example.com', '-n', TEAM_B, ...c.kc]);
	expect(claimed.code).toBe(0);
}, 60_000);
afterAll(async () => {
	if (onRealCluster && c) await c.api.delete('namespaces', TEAM_B).catch(() => false);
	await c?.close();
});

describe('global flags before the command', () => {
	it('ctpool -n NS status lists that namespace’s pools (it opened a console on pool "status")', async () => {
		const r = await run(['-n', TEAM_B, ...c.kc, 'status']);
		expect(r).toMatchObject({ code: 0, stderr: '' });
		expect(r.stdout).toMatch(/^POOL\s+SIZE\/OBS/);
		expect(r.stdout).toContain('kiosk');
		expect(r.stdout).not.toMatch(/^(desk|lab)\s/m);
	});

	it('ctpool -n NS find TEXT finds in that namespace (it said unknown command "find")', async () => {
		const r = await run(['-n', TEAM_B, 'find', 'bob', ...c.kc]);
		expect(r).toMatchObject({ code: 0, stderr: '' });
		expect(r.stdout).toMatch(/kiosk-1\s+\S+\s+bob@example\.com/);
	});

	it('ctpool --kubeconfig X status POOL and -A before the command', async () => {
		const one = await run([...c.kc, 'status', 'desk', '-o', 'json']);
		expect(one.code).toBe(0);
		expect(JSON.parse(one.stdout).desired).toBe(1);
		// (on the shared real control plane another file's pool may be unreadable: exit 1 then,
		// so only this file's pools are judged)
		const all = await run(['-A', ...c.kc, 'status', '-o', 'json']);
		const ours = (
			JSON.parse(all.stdout).items as Array<{ namespace: string; pool: string; error: unknown }>
		).filter((i) => i.namespace === c.ns || i.namespace === TEAM_B);
		expect(ours.every((i) => i.error === null)).toBe(true);
		const pools = ours.map((i) => `${i.namespace}/${i.pool}`);
		expect(pools).toEqual([`${c.ns}/desk`, `${c.ns}/lab`, `${TEAM_B}/kiosk`].sort());
	});

	it('a flag the command does not take is named as ever, wherever it stands', async () => {
		const r = await run(['--bell', 'status', ...c.kc]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('unknown flag --bell for ctpool status');
	});
});

describe('a word that is not a command', () => {
	it('close to a command: "did you mean", the namespace’s pools and the commands; exit 1, no console', async () => {
		const r = await run(['stauts', ...c.kc], true);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe('');
		expect(r.stderr).toContain('unknown command "stauts"; did you mean "status"?');
		expect(r.stderr).toContain(
			`nor is it a pool in namespace ${c.ns}: the pools there are desk, lab`,
		);
		expect(r.stderr).toContain('the commands are apply, reconcile, status');
	});

	it('with more words, a usage error with "did you mean"', async () => {
		const r = await run(['stauts', 'desk', ...c.kc]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('unknown command "stauts"; did you mean "status"?');
	});

	it('a pool that does not exist: no console, the pools and commands listed, exit 1', async () => {
		const mark = c.mark();
		const r = await run(['kiosk', ...c.kc], true);
		expect(r.code).toBe(1);
		expect(r.stderr).toBe(
			`ctpool: no pool kiosk in namespace ${c.ns}: the pools there are desk, lab; the commands are ${Object.keys(COMMANDS).join(', ')}, sim, completion; pick another namespace with -n, or open every pool with -A\n`,
		);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		const empty = await run(['kiosk', '-n', 'nothing-here', ...c.kc], true);
		expect(empty.stderr).toContain('no pool kiosk in namespace nothing-here: it has no pools');
	});

	it('a pool that exists gets as far as the console (here: not a terminal)', async () => {
		const r = await run(['-n', TEAM_B, 'kiosk', ...c.kc]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(
			'the console needs a terminal; for text output use ctpool status kiosk',
		);
	});
});
