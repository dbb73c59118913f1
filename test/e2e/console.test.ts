/**
 * The real ctpool binary in a pseudo-terminal against a test cluster started here (the
 * simulated one, or a namespace of the real control plane): what an admin sees and does,
 * read from the screen.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, claim, createEngineContext, writeDefinition } from '../../source/engine/index.js';
import { roleRules } from '../../source/pool/permissions.js';
import { itSim, type RoleRule } from '../support/cluster.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { ObjectApi } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import type { TestTerminal } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';
import { consoleTests, cuttableLink, holdObject, quit } from './ctpool-console.js';

const SLOW = 45_000;
if (!kubectlAvailable() && process.env.CI !== 'true')
	process.stdout.write('[skip] the console tests with kubectl: kubectl is not on the PATH\n');
const withKubectl = kubectlAvailable() || process.env.CI === 'true';

// a fifth of real pace: a container starts in 0.3 s; ctpool's 1 s grace lasts 0.2 s
const e2e = consoleTests({ config: { timeScale: 0.2 } });
let pool = 0;

/**
 * A fresh pool of the given size (each test its own), ready, and ctpool open on it (as the
 * admin, or through another kubeconfig).
 */
async function openOn(
	size: number,
	extra: string[] = [],
	kubeconfig = e2e.cluster.kubeconfigPath,
): Promise<{ name: string; term: TestTerminal }> {
	pool++;
	const name = `p${pool}`;
	await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size }));
	const t = e2e.start({
		args: [name, '--identity', 'erin@example.com', ...extra],
		kubeconfig,
		cacheDir: join(e2e.cluster.dir, 'kube-cache'),
	});
	const last = `${name}-${size}`;
	await t.waitFor(new RegExp(`${last}\\s+Ready`), SLOW);
	await t.waitFor('● live', SLOW);
	return { name, term: t };
}

/**
 * Every rule of ctpool's Role but the verbs `drop` names ('create pods/exec', 'patch
 * persistentvolumeclaims'), one rule per resource.
 */
function rulesBut(...drop: string[]): RoleRule[] {
	return roleRules()
		.flatMap((p) => p.rules)
		.flatMap((r) =>
			r.resources.map((res) => ({
				apiGroups: r.apiGroups,
				resources: [res],
				verbs: r.verbs.filter((v) => !drop.includes(`${v} ${res}`)),
			})),
		)
		.filter((r) => r.verbs.length > 0);
}

/** Puts the test's finalizer on an object, or takes it off. */
function hold(resource: string, name: string, add: boolean): Promise<void> {
	return holdObject(e2e.cluster.api, resource, name, add, SLOW);
}

/** Whether the identity of a kubeconfig may create pods/exec in the test namespace (its own review). */
async function mayExec(kubeconfig: string): Promise<boolean> {
	const api = ObjectApi.fromFile(kubeconfig, e2e.cluster.ns);
	const a = await api.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
		body: {
			apiVersion: 'authorization.k8s.io/v1',
			kind: 'SelfSubjectAccessReview',
			spec: {
				resourceAttributes: {
					namespace: e2e.cluster.ns,
					verb: 'create',
					resource: 'pods',
					subresource: 'exec',
				},
			},
		},
	});
	if (a.status !== 201) throw new Error(`access review: HTTP ${a.status}: ${a.text}`);
	return (a.body as { status: { allowed: boolean } }).status.allowed;
}

