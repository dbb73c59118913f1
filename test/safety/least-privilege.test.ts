/**
 * Least privilege: ctpool run as a ServiceAccount bound to exactly the Role `ctpool rbac`
 * prints (the operator tier, applied with `kubectl apply -f -`) can do everything; under the
 * viewer tier it can read and nothing else, under the reconciler tier reconcile (and its
 * metrics) and no shell, each refusal naming the right and the tier that has it, before
 * anything changes; and with any one rule (one verb of one resource) taken away, exactly the
 * operations that need it fail, exit 1, naming the verb, the resource and the namespace, and
 * the console shows the matching keys disabled with that reason.
 */

import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from '../../source/commands/io.js';
import { runCli } from '../../source/commands/main.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { startPoolWatch } from '../../source/kube/pool-watch.js';
import { type PolicyRule, tierRules } from '../../source/pool/permissions.js';
import { deniedCommands } from '../../source/tui/commands/access.js';
import { Command } from '../../source/tui/commands/keys.js';
import { createEngineOperations } from '../../source/tui/session/engine-operations.js';
import { createConsoleStore, currentPool } from '../../source/tui/store/store.js';
import { ctpool, type RunResult } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { WaitAborted, waitFor } from '../support/wait.js';
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

/** How a refusal names the tier with the right a viewer or the reconciler lacks. */
const OPERATOR_HAS_IT = /the operator tier has it: ctpool rbac --tier operator -n \S+/;

/** The Role `ctpool rbac <args> -n <ns>` prints. */
async function printedRole(args: string[]): Promise<{ rules: PolicyRule[] }> {
	const printed = await ctpoolHere(['rbac', ...args, '-n', c.ns]);
	expect(printed.code).toBe(0);
	return (loadAllYaml(printed.stdout) as Array<{ kind: string; rules: PolicyRule[] }>).find(
		(d) => d.kind === 'Role',
	)!;
}

/** What a refused command must leave as it was: a pool's definition, its members, their Leases and PVC annotations. */
async function clusterFacts(pool: string): Promise<unknown> {
	const sel = { labelSelector: `corral.dev/vdi-ct-pool=${pool}` };
	const cm = await c.api.get('configmaps', `corral-vdi-ctpool-${pool}`);
	const spec = (cm?.data as Record<string, string> | undefined)?.spec;
	const pods = (await c.api.list('pods', sel)).map((p) => `${p.metadata.name} ${p.metadata.uid}`);
	const pvcs = (await c.api.list('persistentvolumeclaims', sel)).map(
		(p) => `${p.metadata.name} ${p.metadata.uid} ${JSON.stringify(p.metadata.annotations ?? {})}`,
	);
	const leases = (await c.api.list('leases', sel)).map(
		(l) => `${l.metadata.name} ${l.metadata.resourceVersion}`,
	);
	return { spec, pods: pods.sort(), pvcs: pvcs.sort(), leases: leases.sort() };
}

/**
 * `reconcile --all --watch --metrics-addr 127.0.0.1:0` as the account until /metrics counts
 * the pool's claim, then Ctrl-C: what it printed, its exit code and the last scrape.
 */
