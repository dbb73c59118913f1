/**
 * Least privilege: ctpool run as a ServiceAccount bound to exactly the Role `ctpool rbac`
 * prints (applied with `kubectl apply -f -`) can do everything; under `--read-only` it can
 * read and nothing else; and with any one rule (one verb of one resource) taken away,
 * exactly the operations that need it fail, exit 1, naming the verb, the resource and the
 * namespace, and the console shows the matching keys disabled with that reason.
 */

import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from '../../source/commands/io.js';
import { runCli } from '../../source/commands/main.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { startPoolWatch } from '../../source/kube/pool-watch.js';
import type { PolicyRule } from '../../source/pool/permissions.js';
import { deniedCommands } from '../../source/tui/access.js';
import { createEngineOperations } from '../../source/tui/engine-operations.js';
import { Command } from '../../source/tui/keys.js';
import { createConsoleStore, currentPool } from '../../source/tui/store.js';
import { ctpool, type RunResult } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { accountKubeconfig } from './safety-cluster.js';

/** The operations a scenario runs as the account under test. */
type Op =
	| 'status'
	| 'apply-new'
	| 'apply-existing'
	| 'reconcile'
	| 'maintenance'
	| 'claim'
	| 'release'
	| 'release-force'
	| 'delete'
	| 'reconcile-watch';

const OPS: readonly Op[] = [
	'status',
	'apply-new',
	'apply-existing',
	'reconcile',
	'maintenance',
	'claim',
	'release',
	'release-force',
	'delete',
	'reconcile-watch',
];

const READ = ['get configmaps', 'list pods', 'list persistentvolumeclaims', 'list leases'];
/** A reconcile that has a member to make: it holds the pool's reconcile lease while it works and records the status. */
const RECONCILE_WORK = [
	'create pods',
	'create persistentvolumeclaims',
	'create leases',
	'delete leases',
	'patch configmaps',
];
/**
 * Release destroys the member (pod, PVC, claim lease) and makes it again. A console Service
 * is read before it is deleted (never deleted on its name alone): with none there, as here,
 * neither get nor delete on services is used.
 */
const RELEASE = [
	'get configmaps',
	'get leases',
	'update leases',
	'get pods',
	'get persistentvolumeclaims',
	'delete pods',
	'delete persistentvolumeclaims',
	'delete leases',
	'create persistentvolumeclaims',
	'create pods',
];

/**
 * What each operation needs, from what the contract says it does ("verb resource"). An
 * operation whose need is taken away must fail; one that does not need it must succeed.
 */
const NEEDS: Record<Op, readonly string[]> = {
	// Reads the definition, the members and their leases.
	status: READ,
	// Creates the definition, then reconciles once: the new members are made.
	'apply-new': [
		...READ,
		'create configmaps',
		...RECONCILE_WORK.filter((n) => n !== 'patch configmaps'),
	],
	// Changes the definition with a merge patch (never a PUT), then reconciles once (nothing to make).
	'apply-existing': [...READ, 'patch configmaps'],
	// A member's pod is gone: reconcile starts it again.
	reconcile: [
		...READ,
		'get pods',
		'get persistentvolumeclaims',
		...RECONCILE_WORK.filter(
			(n) => n !== 'create persistentvolumeclaims' && n !== 'patch configmaps',
		),
	],
	// Reads the member's PVC (it must be the pool's), then marks it.
	maintenance: ['get configmaps', 'get persistentvolumeclaims', 'patch persistentvolumeclaims'],
	// Takes the member's claim lease and marks its PVC.
	claim: [...READ, 'create leases'],
	release: RELEASE,
	'release-force': RELEASE,
	// Scales to 0 under the reconcile lease, deletes every member, then the definition.
	delete: [
		...READ,
		'patch configmaps',
		'create leases',
		'delete leases',
		'get pods',
		'get persistentvolumeclaims',
		'delete pods',
		'delete persistentvolumeclaims',
		'delete configmaps',
	],
	// Lists and watches the four kinds; a deleted pod brings a reconcile that starts it again.
	'reconcile-watch': [
		...READ,
		'list configmaps',
		'watch configmaps',
		'watch pods',
		'watch persistentvolumeclaims',
		'watch leases',
		'get pods',
		'get persistentvolumeclaims',
		'create pods',
		'create leases',
		'delete leases',
		// A watch-mode run says every failure, the status not recorded too.
		'patch configmaps',
	],
};