/** A shell's prompt at the end of a line (root's or anyone's). */
const PROMPT = /[#$] $/m;

describe('ctpool console end to end', { timeout: 120_000 }, () => {
	it('claims a member and shows its holder; q quits and gives the terminal back', async () => {
		const { name, term } = await openOn(2);
		expect(term.altScreen()).toBe(true);
		term.write('c');
		await term.waitFor(`Claim a free member of ${name} for: erin@example.com`, SLOW);
		term.write('\r');
		await term.waitFor(
			new RegExp(`${name}-1\\s+Ready\\s+erin@example\\.com\\s+\\d+s 59m left`),
			SLOW,
		);
		await term.waitFor(`${name}-1 claimed by erin@example.com`, SLOW);
		expect(await quit(term)).toBe(0);
		expect(term.altScreen()).toBe(false);
		expect(
			term.output().endsWith('\u001b[?25h') || term.output().includes('\u001b[?1049l\u001b[?25h'),
		).toBe(true);
	});

	it('force-releases a claimed member: Terminating, then Ready with no holder', async () => {
		const { name, term } = await openOn(2);
		const { member } = await claim(
			createEngineContext(e2e.kube, { actor: 'zoe@example.com' }),
			name,
			'zoe@example.com',
		);
		await term.waitFor(new RegExp(`${member}\\s+Ready\\s+zoe@example\\.com`), SLOW);
		term.write('/');
		for (const ch of member) term.write(ch);
		term.write('\r');
		await term.waitFor(
			(s) => !new RegExp(`^${name}-2 `, 'm').test(s) || member === `${name}-2`,
			SLOW,
		);
		term.write('x');
		await term.waitFor(`Release ${member} (held by zoe@example.com) with --force?`, SLOW);
		// A finalizer of the test's holds the PVC, so that Terminating lasts until the screen has
		// shown it (ctpool's 1 s grace is 0.2 s on the simulated cluster, too short to count on
		// under load).
		const pvcName = `${member}-data`;
		await hold('persistentvolumeclaims', pvcName, true);
		term.write('y');
		await term.waitFor(new RegExp(`${member}\\s+Terminating`), SLOW);
		await hold('persistentvolumeclaims', pvcName, false);
		await term.waitFor(new RegExp(`${member}\\s+Ready\\s+-\\s`), SLOW);
		await term.waitFor(`released ${member} (claimed by zoe@example.com)`, SLOW);
	});

	it('reconciles after a scale-up', async () => {
		const { name, term } = await openOn(2);
		await writeDefinition(
			createEngineContext(e2e.kube, { actor: 'test' }),
			name,
			poolSpec({ size: 3 }),
		);
		await term.waitFor(new RegExp(`${name}-3\\s+Missing`), SLOW);
		term.write('r');
		await term.waitFor(new RegExp(`${name}-3\\s+Ready`), SLOW);
		await term.waitFor(new RegExp(`reconciled ${name}: create ${name}-3`), SLOW);
	});

	// Reason: without kubectl on the PATH there is nothing to exec through (under CI=true it
	// runs and a missing kubectl fails it).
	it.skipIf(!withKubectl)(
		'opens a console with the real kubectl and comes back redrawn, selection and filter kept',
		async () => {
			const { name, term } = await openOn(2);
			term.write('/');
			term.write('-2');
			term.write('\r');
			await term.waitFor((s) => !new RegExp(`^${name}-1 `, 'm').test(s), SLOW);
			term.write('s');
			await term.waitFor(`console on ${name}-2 (kubectl exec)`, SLOW);
			await term.waitFor(PROMPT, SLOW);
			expect(term.altScreen()).toBe(false);
			// keys typed in the console belong to the shell: q does not quit ctpool
			term.write('echo q\r');
			await term.waitFor(/^q$/m, SLOW);
			term.write('exit\r');
			await term.waitFor(`console on ${name}-2 closed`, SLOW);
			const screen = await term.waitFor(/NAME\s+STATE/, SLOW);
			expect(term.altScreen()).toBe(true);
			expect(screen).toMatch(new RegExp(`^${name}-2\\s+Ready`, 'm'));
			expect(screen).not.toMatch(new RegExp(`^${name}-1 `, 'm'));
			// again, resizing inside the console and leaving with Ctrl-D
			term.write('s');
			await term.waitFor(`console on ${name}-2 (kubectl exec)`, SLOW);
			await term.waitFor(PROMPT, SLOW);
			term.resize(84, 26);
			term.write('\u0004');
			await term.waitFor(/NAME\s+STATE/, SLOW);
			expect(term.altScreen()).toBe(true);
			await term.waitFor(
				(s) => new RegExp(`^${name}-2\\s+Ready`, 'm').test(s) && /⏎ open Esc back/.test(s),
				SLOW,
			);
			// drawn for the new size: 26 rows, the key hints on the last row but one
			expect(term.lines().length).toBe(26);
			for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(84);
			expect(term.lines().at(-2)).toMatch(/⏎ open Esc back/);
			expect(await quit(term)).toBe(0);
		},
	);

	if (withKubectl)
		itSim(
			"the console's shell runs in the member: its prompt and its hostname are the member's",
			"the real cluster's kwok nodes run an exec on the host, in a scratch folder, not in a container",
			async () => {
				const { name, term } = await openOn(1);
				term.write('s');
				await term.waitFor(new RegExp(`${name}-1:/# $`, 'm'), SLOW);
				term.write('hostname\r');
				await term.waitFor(new RegExp(`^${name}-1$`, 'm'), SLOW);
				term.write('exit\r');
				await term.waitFor(`console on ${name}-1 closed`, SLOW);
				expect(await quit(term)).toBe(0);
			},
		);

	// Reason: without kubectl on the PATH there is nothing to exec through (under CI=true it
	// runs and a missing kubectl fails it).
	it.skipIf(!withKubectl)(
		'comes back with the reason when kubectl fails (exec forbidden)',
		async () => {
			// An identity that may exec when the console starts (it lacks only patch on PVCs, so
			// that maintenance shows disabled once the console has checked its rights), and loses
			// exec afterwards: the console offers it, the cluster refuses it.
			const role = 'exec-revoked';
			const kubeconfig = await e2e.cluster.grant(role, rulesBut('patch persistentvolumeclaims'));
			const { name, term } = await openOn(1, [], kubeconfig);
			term.write('?');
			// the maintenance key is in help's third group (one group at a time at this size)
			term.write('3');
			await term.waitFor(
				(s) =>
					/disabled: forbidden: cannot patch\s+persistentvolumeclaims/.test(
						s.replace(/\n\s+/g, ' '),
					),
				SLOW,
			);
			expect(term.screen().replace(/\n\s+/g, ' ')).not.toMatch(/cannot create\s+pods\/exec/);
			term.write('\u001b');
			await term.waitFor(/NAME\s+STATE/, SLOW);
			await e2e.cluster.api.put('roles', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'Role',
				metadata: { name: role, namespace: e2e.cluster.ns },
				rules: rulesBut('patch persistentvolumeclaims', 'create pods/exec'),
			});
			await waitFor(async () => !(await mayExec(kubeconfig)), {
				what: 'pods/exec revoked',
				timeoutMs: SLOW,
			});
			term.write('s');
			await term.waitFor(
				new RegExp(`console on ${name}-1 failed \\(exit 1\\): .*forbidden`, 'i'),
				SLOW,
			);
			expect(term.altScreen()).toBe(true);
			expect(term.screen()).toMatch(new RegExp(`^${name}-1\\s+Ready`, 'm'));
			term.write('l');
			await term.waitFor(/activity \(\d+, 1 error\)/, SLOW);
			expect(await quit(term)).toBe(0);
		},
	);

	it('comes back with the reason when kubectl is not installed', async () => {
		pool++;
		const name = `p${pool}`;
		await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size: 1 }));
		const t = e2e.start({
			args: [name],
			env: { PATH: join(e2e.cluster.dir, 'no-such-bin') },
		});
		await t.waitFor(new RegExp(`${name}-1\\s+Ready`), SLOW);
		t.write('s');
		await t.waitFor(
			`console on ${name}-1 did not open: kubectl is not installed or not on the PATH`,
			SLOW,
		);
		expect(t.altScreen()).toBe(true);
		t.write('j');
		expect(await quit(t)).toBe(0);
	});

	it('shows keys the identity lacks rights for as disabled, with the missing permission', async () => {
		const kubeconfig = await e2e.cluster.grant('no-exec', rulesBut('create pods/exec'));
		const { name, term } = await openOn(1, [], kubeconfig);
		term.write('?');
		// help shows the keys that act on the cluster as its third group, and wraps a long
		// reason onto the key's next lines
		term.write('3');
		await term.waitFor(
			(s) =>
				/open a shell .*—/.test(s) &&
				/disabled: forbidden: cannot create\s+pods\/exec/.test(s.replace(/\n\s+/g, ' ')),
			SLOW,
		);
		expect(term.screen()).toContain(`pool ${name} · ns ${e2e.cluster.ns}`);
		term.write('\u001b');
		await term.waitFor(/NAME\s+STATE/, SLOW);
		term.write('s');
		await term.waitFor(
			`console: forbidden: cannot create pods/exec in namespace ${e2e.cluster.ns}`,
			SLOW,
		);
		expect(term.altScreen()).toBe(true);
	});

	it('opens the pools screen without a pool, and --read-only removes every mutating key', async () => {
		pool++;
		const name = `p${pool}`;
		await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size: 1 }));
		const t = e2e.start({
			args: ['--read-only'],
			columns: 120,
		});
		await t.waitFor(new RegExp(`^${name}\\s+ghcr\\.io/example/desktop:1\\s+1/1`, 'm'), SLOW);
		expect(t.screen()).toMatch(/pools \(\d+\)/);
		expect(t.screen()).toContain('read-only');
		// the key hints, once drawn to their end
		await t.waitFor(() => (t.lines().at(-2) ?? '').includes('q quit'), SLOW);
		const hints = t.lines().at(-2) ?? '';
		expect(hints).toContain('help');
		for (const h of ['claim', 'release', 'reconcile', 'loop', 'maint', 'console'])
			expect(hints).not.toContain(h);
		t.write('G');
		t.write('\r');
		await t.waitFor(`pool ${name} · ns ${e2e.cluster.ns}`, SLOW);
		t.write('c');
		await t.waitFor('claim: read-only mode (--read-only)', SLOW);
		expect(await quit(t)).toBe(0);
	});

	it('shows the stale banner while the watches are down, and clears it when they are back', async () => {
		// ctpool reaches the cluster through a link the test cuts for 7 s
		const link = await cuttableLink(e2e.cluster.kubeconfigPath, e2e.cluster.dir);
		try {
			const { term } = await openOn(1, [], link.kubeconfig);
			link.cutFor(7_000);
			await term.waitFor(/STALE\s+stale since \d\d:\d\d:\d\d · retry \d+ · last error/, 30_000);
			expect(term.screen()).toMatch(/◌ reconnecting \(retry \d+\)/);
			await term.waitFor((s) => !s.includes('STALE') && s.includes('● live'), SLOW);
		} finally {
			await link.close();
		}
	});

	it('redraws on resize, and says so below the minimum size', async () => {
		const { name, term } = await openOn(3);
		term.resize(72, 20);
		await term.waitFor(
			(s) => s.split('\n').some((l) => /^NAME\s+STATE/.test(l)) && !s.includes('too small'),
			SLOW,
		);
		const check = () => {
			for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(72);
		};
		check();
		term.resize(50, 12);
		await term.waitFor('Terminal too small: 50x12', SLOW);
		term.resize(100, 30);
		await term.waitFor(new RegExp(`^${name}-3\\s+Ready`, 'm'), SLOW);
		expect(term.screen()).not.toContain('too small');
	});
});