async function watchWithMetrics(
	kc: string,
	pool: string,
): Promise<{ code: number; stderr: string; metrics: string }> {
	const bg = backgroundRun([
		...['reconcile', '--all', '--watch', '--metrics-addr', '127.0.0.1:0'],
		...['--kubeconfig', kc],
	]);
	let metrics = '';
	try {
		const url = await waitFor(
			() =>
				bg.out.code !== undefined
					? 'ended'
					: /metrics on (http:\/\/\S+)\/metrics/.exec(bg.out.stderr)?.[1],
			'the metrics address',
		);
		expect(url).not.toBe('ended');
		await waitFor(async () => {
			metrics = await (await fetch(`${url}/metrics`)).text();
			return new RegExp(`^ctpool_pool_claimed\\{[^}]*pool="${pool}"[^}]*\\} 1$`, 'm').test(metrics);
		}, `/metrics counts the claim in ${pool}`);
	} finally {
		bg.stop();
	}
	await bg.done;
	return { code: bg.out.code!, stderr: bg.out.stderr, metrics };
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
	const member = `${pool}-1`;
	const before = await podUid(member);
	const bg = backgroundRun(['reconcile', pool, '--watch', '--interval', '10m', '--kubeconfig', kc]);
	const out = bg.out;
	// A denial it printed (a whole line) is its failure whatever follows: no need to wait out
	// the timeouts below for a pod it cannot start again (they were most of this file's time).
	const denied = () =>
		/forbidden[^\n]*\n/.test(out.stderr.replace(/^.*Events are not recorded.*$/gm, ''));
	let again = false;
	try {
		await waitFor(
			() => out.code !== undefined || /Ctrl-C stops/.test(out.stderr),
			'the watch to start',
		);
		// refused up front: it ended before watching anything
		if (out.code !== undefined) return { ...out, code: out.code || 1 };
		// Its watches list (or are refused) after the banner; the pool found in their lists is
		// reconciled at once, recording its status. A watch starts where its list ended, so a
		// deletion after that reaches it. (Where the status cannot be recorded, a short wait.)
		await waitFor(async () => denied() || (await recordedStatus(pool)) !== '{}', {
			what: 'the first reconcile of the watch',
			timeoutMs: 5_000,
		}).catch(() => undefined);
		await c.api.delete('pods', member, { gracePeriodSeconds: 0 });
		again = await waitFor(
			async () => {
				if (denied()) throw new WaitAborted('the watch printed a denial');
				const uid = await podUid(member);
				return uid !== undefined && uid !== before;
			},
			{ what: `${member} started again through the watch`, timeoutMs: 15_000 },
		).then(
			() => true,
			() => false,
		);
	} finally {
		bg.stop();
	}
	await bg.done;
	// A denial it printed, or a pod it did not start again, is its failure.
	const failed =
		!again || /forbidden/.test(out.stderr.replace(/^.*Events are not recorded.*$/gm, ''));
	return { ...out, code: failed ? out.code || 1 : out.code! };
}

