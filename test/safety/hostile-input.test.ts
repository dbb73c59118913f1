/**
 * Hostile input: every command with bad arguments and flags, and every operation on a
 * corrupt or hand-edited definition. Each must end with a clear message naming the problem
 * and the fix, exit 1 or 2, and change nothing in the cluster (the sim's audit log).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapName, PERSISTENT_MESSAGE, pvcName } from '../../source/pool/index.js';
import { ctpool } from '../commands/capture.js';
import { BUILT } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { runBinary } from './safety-cluster.js';

const IMG = ['--image', 'ghcr.io/example/desktop:1'];
const APPLY = ['apply', 'desk', ...IMG, '--size', '2'];
/** A message names the fix: a help pointer or an instruction. */
const FIX =
	/see ctpool( [a-z]+)? --help|use |give |set |run |pass |leave out|fix it|try |release it|must be|needs a value|is needed|create it|claim as/;

interface Row {
	argv: string[];
	/** A piece of the message naming the problem. */
	problem: string | RegExp;
	/** Expected exit code (default 2: a usage error, found before any cluster call). */
	code?: 1 | 2;
	/** A known weakness: the row asserts the right behaviour and is marked it.fails. */
	known?: string;
}

const ROWS: Row[] = [
	// apply: sizes
	...['-1', '0', '1001', '99999999999999999999', '2.5', '1e3', 'abc', ' 3', '0x10', '+3'].map(
		(size): Row => ({
			argv: ['apply', 'desk', ...IMG, '--size', size],
			problem: 'must be a whole number from 1 to 1000',
		}),
	),
	// apply: quantities
	...(
		[
			['--cpu', 'lots', 'is not a Kubernetes quantity'],
			['--cpu', '-1', 'must be greater than zero'],
			['--cpu', '0', 'must be greater than zero'],
			['--cpu', '1.5.5', 'is not a Kubernetes quantity'],
			['--cpu', 'NaN', 'is not a Kubernetes quantity'],
			['--cpu', 'Infinity', 'is not a Kubernetes quantity'],
			['--mem', '2GB', 'is not a Kubernetes quantity'],
			['--mem', '-1Gi', 'must be greater than zero'],
			['--mem', '1e400', /is not a Kubernetes quantity|too large/],
			['--mem', '9999999999999999Ei', 'is not a Kubernetes quantity'],
			['--disk', '0', 'must be greater than zero'],
			['--disk', '5 Gi', 'is not a Kubernetes quantity'],
			['--disk', '5gi', 'is not a Kubernetes quantity'],
		] as const
	).map(
		([flag, v, problem]): Row => ({
			argv: [...APPLY, flag, v],
			problem,
		}),
	),
	// apply: images
	...[
		'Not An Image',
		'example/Desktop:1',
		':tag',
		'a:b:c',
		'img:tag\u001b[31m',
		'x'.repeat(300),
		'ghcr.io/x/y@sha256:abc',
		'ghcr.io/x/../y:1',
		'ghcr.io/x/y:1\n',
	].map(
		(image): Row => ({
			argv: ['apply', 'desk', '--image', image, '--size', '2'],
			problem: 'is not a valid image reference',
		}),
	),
	{ argv: ['apply', 'desk', '--image', '', '--size', '2'], problem: '--image needs a value' },
	{ argv: ['apply', 'desk', '--image', '--size', '2'], problem: '--image needs a value' },
	// apply: storage classes and modes
	...['Bad_Class', 'a'.repeat(300), '../x', 'fast ssd'].map(
		(sc): Row => ({
			argv: [...APPLY, '--storage-class', sc],
			problem: 'is not a StorageClass name',
		}),
	),
	{ argv: [...APPLY, '--mode', 'persistent'], problem: PERSISTENT_MESSAGE },
	{ argv: [...APPLY, '--mode', 'sticky'], problem: 'the only supported mode is ephemeral' },
	// pool names, on every command that takes one
	...['apply', 'reconcile', 'status', 'claim', 'release', 'delete', 'maintenance'].flatMap(
		(cmd): Row[] =>
			(
				[
					['', 'the pool name is empty'],
					['Desk', 'not a DNS-1123 label'],
					['a'.repeat(41), 'use at most 40'],
					['a'.repeat(5000), 'use at most 40'],
					['desk_1', 'not a DNS-1123 label'],
					['desk-', 'not a DNS-1123 label'],
					['dé-sk', 'not a DNS-1123 label'],
					['desk\u001b[2J', 'not a DNS-1123 label'],
					['../etc', 'not a DNS-1123 label'],
					['corral-vdi/reconciler', 'not a DNS-1123 label'],
				] as const
			).map(([pool, problem]) => ({
				argv:
					cmd === 'apply'
						? ['apply', pool, ...IMG, '--size', '2']
						: cmd === 'claim'
							? ['claim', pool, 'al@example.com']
							: cmd === 'release'
								? ['release', pool, `${pool}-1`, 'al@example.com']
								: cmd === 'maintenance'
									? ['maintenance', pool, `${pool}-1`, 'on']
									: [cmd, pool],
				problem,
			})),
	),
	// unknown flags, flag values, missing and extra arguments
	{ argv: [...APPLY, '--bogus'], problem: 'unknown flag --bogus for ctpool apply' },
	{ argv: [...APPLY, '-x'], problem: 'unknown flag -x' },
	{ argv: [...APPLY, '--no-image'], problem: 'unknown flag --no-image' },
	{ argv: [...APPLY, '--image-pull-secret=x'], problem: 'unknown flag --image-pull-secret' },
	{ argv: [...APPLY, '--size', '3'], problem: 'the flag --size is given more than once' },
	{ argv: [...APPLY, '--privileged=maybe'], problem: 'is true or false' },
	{ argv: [...APPLY, '--read-only'], problem: '--read-only refuses ctpool apply' },
	{ argv: [...APPLY, '--\u001b]0;pwned\u0007'], problem: 'unknown flag' },
	{ argv: ['apply', ...IMG, '--size', '2'], problem: 'missing <pool>' },
	{
		argv: ['apply', 'desk', 'extra', ...IMG, '--size', '2'],
		problem: 'unexpected argument "extra"',
	},
	{ argv: ['apply'], problem: 'missing <pool>' },
	{ argv: ['reconcile'], problem: 'missing <pool>' },
	{ argv: ['reconcile', 'desk', 'more'], problem: 'unexpected argument "more"' },
	{ argv: ['reconcile', 'desk', '--force'], problem: 'unknown flag --force for ctpool reconcile' },
	{
		argv: ['reconcile', 'desk', '--interval', '10s'],
		problem: '--interval only goes with --watch',
	},
	...['soon', '0s', '-5s', '1x', '10', '1m-5s'].map(
		(v): Row => ({
			argv: ['reconcile', 'desk', '--watch', '--interval', v],
			problem: /is not a duration|is too short/,
		}),
	),
	...['600h', '999999999999h'].map(
		(v): Row => ({
			argv: ['reconcile', 'desk', '--watch', '--interval', v],
			problem: 'too long',
		}),
	),
	{ argv: ['reconcile', 'desk', '--watch=maybe'], problem: 'is true or false' },
	{ argv: ['status', 'desk', '-A'], problem: 'cannot be shown by name across all namespaces' },
	{ argv: ['status', 'desk', 'more'], problem: 'unexpected argument "more"' },
	{ argv: ['status', 'desk', '-o', 'xml'], problem: 'is not an output format' },
	{ argv: ['status', 'desk', '-o'], problem: 'the flag -o needs a value' },
	{ argv: ['status', 'desk', '--output=\u001b[31m'], problem: 'is not an output format' },
	{ argv: ['claim', 'desk'], problem: 'missing <identity>' },
	{ argv: ['claim'], problem: 'missing <pool> <identity>' },
	{ argv: ['claim', 'desk', 'al@example.com', 'extra'], problem: 'unexpected argument "extra"' },
	{ argv: ['claim', 'desk', 'al@example.com', '--force'], problem: 'unknown flag --force' },
	{ argv: ['release', 'desk', 'desk-1'], problem: 'missing <identity>' },
	{ argv: ['release', 'desk'], problem: 'missing <member> <identity>' },
	{ argv: ['release', 'desk', 'desk-1', 'al@x', 'more'], problem: 'unexpected argument "more"' },
	{ argv: ['release', 'desk', 'desk-1', 'al@x', '--force=yes'], problem: 'is true or false' },
	...['other-1', 'desk-0', 'desk-01', 'desk-1 ', 'desk-1\n', 'desk--1', 'desk-1e3', '', 'desk'].map(
		(member): Row => ({
			argv: ['release', 'desk', member, 'al@example.com'],
			problem: 'is not a member of pool desk',
		}),
	),
	{ argv: ['delete'], problem: 'missing <pool>' },
	{ argv: ['delete', 'desk', 'more'], problem: 'unexpected argument "more"' },
	{ argv: ['delete', 'desk', '--force'], problem: 'unknown flag --force for ctpool delete' },
	{ argv: ['maintenance', 'desk', 'desk-1'], problem: 'missing <on|off>' },
	{ argv: ['maintenance', 'desk', 'desk-1', 'maybe'], problem: 'must be on or off' },
	{ argv: ['maintenance', 'desk', 'desk-1', 'off', 'why'], problem: 'a reason goes only with on' },
	{ argv: ['maintenance', 'desk', 'desk-1', 'on', 'a', 'b'], problem: 'unexpected argument "b"' },
	{ argv: ['maintenance', 'desk', 'desk-9x', 'on'], problem: 'is not a member of pool desk' },
	...['bad\u001b[2Jreason', 'line\nbreak', 'r'.repeat(257), 'zero\u200bwidth'].map(
		(reason): Row => ({
			argv: ['maintenance', 'desk', 'desk-1', 'on', reason],
			problem: 'the reason must be printable text of at most 256 characters',
		}),
	),
	// identities, for claim and release
	...['claim', 'release'].flatMap((cmd): Row[] =>
		(
			[
				['', 'the identity is empty'],
				['corral-vdi/reconciler', 'reserved for the reconciler'],
				['eve\u001b[2Jx', 'control characters'],
				['a\nb', 'control characters'],
				['tab\there', 'control characters'],
				['del\u007f', 'control characters'],
				['c1\u0085x', 'control characters'],
				['two words', 'white space'],
				[' lead@example.com', 'white space'],
				['x'.repeat(254), 'use at most 253'],
				['alice\u200b@example.com', 'invisible'],
				['alice\u202e@example.com', 'invisible'],
				['\ufeffalice@example.com', 'invisible'],
			] as const
		).map(([identity, problem]) => ({
			argv: cmd === 'claim' ? ['claim', 'desk', identity] : ['release', 'desk', 'desk-2', identity],
			problem,
		})),
	),
	// the global flags and the top level
	{ argv: ['status', 'desk', '-n'], problem: 'the flag -n needs a value' },
	{ argv: ['status', 'desk', '--context'], problem: 'the flag --context needs a value' },
	{
		argv: ['status', 'desk', '--context', 'nope'],
		problem: '--context "nope" is neither a Corral kubevirt context',
	},
	{ argv: ['status', 'desk', '--kubeconfig='], problem: 'the flag --kubeconfig needs a value' },
	{ argv: ['status', 'desk', '--identity'], problem: 'the flag --identity needs a value' },
	...['../default', 'BAD_NS', 'x/y', 'a'.repeat(64), 'ns\u001b[2J'].map(
		(ns): Row => ({
			argv: ['status', 'desk', '-n', ns],
			problem: 'is not a valid namespace',
		}),
	),
	{ argv: ['frobnicate', 'desk'], problem: 'unknown command "frobnicate"' },
	{ argv: ['--bogus'], problem: 'unknown flag --bogus' },
	{ argv: ['Desk'], problem: 'not a DNS-1123 label' },
	{ argv: ['--size', '3'], problem: '--kubeconfig-out and --size go with --demo' },
	{ argv: ['--demo', '--size', '0'], problem: 'must be a whole number from 1 to 1000' },
];

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
	const ok = await ctpool([...APPLY, '--cpu', '1', '--mem', '64Mi', ...c.kc]);
	expect(ok.stderr).toBe('');
	await c.running('desk');
	const claimed = await ctpool(['claim', 'desk', 'alice@example.com', ...c.kc]);
	expect(claimed.stdout).toBe('desk-1\n');
}, 60_000);
afterAll(() => c?.close());