/**
 * What an operation does beside its work, whose denial it reports (naming the verb, resource
 * and namespace) without failing: the claim's display copy of the holder on the PVC (the
 * Lease is the claim), and the status a reconcile records.
 */
const REPORTS: Partial<Record<Op, readonly string[]>> = {
	claim: ['patch persistentvolumeclaims'],
	'apply-new': ['patch configmaps'],
	reconcile: ['patch configmaps'],
};

/** The console's mutating keys and the operation each one runs. */
const KEY_OPS: ReadonlyArray<[Command, Op | null]> = [
	[Command.Claim, 'claim'],
	[Command.Release, 'release-force'],
	[Command.Reconcile, 'reconcile'],
	[Command.Maintenance, 'maintenance'],
	// The console of a member (kubectl exec) has no command of its own here.
	[Command.Console, null],
];

/**
 * What the console's access review holds each key to: the needs of its operation in any
 * state of the pool (a claim may start a stopped member or renew an expired claim; a
 * reconcile may also replace or remove members). A key disabled without one of these is a
 * key disabled for nothing.
 */
const KEY_NEEDS: Partial<Record<Command, readonly string[]>> = {
	[Command.Claim]: [...NEEDS.claim, 'update leases', 'create pods'],
	[Command.Release]: NEEDS.release,
	[Command.Reconcile]: [
		...NEEDS.reconcile,
		'create persistentvolumeclaims',
		'delete pods',
		'delete persistentvolumeclaims',
	],
	[Command.Maintenance]: NEEDS.maintenance,
	// The console of a member: kubectl exec reads the pod, then execs.
	[Command.Console]: ['get pods', 'create pods/exec'],
};

/** Every rule of the Role `ctpool rbac` prints, one verb of one resource: [group, resource, verb]. */
const RULES = [
	...['get', 'list', 'create', 'patch', 'delete', 'watch'].flatMap((v) => [
		['', 'configmaps', v],
		['', 'pods', v],
		['', 'persistentvolumeclaims', v],
	]),
	['', 'services', 'delete'],
	['', 'services', 'get'],
	['', 'pods/exec', 'create'],
	// optional: the console's container log (L)
	['', 'pods/log', 'get'],
	...['get', 'list', 'create', 'update', 'delete', 'watch'].map((v) => [
		'coordination.k8s.io',
		'leases',
		v,
	]),
	// optional: create records Events; list and watch read them back (ctpool audit, the console)
	...['create', 'list', 'watch'].map((v) => ['', 'events', v]),
] as Array<[string, string, string]>;

/** The Role's rules, one entry per verb of a resource. */
function ruleList(
	rules: readonly PolicyRule[],
): Array<{ group: string; resource: string; verb: string }> {
	const out: Array<{ group: string; resource: string; verb: string }> = [];
	for (const r of rules)
		for (const resource of r.resources)
			for (const verb of r.verbs) out.push({ group: r.apiGroups[0]!, resource, verb });
	return out;
}

/** The rules with one verb of one resource taken out. */
function without(
	rules: readonly PolicyRule[],
	group: string,
	resource: string,
	verb: string,
): PolicyRule[] {
	const out: PolicyRule[] = [];
	for (const r of rules)
		for (const res of r.resources) {
			const verbs =
				r.apiGroups.includes(group) && res === resource
					? r.verbs.filter((v) => v !== verb)
					: r.verbs;
			if (verbs.length > 0) out.push({ apiGroups: r.apiGroups, resources: [res], verbs });
		}
	return out;
}