/** `ctpool <argv>` in this process until stopped (Ctrl-C): its output so far, and its end. */
function backgroundRun(argv: string[]): {
	out: { stdout: string; stderr: string; code: number | undefined };
	stop(): void;
	done: Promise<void>;
} {
	const controller = new AbortController();
	const out = { stdout: '', stderr: '', code: undefined as number | undefined };
	const io: CommandIo = {
		stdout: { write: (t: string) => (out.stdout += t), isTTY: false },
		stderr: { write: (t: string) => (out.stderr += t), isTTY: false },
		env: { NO_COLOR: '1', CORRAL_NAMESPACE: c.ns },
		signal: controller.signal,
		engine: { deleteTimeoutMs: 20_000 },
	};
	const done = runCli(argv, io).then((n) => {
		out.code = n;
	});
	return { out, stop: () => controller.abort(), done };
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

	it('the viewer tier: status, find, audit and the console work; every changing command and key is refused naming the right and the operator tier, and nothing changes', async () => {
		const ro = await printedRole(['--tier', 'viewer', '--service-account', 'reader']);
		expect(ro.rules).toEqual(tierRules('viewer'));
		const kc = await grant('reader', ro.rules);
		const kube = await loadKube({ kubeconfig: kc });
		await admin(['apply', 'rop', ...POOL_FLAGS, '--size', '2']);
		await running('rop', 2);
		// A claim for the forced release to undo.
		expect((await admin(['claim', 'rop', 'alice@example.com'])).stdout).toBe('rop-1\n');
		const as = (argv: string[]) => ctpoolHere([...argv, '--kubeconfig', kc]);
		for (const argv of [
			['status', 'rop', '-o', 'json'],
			['find', 'alice', '-o', 'json'],
			['audit', 'rop', '-o', 'json'],
		]) {
			const r = await as(argv);
			expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
		}
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
		// The console: every changing key and the shell disabled, saying which tier has the right;
		// the container log (a read) stays.
		const denied = await deniedCommands(kube, c.ns);
		expect(Object.keys(denied).sort()).toEqual(
			[
				Command.Claim,
				Command.Release,
				Command.Reconcile,
				Command.Loop,
				Command.Maintenance,
				Command.Console,
			].sort(),
		);
		for (const key of Object.keys(denied) as Command[])
			expect({ key, reason: denied[key] }).toEqual({
				key,
				reason: expect.stringMatching(OPERATOR_HAS_IT),
			});
		const before = await clusterFacts('rop');
		for (const [argv, upFront] of [
			[['apply', 'rop', '--size', '3'], false],
			[['apply', 'ron', ...POOL_FLAGS, '--size', '1'], false],
			[['claim', 'rop', 'bob@example.com'], true],
			[['maintenance', 'rop', 'rop-1', 'on'], true],
			[['release', 'rop', 'rop-1', 'x@example.com', '--force'], true],
			[['reconcile', 'rop'], true],
			[['delete', 'rop'], true],
		] as const) {
			const r = await as([...argv]);
			expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
			expect(r.stderr).toMatch(
				new RegExp(`forbidden: cannot (create|patch|update|delete) \\S+ in namespace ${c.ns}\\b`),
			);
			expect({ argv, stderr: r.stderr }).toEqual({
				argv,
				stderr: expect.stringMatching(OPERATOR_HAS_IT),
			});
			if (upFront) expect(r.stderr).toContain('refused before any change');
		}
		expect(await clusterFacts('rop')).toEqual(before);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-ron')).toBeUndefined();
	});

	it('the reconciler tier: reconcile, reconcile --watch and its /metrics (counts only) work; definitions, the shell and the log are refused naming the tier that has them', async () => {
		const rr = await printedRole(['--tier', 'reconciler', '--service-account', 'recon']);
		expect(rr.rules).toEqual(tierRules('reconciler'));
		const kc = await grant('recon', rr.rules);
		const kube = await loadKube({ kubeconfig: kc });
		await admin(['apply', 'rcp', ...POOL_FLAGS, '--size', '2']);
		await running('rcp', 2);
		const held = (await admin(['claim', 'rcp', 'alice@example.com'])).stdout.trim();
		const other = held === 'rcp-1' ? 'rcp-2' : 'rcp-1';
		const as = (argv: string[]) => ctpoolHere([...argv, '--kubeconfig', kc]);
		// a member's pod gone: reconcile starts it again
		await c.api.delete('pods', other, { gracePeriodSeconds: 0 });
		await waitFor(async () => (await podUid(other)) === undefined, `${other} gone`);
		const once = await as(['reconcile', 'rcp']);
		expect({ code: once.code, stderr: once.stderr }).toEqual({ code: 0, stderr: '' });
		expect(once.stdout).toContain(`${other} started`);
		expect((await as(['status', 'rcp'])).code).toBe(0);
		// The in-cluster Deployment's command, with its metrics.
		const scraped = await watchWithMetrics(kc, 'rcp');
		expect(scraped.stderr).not.toMatch(/forbidden/);
		expect(scraped.code).toBe(0);
		expect(scraped.metrics).toMatch(
			new RegExp(`^ctpool_pool_claimed\\{namespace="${c.ns}",pool="rcp"\\} 1$`, 'm'),
		);
		// Counts only: no holder, no identity, in a label or a value.
		// no identity: a holder, the reconciler's own, a service account's
		expect(scraped.metrics).not.toMatch(
			/alice|example\.com|corral-vdi\/reconciler|serviceaccount/i,
		);
		for (const line of scraped.metrics.split('\n').filter((l) => l && !l.startsWith('#'))) {
			const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
			expect({ line, ok: m !== null }).toEqual({ line, ok: true });
			expect(Number.isFinite(Number(m![3]))).toBe(true);
			for (const pair of (m![2] ?? '').split(/,(?=[a-z_]+=)/).filter(Boolean))
				expect(['namespace', 'pool', 'state', 'kind', 'le']).toContain(pair.split('=')[0]);
		}
		// What it must not do: make or delete definitions, open a shell, read a log.
		const made = await as(['apply', 'rcn', ...POOL_FLAGS, '--size', '1']);
		expect(made.code).toBe(1);
		expect(made.stderr).toMatch(
			new RegExp(`forbidden: cannot create configmaps in namespace ${c.ns}\\b`),
		);
		expect(made.stderr).toMatch(OPERATOR_HAS_IT);
		const gone = await as(['delete', 'rcp']);
		expect(gone.code).toBe(1);
		expect(gone.stderr).toMatch(
			/delete refused before any change: forbidden: cannot delete configmaps/,
		);
		expect(gone.stderr).toMatch(OPERATOR_HAS_IT);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-rcp')).toBeDefined();
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-rcn')).toBeUndefined();
		const denied = await deniedCommands(kube, c.ns);
		expect(Object.keys(denied).sort()).toEqual([Command.Console, Command.ContainerLog].sort());
		expect(denied[Command.Console]).toMatch(/cannot create pods\/exec .*the operator tier has it/);
		expect(denied[Command.ContainerLog]).toMatch(/cannot get pods\/log .*the viewer tier has it/);
	});

	it('the operator tier is the default: the Role every test above ran under', async () => {
		expect(role.rules).toEqual(tierRules('operator'));
		const named = await printedRole(['--tier', 'operator', '--service-account', 'desk-admin']);
		expect(named.rules).toEqual(role.rules);
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