function label(argv: readonly string[]): string {
	return JSON.stringify(argv)
		.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\ufeff]/g, '?')
		.slice(0, 90);
}

describe('every command refuses bad input clearly, with exit 1 or 2, and changes nothing', () => {
	for (const row of ROWS) {
		const test = row.known ? it.fails : it;
		test(`ctpool ${label(row.argv)}${row.known ? ` (known: ${row.known})` : ''}`, async () => {
			const mark = c.mark();
			// A command that wrongly starts watching is stopped after a few seconds.
			const r = await ctpool([...row.argv, ...c.kc], { signal: AbortSignal.timeout(1500) });
			expect(await c.ctpoolMutations(mark)).toEqual([]);
			expect(r.code).toBe(row.code ?? 2);
			if ((row.code ?? 2) === 2) expect(await c.ctpoolRequests(mark)).toBe(0);
			expect(r.stdout).toBe('');
			expect(r.stderr.startsWith('ctpool: ')).toBe(true);
			expect(r.stderr.endsWith('\n')).toBe(true);
			expect(r.stderr.trimEnd()).not.toContain('\n');
			if (typeof row.problem === 'string') expect(r.stderr).toContain(row.problem);
			else expect(r.stderr).toMatch(row.problem);
			expect(r.stderr).toMatch(FIX);
			expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
			expect(r.stderr).not.toMatch(/\bat .*\.(js|ts):\d+/);
		});
	}
});

