import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSISTENT_MESSAGE } from '../../source/pool/errors.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { ctpool } from './capture.js';

let c: TestCluster;
let kc: string[];
beforeAll(async () => {
	c = await startTestCluster();
	kc = c.kc;
	const ok = await ctpool([
		'apply',
		'desk',
		'--image',
		'ghcr.io/example/desktop:1',
		'--size',
		'2',
		...kc,
	]);
	expect(ok.code).toBe(0);
});
afterAll(() => c?.close());

const IMG = ['--image', 'ghcr.io/example/desktop:1'];

/** argv, and a piece of the message. Each must exit 2 before any cluster call. */
const USAGE: Array<[string[], string | RegExp]> = [
	[['apply', 'desk', ...IMG, '--size', '2', '--bogus'], 'unknown flag --bogus for ctpool apply'],
	[['apply', 'desk', ...IMG, '--size', '2', '-x'], 'unknown flag -x'],
	[['apply', 'desk', ...IMG, '--size', '2', '--no-image'], 'unknown flag --no-image'],
	[['apply', ...IMG, '--size', '2'], 'missing <pool>'],
	[['apply', 'desk', 'extra', ...IMG, '--size', '2'], 'unexpected argument "extra"'],
	[['apply', 'Desk', ...IMG, '--size', '2'], 'not a DNS-1123 label'],
	[['apply', 'a'.repeat(41), ...IMG, '--size', '2'], 'use at most 40'],
	[
		['apply', 'desk', ...IMG, '--size', 'abc'],
		'--size "abc" must be a whole number from 1 to 1000',
	],
	[['apply', 'desk', ...IMG, '--size', '0'], 'must be a whole number from 1 to 1000'],
	[['apply', 'desk', ...IMG, '--size', '1001'], 'must be a whole number from 1 to 1000'],
	[['apply', 'desk', ...IMG, '--size', '2.5'], 'must be a whole number'],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--cpu', 'lots'],
		'--cpu: cpu "lots" is not a Kubernetes quantity',
	],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--mem', '-1Gi'],
		'--mem: memory "-1Gi" must be greater than zero',
	],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--disk', '0'],
		'--disk: disk "0" must be greater than zero',
	],
	[['apply', 'desk', '--image', 'Not An Image', '--size', '2'], 'is not a valid image reference'],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--storage-class', 'Bad_Class'],
		'is not a StorageClass name',
	],
	[['apply', 'desk', ...IMG, '--size', '2', '--mode', 'persistent'], PERSISTENT_MESSAGE],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--mode', 'sticky'],
		'the only supported mode is ephemeral',
	],
	[['apply', 'desk', '--image'], 'the flag --image needs a value'],
	[['apply', 'desk', '--image', '--size', '2'], 'the flag --image needs a value'],
	[
		['apply', 'desk', ...IMG, '--size', '2', '--size', '3'],
		'the flag --size is given more than once',
	],
	[['apply', 'desk', ...IMG, '--size', '2', '--privileged=maybe'], 'is true or false'],
	[['apply', 'desk', ...IMG, '--size', '2', '--read-only'], '--read-only refuses ctpool apply'],
	[['reconcile'], 'missing <pool>'],
	[['reconcile', 'desk', '--interval', '10s'], '--interval only goes with --watch'],
	[
		['reconcile', 'desk', '--watch', '--no-wait'],
		'--no-wait only goes with a one-shot reconcile (--watch goes on with every wave anyway)',
	],
	[['reconcile', 'desk', '--watch', '--interval', 'soon'], 'is not a duration'],
	[['reconcile', 'desk', '--watch', '--interval', '0s'], 'is too short'],
	[['status', 'desk', '-o', 'xml'], 'is not an output format'],
	[['status', 'desk', 'more'], 'unexpected argument "more"'],
	[['claim', 'desk'], 'missing <identity>'],
	[['claim', 'desk', ''], 'the identity is empty'],
	[['claim', 'desk', 'corral-vdi/reconciler'], 'reserved for the reconciler'],
	[['claim', 'desk', 'eve\u001b[2Jx'], 'control characters'],
	[['claim', 'desk', 'two words'], 'white space'],
	[['release', 'desk', 'desk-1'], 'missing <identity>'],
	[['release', 'desk', 'other-1', 'al@x'], '"other-1" is not a member of pool desk'],
	[['release', 'desk', 'desk-01', 'al@x'], 'is not a member of pool desk'],
	[['release', 'desk', 'desk-1', 'al@x', '--force=yes'], 'is true or false'],
	[['delete'], 'missing <pool>'],
	[['delete', 'desk', '--force'], 'unknown flag --force for ctpool delete'],
	[['maintenance', 'desk', 'desk-1'], 'missing <on|off>'],
	[['maintenance', 'desk', 'desk-1', 'maybe'], '"maybe" must be on or off'],
	[['maintenance', 'desk', 'desk-1', 'off', 'why'], 'a reason goes only with on'],
	[['maintenance', 'desk', 'desk-1', 'on', 'a', 'b'], 'unexpected argument "b"'],
	[['frobnicate', 'desk'], 'unknown command "frobnicate"'],
	[['Desk'], 'not a DNS-1123 label'],
	[['--bogus'], 'unknown flag --bogus'],
	[['--size', '3'], '--kubeconfig-out and --size go with --demo'],
	[['status', 'desk', '-n'], 'the flag -n needs a value'],
];