/** The ctpool message for a denied verb on a resource in the namespace (source/kube/errors.ts). */
function denialPattern(verb: string, resource: string): RegExp {
	const r = resource.replace('/', '\\/');
	return new RegExp(
		`forbidden: (cannot ${verb} ${r}\\b[^\\n]* in namespace ${c.ns}|[^\\n]*cannot ${verb} resource "${r.split('\\/')[0]}"[^\\n]* in the namespace "${c.ns}")`,
	);
}

let c: TestCluster;
let role: { rules: PolicyRule[] };

/**
 * Binds ServiceAccount `name` to a Role `name` with exactly these rules (as the admin) and
 * returns its kubeconfig: on the real control plane, the real RBAC authorizer judges it.
 */
function grant(name: string, rules: PolicyRule[]): Promise<string> {
	return c.grant(name, rules);
}

/** `ctpool <argv>` in this process, in the test namespace (-n, else $CORRAL_NAMESPACE). */
function ctpoolHere(argv: string[]): Promise<RunResult> {
	return ctpool(argv, { env: { NO_COLOR: '1', CORRAL_NAMESPACE: c.ns } });
}

const admin = (argv: string[]) => ctpoolHere([...argv, ...c.kc]);

async function podUid(name: string): Promise<string | undefined> {
	return (await c.api.get('pods', name))?.metadata.uid;
}

function running(pool: string, n: number): Promise<unknown> {
	return waitFor(
		async () =>
			(await c.api.list('pods', { labelSelector: `corral.dev/vdi-ct-pool=${pool}` })).filter(
				(p) => (p.status as { phase?: string } | undefined)?.phase === 'Running',
			).length === n,
		`${n} running members of ${pool}`,
	);
}

/** What each operation of a scenario ended with. */
type Outcomes = Record<Op, RunResult>;

/**
 * Prepares pools `<tag>p` (3 members, two claimed), `<tag>r` (1 member, its pod gone),
 * `<tag>d` and `<tag>w` (1 member each) as the admin, then runs every operation under `kc`.
 */
async function scenario(tag: string, kc: string): Promise<Outcomes> {
	const [p, q, r, d, w] = ['p', 'q', 'r', 'd', 'w'].map((s) => `${tag}${s}`) as [
		string,
		string,
		string,
		string,
		string,
	];
	const made = await Promise.all(
		[
			[p, '3'],
			[r, '1'],
			[d, '1'],
			[w, '1'],
		].map(([pool, size]) => admin(['apply', pool!, ...POOL_FLAGS, '--size', size!])),
	);
	for (const m of made) expect(m.stderr).toBe('');
	await Promise.all([running(p, 3), running(r, 1), running(d, 1), running(w, 1)]);
	const held1 = (await admin(['claim', p, 'alice@example.com'])).stdout.trim();
	const held2 = (await admin(['claim', p, 'bob@example.com'])).stdout.trim();
	const free = [`${p}-1`, `${p}-2`, `${p}-3`].find((m) => m !== held1 && m !== held2)!;
	expect([held1, held2, free].sort()).toEqual([`${p}-1`, `${p}-2`, `${p}-3`]);
	await c.api.delete('pods', `${r}-1`, { gracePeriodSeconds: 0 });
	await waitFor(async () => (await podUid(`${r}-1`)) === undefined, `${r}-1 gone`);
	await setStatusAside(r);
	await setStatusAside(w);

	const as = (argv: string[]) => ctpoolHere([...argv, '--kubeconfig', kc]);
	const out = {} as Outcomes;
	out.status = await as(['status', p, '-o', 'json']);
	out['apply-new'] = await as(['apply', q, ...POOL_FLAGS, '--size', '1']);
	out['apply-existing'] = await as(['apply', p, '--max-unavailable', '2']);
	out.reconcile = await as(['reconcile', r]);
	const on = await as(['maintenance', p, free, 'on', 'check']);
	const off = await as(['maintenance', p, free, 'off']);
	out.maintenance = on.code !== 0 ? on : off;
	out.claim = await as(['claim', p, 'carol@example.com']);
	out.release = await as(['release', p, held1, 'alice@example.com']);
	out['release-force'] = await as(['release', p, held2, 'admin@example.com', '--force']);
	out.delete = await as(['delete', d]);
	out['reconcile-watch'] = await watchRun(w, kc);
	if (process.env.LP_DUMP)
		console.log(
			tag,
			JSON.stringify(Object.fromEntries(OPS.map((op) => [op, [out[op].code, out[op].stderr]]))),
		);
	return out;
}