/** Corrupt or hand-edited `spec` texts of the definition ConfigMap. */
const CORRUPT: Array<[string, string | null, string | RegExp]> = [
	['bad JSON', '{"image": ', 'is not valid JSON'],
	['an empty spec', '', 'has no "spec"'],
	['no spec key at all', null, 'has no "spec"'],
	['JSON null', 'null', 'is not a JSON object'],
	['a JSON array', '[]', 'is not a JSON object'],
	['a JSON string', '"desk"', 'is not a JSON object'],
	['a number', '42', 'is not a JSON object'],
	['size as a string', '{"image":"ghcr.io/example/desktop:1","size":"2"}', 'size "2"'],
	['a fractional size', '{"image":"ghcr.io/example/desktop:1","size":2.5}', 'whole number'],
	['a negative size', '{"image":"ghcr.io/example/desktop:1","size":-1}', 'whole number'],
	['a huge size', '{"image":"ghcr.io/example/desktop:1","size":1e9}', 'whole number'],
	['image as a number', '{"image":42,"size":2}', 'is not a valid image reference'],
	['a missing image', '{"size":2}', 'image is missing'],
	['a missing size', '{"image":"ghcr.io/example/desktop:1"}', 'size is missing'],
	['an unknown field', '{"image":"ghcr.io/example/desktop:1","size":2,"sise":0}', 'unknown field'],
	[
		'a __proto__ field',
		'{"image":"ghcr.io/example/desktop:1","size":2,"__proto__":{"size":0}}',
		'unknown field',
	],
	[
		'privileged as a string',
		'{"image":"ghcr.io/example/desktop:1","size":2,"privileged":"yes"}',
		'must be true or false',
	],
	[
		'a bad quantity',
		'{"image":"ghcr.io/example/desktop:1","size":2,"cpu":"lots"}',
		'is not a Kubernetes quantity',
	],
	[
		'an escape sequence in the image',
		'{"image":"ghcr.io/x/y:1\\u001b]0;pwned\\u0007","size":2}',
		'is not a valid image reference',
	],
	['a megabyte of junk', `{"image":"${'x'.repeat(1_000_000)}","size":2}`, 'is not a valid image'],
	[
		'persistent mode',
		'{"image":"ghcr.io/example/desktop:1","size":2,"mode":"persistent"}',
		PERSISTENT_MESSAGE,
	],
];