describe('usage errors', () => {
	for (const [argv, message] of USAGE) {
		it(`ctpool ${argv.join(' ').slice(0, 70)} -> exit 2 before any cluster call`, async () => {
			const mark = c.mark();
			const r = await ctpool([...argv, ...kc]);
			expect(r.code).toBe(2);
			expect(r.stdout).toBe('');
			expect(r.stderr.startsWith('ctpool: ')).toBe(true);
			if (typeof message === 'string') expect(r.stderr).toContain(message);
			else expect(r.stderr).toMatch(message);
			expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
			expect(r.stderr).not.toContain('\u001b'); // sanitised
			expect(await c.ctpoolRequests(mark)).toBe(0);
			expect(await c.ctpoolMutations(mark)).toEqual([]);
		});
	}

	it('a new pool without --image or --size is a usage error after one read and zero mutations', async () => {
		const mark = c.mark();
		const r = await ctpool(['apply', 'fresh', '--size', '2', ...kc]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('--image is needed: pool fresh has no definition yet');
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});

	it('a missing kubeconfig is a usage error naming the flag', async () => {
		const r = await ctpool(['status', 'desk', '--kubeconfig', '/nonexistent/kubeconfig']);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('kubeconfig /nonexistent/kubeconfig not found');
	});
});

describe('operation errors exit 1 with the contract text and change nothing', () => {
	it('persistent mode written into the definition', async () => {
		const ok = await ctpool(['apply', 'pers', ...IMG, '--size', '1', ...kc]);
		expect(ok.code).toBe(0);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-pers'))!;
		const data = cm.data as Record<string, string>;
		expect(data.spec).toContain('"ephemeral"');
		await c.api.update('configmaps', {
			...cm,
			data: { ...data, spec: data.spec!.replace('"ephemeral"', '"persistent"') },
		});
		const mark = c.mark();
		for (const argv of [
			['reconcile', 'pers'],
			['claim', 'pers', 'al@example.com'],
			['release', 'pers', 'pers-1', 'al@example.com'],
			['apply', 'pers', '--size', '2'],
		]) {
			const r = await ctpool([...argv, ...kc]);
			expect(r.code).toBe(1);
			expect(r.stderr).toBe(`ctpool: ${PERSISTENT_MESSAGE}\n`);
		}
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});

	it('a corrupt spec', async () => {
		await ctpool(['apply', 'rot', ...IMG, '--size', '1', ...kc]);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-rot'))!;
		await c.api.update('configmaps', { ...cm, data: { spec: '{"image": ' } });
		const mark = c.mark();
		for (const argv of [
			['reconcile', 'rot'],
			['claim', 'rot', 'al@x'],
			['delete', 'rot'],
			['status', 'rot'],
		]) {
			const r = await ctpool([...argv, ...kc]);
			expect(r.code).toBe(1);
			expect(r.stderr).toContain("pool rot: the definition's spec is not valid JSON");
		}
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await c.api.get('pods', 'rot-1')).toBeDefined();
	});

	it('a pool that does not exist', async () => {
		const r = await ctpool(['status', 'nope', ...kc]);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(`pool nope not found in namespace ${c.ns}`);
		const other = await ctpool(['status', 'desk', '-n', 'elsewhere', ...kc]);
		expect(other.code).toBe(1);
		expect(other.stderr).toContain('namespace elsewhere');
	});
});