/**
 * Sets the recorded status of a pool aside, so that its next reconcile surely has a new one
 * to record (an unchanged status is not written, and a denied write would go unseen).
 */
async function setStatusAside(pool: string): Promise<void> {
	await c.api.patch('configmaps', `corral-vdi-ctpool-${pool}`, { data: { status: '{}' } });
}

/** The status recorded in the pool's definition ConfigMap. */
async function recordedStatus(pool: string): Promise<string | undefined> {
	const cm = await c.api.get('configmaps', `corral-vdi-ctpool-${pool}`);
	return (cm?.data as Record<string, string> | undefined)?.status;
}

/**
 * `reconcile <pool> --watch` ended by an abort (Ctrl-C): it works when the pod of its one
 * member, deleted once its watches have listed (its first reconcile has recorded the status
 * set aside), is started again through the watch (the interval is 10 minutes). A watch-mode
 * run prints a failure and goes on (exit 0 at Ctrl-C, as documented), so a denial it
 * printed, or a pod it did not start again, is its failure here, with code 1.
 */
async function watchRun(pool: string, kc: string): Promise<RunResult> {
	const controller = new AbortController();
	const member = `${pool}-1`;
	const before = await podUid(member);
	let stdout = '';
	let stderr = '';
	const io: CommandIo = {
		stdout: { write: (t: string) => (stdout += t), isTTY: false },
		stderr: { write: (t: string) => (stderr += t), isTTY: false },
		env: { NO_COLOR: '1', CORRAL_NAMESPACE: c.ns },
		signal: controller.signal,
		engine: { deleteTimeoutMs: 20_000 },
	};
	let code: number | undefined;
	const run = runCli(
		['reconcile', pool, '--watch', '--interval', '10m', '--kubeconfig', kc],
		io,
	).then((n) => {
		code = n;
	});
	let again = false;
	try {
		await waitFor(() => code !== undefined || /Ctrl-C stops/.test(stderr), 'the watch to start');
		// Its watches list (or are refused) after the banner; the pool found in their lists is
		// reconciled at once, recording its status. A watch starts where its list ended, so a
		// deletion after that reaches it. (Where the status cannot be recorded, a short wait.)
		await waitFor(async () => (await recordedStatus(pool)) !== '{}', {
			what: 'the first reconcile of the watch',
			timeoutMs: 5_000,
		}).catch(() => undefined);
		await c.api.delete('pods', member, { gracePeriodSeconds: 0 });
		again = await waitFor(
			async () => {
				const uid = await podUid(member);
				return uid !== undefined && uid !== before;
			},
			{ what: `${member} started again through the watch`, timeoutMs: 15_000 },
		).then(
			() => true,
			() => false,
		);
	} finally {
		controller.abort();
	}
	await run;
	// A denial it printed, or a pod it did not start again, is its failure.
	const failed = !again || /forbidden/.test(stderr.replace(/^.*Events are not recorded.*$/gm, ''));
	return { code: failed ? code || 1 : code!, stdout, stderr };
}