describe('a corrupt or hand-edited definition never makes ctpool delete anything', () => {
	let pool = '';
	let n = 0;
	const setSpec = (text: string | null) => {
		const cm = c.sim.store.get('configmaps', 'corral', configMapName(pool))!;
		const data = { ...((cm.data as Record<string, string>) ?? {}) };
		if (text === null) delete data.spec;
		else data.spec = text;
		c.sim.store.update('configmaps', { ...cm, data }, { who: 'test' });
	};

	for (const [what, text, problem] of CORRUPT) {
		it(`${what}: reconcile, claim, release, release --force, delete, status, maintenance and apply refuse it`, async () => {
			pool = `rot${++n}`;
			const made = await ctpool([
				'apply',
				pool,
				...IMG,
				'--size',
				'2',
				'--cpu',
				'1',
				'--mem',
				'64Mi',
				...c.kc,
			]);
			expect(made.code).toBe(0);
			await c.running(pool);
			const held = await ctpool(['claim', pool, 'alice@example.com', ...c.kc]);
			expect(held.code).toBe(0);
			setSpec(text);
			const mark = c.mark();
			const m1 = `${pool}-1`;
			// A persistent definition is readable: status shows it and maintenance marks a member.
			const persistent = problem === PERSISTENT_MESSAGE;
			const runs: Array<[string[], number]> = [
				[['reconcile', pool], 1],
				[['claim', pool, 'bob@example.com'], 1],
				[['release', pool, m1, 'alice@example.com'], 1],
				[['release', pool, `${pool}-2`, 'admin@example.com', '--force'], 1],
				[['delete', pool], 1],
				[['status', pool], persistent ? 0 : 1],
				[['status', pool, '-o', 'json'], persistent ? 0 : 1],
				[['maintenance', pool, `${pool}-2`, 'on', 'disk check'], persistent ? 0 : 1],
				[['apply', pool, '--size', '3'], persistent ? 1 : 2],
			];
			for (const [argv, code] of runs) {
				const r = await ctpool([...argv, ...c.kc]);
				expect({ argv: argv.join(' '), code: r.code }).toEqual({ argv: argv.join(' '), code });
				if (code === 0) continue;
				if (argv[0] !== 'apply' || persistent) {
					if (typeof problem === 'string') expect(r.stderr).toContain(problem);
					else expect(r.stderr).toMatch(problem);
					if (problem !== PERSISTENT_MESSAGE) expect(r.stderr).toContain(`pool ${pool}`);
				} else expect(r.stderr).toContain('no readable definition');
				expect(r.stderr).toMatch(FIX);
				expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
			}
			const muts = await c.ctpoolMutations(mark);
			expect(muts.filter((x) => x.verb === 'delete' || x.verb === 'deletecollection')).toEqual([]);
			expect(
				muts
					.filter((x) => x.resource !== 'events')
					.filter((x) => !(persistent && x.verb === 'patch' && x.name === pvcName(`${pool}-2`))),
			).toEqual([]);
			for (const member of [m1, `${pool}-2`]) {
				expect(
					c.sim.store.get('pods', 'corral', member)?.metadata.deletionTimestamp,
				).toBeUndefined();
				expect(
					c.sim.store.get('persistentvolumeclaims', 'corral', pvcName(member))?.metadata
						.deletionTimestamp,
				).toBeUndefined();
			}
		});
	}

	it('a corrupt recorded status is rewritten by reconcile, and nothing is deleted', async () => {
		pool = 'rotstatus';
		expect((await ctpool(['apply', pool, ...IMG, '--size', '2', '--cpu', '1', ...c.kc])).code).toBe(
			0,
		);
		await c.running(pool);
		const cm = c.sim.store.get('configmaps', 'corral', configMapName(pool))!;
		c.sim.store.update(
			'configmaps',
			{ ...cm, data: { ...(cm.data as Record<string, string>), status: '{"members": [' } },
			{ who: 'test' },
		);
		const mark = c.mark();
		const r = await ctpool(['reconcile', pool, ...c.kc]);
		expect(r.code).toBe(0);
		const muts = await c.ctpoolMutations(mark);
		expect(muts.filter((x) => x.verb === 'delete')).toEqual([]);
		expect(muts.map((x) => `${x.verb} ${x.resource}`)).toContain('patch configmaps');
		const status = JSON.parse(
			(c.sim.store.get('configmaps', 'corral', configMapName(pool))!.data as { status: string })
				.status,
		);
		expect(status.desired).toBe(2);
	});

	it('objects that look like members but are not never get deleted, by reconcile or delete', async () => {
		pool = 'foreign';
		expect((await ctpool(['apply', pool, ...IMG, '--size', '1', '--cpu', '1', ...c.kc])).code).toBe(
			0,
		);
		await c.running(pool);
		const pod = (name: string, labels: Record<string, string>) =>
			c.sim.store.create(
				'pods',
				{
					apiVersion: 'v1',
					kind: 'Pod',
					metadata: { name, namespace: 'corral', labels },
					spec: { containers: [{ name: 'c', image: 'busybox' }] },
				},
				{ who: 'test' },
			);
		pod('foreign-3', {}); // a member name above size, without the pool label
		pod('foreign-01', { 'corral.dev/vdi-ct-pool': pool }); // labelled, not a member name
		pod('foreign-x', { 'corral.dev/vdi-ct-pool': pool });
		pod('other-2', { 'corral.dev/vdi-ct-pool': pool }); // another pool's name, our label
		const mark = c.mark();
		expect((await ctpool(['reconcile', pool, ...c.kc])).code).toBe(0);
		expect((await ctpool(['delete', pool, ...c.kc])).code).toBe(0);
		const deleted = (await c.ctpoolMutations(mark)).filter(
			(x) => x.verb === 'delete' && x.resource === 'pods',
		);
		expect(deleted.map((x) => x.name)).toEqual(['foreign-1']);
		for (const name of ['foreign-3', 'foreign-01', 'foreign-x', 'other-2'])
			expect(c.sim.store.get('pods', 'corral', name)?.metadata.deletionTimestamp).toBeUndefined();
	});
});

describe('reconcile --watch with the longest interval (24h)', () => {
	let reads = -1;
	it('runs for two seconds (the scene)', async () => {
		const mark = c.mark();
		await ctpool(['reconcile', 'desk', '--watch', '--interval', '24h', ...c.kc], {
			signal: AbortSignal.timeout(2000),
		});
		reads = c.sim.audit
			.since(mark)
			.requests.filter((x) => x.path.endsWith(`/configmaps/${configMapName('desk')}`)).length;
	});

	// Past 2^31 ms setTimeout fires at once: longer intervals are refused and the sleep is
	// clamped, so watch mode never reconciles in a tight loop.
	it('never reconciles in a tight loop', () => {
		expect(reads).toBeGreaterThanOrEqual(1);
		expect(reads).toBeLessThan(10);
	});
});

// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
// only when the file is run alone before `npm run build`.
describe.skipIf(!BUILT)('the built binary', () => {
	it('refuses the reserved identity and a corrupt definition the same way, changing nothing', async () => {
		const mark = c.mark();
		const reserved = await runBinary(['claim', 'desk', 'corral-vdi/reconciler', ...c.kc]);
		expect(reserved.code).toBe(2);
		expect(reserved.stderr).toContain('reserved for the reconciler');
		expect(reserved.stdout).toBe('');
		const cm = c.sim.store.get('configmaps', 'corral', configMapName('desk'))!;
		const data = cm.data as Record<string, string>;
		c.sim.store.update(
			'configmaps',
			{ ...cm, data: { ...data, spec: '{"image": [' } },
			{ who: 'test' },
		);
		try {
			const rec = await runBinary(['reconcile', 'desk', ...c.kc]);
			expect(rec.code).toBe(1);
			expect(rec.stderr).toMatch(
				/^ctpool: pool desk: the definition's spec is not valid JSON .*; fix it with ctpool apply desk/,
			);
			const del = await runBinary(['delete', 'desk', ...c.kc]);
			expect(del.code).toBe(1);
		} finally {
			const now = c.sim.store.get('configmaps', 'corral', configMapName('desk'))!;
			c.sim.store.update('configmaps', { ...now, data }, { who: 'test' });
		}
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(c.sim.store.get('pods', 'corral', 'desk-1')?.metadata.deletionTimestamp).toBeUndefined();
	});
});