describeKubectl('least privilege', () => {
	beforeAll(async () => {
		c = await startTestCluster();
		const printed = await ctpoolHere(['rbac', '--service-account', 'desk-admin', '-n', c.ns]);
		expect(printed.code).toBe(0);
		// `ctpool rbac | kubectl apply -f -` with the admin's kubeconfig.
		const applied = await kubectl(['apply', '-f', '-'], {
			kubeconfig: c.kubeconfigPath,
			input: printed.stdout,
		});
		expect(applied.stderr).toBe('');
		expect(applied.code).toBe(0);
		role = (loadAllYaml(printed.stdout) as Array<{ kind: string; rules: PolicyRule[] }>).find(
			(d) => d.kind === 'Role',
		)!;
	}, 60_000);
	afterAll(() => c?.close());

	it('every command, the watch and the console keys work under the Role `ctpool rbac` prints', async () => {
		const kc = await accountKubeconfig(c, 'desk-admin');
		const out = await scenario('full', kc);
		for (const op of OPS)
			expect({
				op,
				code: out[op].code,
				stderr: out[op].stderr.replace(/^ctpool: (reconciling|pool).*\n/gm, ''),
			}).toEqual({
				op,
				code: 0,
				stderr: '',
			});
		const status = JSON.parse(out.status.stdout) as { desired: number };
		expect(status.desired).toBe(3);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-fulld')).toBeUndefined();

		// The console: its access review disables no key, and each key's operation works.
		const kube = await loadKube({ kubeconfig: kc });
		expect(await deniedCommands(kube, c.ns)).toEqual({});
		// Its rights are the Role's, in that namespace only: elsewhere every key is disabled.
		const elsewhere = await deniedCommands(kube, 'kube-system');
		for (const [key] of KEY_OPS)
			expect({ key, reason: elsewhere[key] }).toEqual({
				key,
				reason: expect.stringMatching(/forbidden: cannot \S+ \S+ in namespace kube-system/),
			});
		await consoleKeys(kube, 'fullp');
	});

	it('ctpool rbac --read-only: status and the console work, every mutating command fails with a 403', async () => {
		const printed = await ctpoolHere([
			'rbac',
			'--read-only',
			'--service-account',
			'reader',
			'-n',
			c.ns,
		]);
		const ro = (loadAllYaml(printed.stdout) as Array<{ kind: string; rules: PolicyRule[] }>).find(
			(d) => d.kind === 'Role',
		)!;
		const kc = await grant('reader', ro.rules);
		const kube = await loadKube({ kubeconfig: kc });
		await admin(['apply', 'rop', ...POOL_FLAGS, '--size', '2']);
		await running('rop', 2);
		// A claim for the forced release to undo.
		expect((await admin(['claim', 'rop', 'alice@example.com'])).stdout).toBe('rop-1\n');
		const status = await ctpoolHere(['status', 'rop', '-o', 'json', '--kubeconfig', kc]);
		expect(status.code).toBe(0);
		const store = createConsoleStore({
			session: { namespace: c.ns, actor: 'reader' },
			pool: 'rop',
		});
		const watch = startPoolWatch(
			kube,
			{ namespace: c.ns, batchMs: 10 },
			{
				onBatch: (b) => store.getState().applyBatch(b),
				onConnection: (o) => store.getState().setConnection(o),
			},
		);
		try {
			await waitFor(
				() => currentPool(store.getState())?.counts.ready === 2,
				'the console shows the pool',
			);
		} finally {
			watch.stop();
		}
		const denied = await deniedCommands(kube, c.ns);
		for (const key of [
			Command.Claim,
			Command.Release,
			Command.Reconcile,
			Command.Maintenance,
			Command.Console,
		])
			expect(denied[key]).toMatch(denialPattern('\\S+', '\\S+'));
		for (const argv of [
			['apply', 'rop', '--size', '3'],
			['apply', 'ron', ...POOL_FLAGS, '--size', '1'],
			['claim', 'rop', 'bob@example.com'],
			['maintenance', 'rop', 'rop-1', 'on'],
			['release', 'rop', 'rop-1', 'x@example.com', '--force'],
			['delete', 'rop'],
		]) {
			const r = await ctpoolHere([...argv, '--kubeconfig', kc]);
			expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
			expect(r.stderr).toMatch(
				new RegExp(`forbidden: cannot (create|patch|update|delete) \\S+ in namespace ${c.ns}\\b`),
			);
		}
	});

	it('takes away, one at a time below, every rule of the printed Role and nothing else', () => {
		const key = (r: { group: string; resource: string; verb: string }) =>
			`${r.group}/${r.resource}/${r.verb}`;
		expect(ruleList(role.rules).map(key).sort()).toEqual(
			RULES.map(([group, resource, verb]) => key({ group, resource, verb })).sort(),
		);
	});

	describe.concurrent('with one rule taken away', () => {
		RULES.forEach(([group, resource, verb], i) => {
			const need = `${verb} ${resource}`;
			const mustFail = OPS.filter((op) => NEEDS[op].includes(need));
			it(`${need}: ${mustFail.join(', ') || 'nothing'} fail${mustFail.length === 1 ? 's' : ''}`, async () => {
				const name = `lp${i}`;
				const kc = await grant(name, without(role.rules, group, resource, verb));
				const out = await scenario(name, kc);
				const failed = OPS.filter((op) => out[op].code !== 0);
				const why = failed
					.filter((op) => !mustFail.includes(op))
					.map((op) => `${op}: ${out[op].stderr}`);
				expect({ need, failed, why }).toEqual({ need, failed: mustFail, why: [] });
				for (const op of mustFail) {
					expect({ op, code: out[op].code }).toEqual({ op, code: 1 });
					expect({ op, stderr: out[op].stderr }).toEqual({
						op,
						stderr: expect.stringMatching(denialPattern(verb, resource)),
					});
				}
				for (const op of OPS.filter((o) => REPORTS[o]?.includes(need)))
					expect({ op, stderr: out[op].stderr }).toEqual({
						op,
						stderr: expect.stringMatching(denialPattern(verb, resource)),
					});
				// The console disables the keys whose operation failed, saying why, and no key
				// whose operation does not need the rule.
				const denied = await deniedCommands(await loadKube({ kubeconfig: kc }), c.ns);
				for (const [key, op] of KEY_OPS) {
					const mustDisable =
						(op !== null && mustFail.includes(op)) ||
						(key === Command.Console && need === 'create pods/exec');
					if (mustDisable)
						expect({ key, reason: denied[key] }).toEqual({
							key,
							reason: expect.stringMatching(denialPattern(verb, resource)),
						});
					else if (!KEY_NEEDS[key]?.includes(need))
						expect({ key, reason: denied[key] }).toEqual({ key, reason: undefined });
				}
			});
		});
	});
});

/** The console's keys through its engine operations, as the account: claim, maintenance on and off, reconcile, force-release. */
async function consoleKeys(kube: Kube, pool: string): Promise<void> {
	const store = createConsoleStore({
		session: { namespace: c.ns, actor: 'admin@example.com' },
		pool,
	});
	const ops = createEngineOperations({
		store,
		kube,
		namespace: c.ns,
		actor: 'admin@example.com',
		engine: { deleteTimeoutMs: 20_000 },
		loopIntervalMs: 60_000,
	});
	const idle = async () => {
		await waitFor(() => store.getState().busy === null, 'the key to finish');
		const s = store.getState().status;
		expect(s?.level).toBe('ok');
		return s?.text ?? '';
	};
	try {
		ops.claim(pool, 'dora@example.com');
		const claimed = /^(\S+) claimed/.exec(await idle())?.[1];
		expect(claimed).toBeTruthy();
		ops.maintenance(pool, claimed!, true);
		await idle();
		ops.maintenance(pool, claimed!, false);
		await idle();
		ops.reconcile(pool);
		await idle();
		ops.release(pool, claimed!);
		expect(await idle()).toContain(`released ${claimed}`);
	} finally {
		ops.close();
	}
}
