/**
 * Issue 23, point 2: `--context NAME` is a Corral context first, as in Corral and the seed. A
 * kubevirt context of Corral's config file ($HOME/.config/corral/config.yaml, written as
 * Corral's yaml.v3 writes it) selects its kubeconfig context; else a kubeconfig context of that
 * name (ctpool's extension); else an error listing both kinds. Without --context:
 * $CORRAL_KUBE_CONTEXT, else the file's kubevirt.context, else the current context. The
 * kubeconfig's current context here is one the cluster refuses (a wrong token), so a command
 * that reached the pool went through the context the rules chose.
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../../source/engine/index.js';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { ctpool, defaultEnv } from './capture.js';

let c: TestCluster;
let kubeconfig: string;

interface Named<K extends string> {
	name: string;
	[key: string]: unknown;
	kind?: K;
}

/** The test cluster's kubeconfig with three contexts: admin, kube-only (both good), bad (current). */
function writeKubeconfig(): string {
	const doc = load(readFileSync(c.kubeconfigPath, 'utf8')) as {
		clusters: Named<'cluster'>[];
		users: Array<Named<'user'> & { user: Record<string, unknown> }>;
		contexts: Array<{ name: string; context: Record<string, unknown> }>;
		'current-context'?: string;
	};
	const current = doc.contexts.find((x) => x.name === doc['current-context']) ?? doc.contexts[0]!;
	const cluster = current.context.cluster;
	const user = current.context.user;
	doc.users.push({ name: 'refused', user: { token: 'not-a-token-this-cluster-knows' } });
	doc.contexts = [
		{ name: 'admin', context: { cluster, user } },
		{ name: 'kube-only', context: { cluster, user } },
		{ name: 'bad', context: { cluster, user: 'refused' } },
	];
	doc['current-context'] = 'bad';
	const file = join(c.dir, 'corral-contexts.kubeconfig');
	writeFileSync(file, dump(doc));
	return file;
}

/** A HOME whose Corral config file is `config` (yaml.v3's layout: four-space indents). */
function corralHome(name: string, config: string): string {
	const home = join(c.dir, name);
	mkdirSync(join(home, '.config', 'corral'), { recursive: true });
	writeFileSync(join(home, '.config', 'corral', 'config.yaml'), config);
	return home;
}

const CONFIG = `default:
    backend: kubevirt
tailscale:
    auth_key: ""
    expose: false
    tags: ""
firmware:
    default: ""
web:
    accent: ""
    accent_2: ""
    brand_title: ""
    brand_emoji: ""
    brand_subtitle: ""
    custom_css: ""
ct:
    backend: kubevirt
incus:
    remote: ""
kubevirt:
    context: ""
libvirt:
    uri: ""
contexts:
    - name: lab
      backend: kubevirt
      context: admin
    - name: admin
      backend: kubevirt
      context: bad
    - name: off
      backend: kubevirt
      context: admin
      enabled: false
    - name: box
      backend: incus
      context: local
`;

let home: string;

function run(argv: string[], env: Record<string, string> = {}) {
	return ctpool(argv, {
		env: { ...defaultEnv(), HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), ...env },
	});
}

beforeAll(async () => {
	c = await startTestCluster();
	kubeconfig = writeKubeconfig();
	home = corralHome('home', CONFIG);
	// A config where only XDG_CONFIG_HOME would find it: Corral does not look there.
	mkdirSync(join(home, 'xdg', 'corral'), { recursive: true });
	writeFileSync(
		join(home, 'xdg', 'corral', 'config.yaml'),
		'contexts:\n    - name: xdg\n      backend: kubevirt\n      context: admin\n',
	);
	await apply(c.context(), 'cx', poolSpec({ size: 1 }));
});
afterAll(() => c?.close());

describe('--context is a Corral context first', () => {
	it('a Corral kubevirt context selects its kubeconfig context (lab -> admin)', async () => {
		const r = await run(['status', '--kubeconfig', kubeconfig, '--context', 'lab']);
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('cx');
	});

	it('a Corral context wins over a kubeconfig context of the same name (admin -> bad)', async () => {
		const r = await run(['status', '--kubeconfig', kubeconfig, '--context', 'admin']);
		expect(r.code).not.toBe(0);
		expect(r.stderr.toLowerCase()).toMatch(/unauthori[sz]ed|401/);
	});

	it("a kubeconfig context that is no Corral context works (ctpool's extension)", async () => {
		const r = await run(['status', '--kubeconfig', kubeconfig, '--context', 'kube-only']);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('cx');
	});

	it('an unknown name is an error listing both kinds; nothing is sent', async () => {
		const r = await run(['status', '--kubeconfig', kubeconfig, '--context', 'nope']);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('--context "nope" is neither a Corral kubevirt context (');
		expect(r.stderr).toContain('"lab", "admin", "kubevirt"');
		expect(r.stderr).toContain('nor a kubeconfig context ("admin", "kube-only", "bad")');
	});

	it('a disabled Corral context, one of another backend, and one only under XDG_CONFIG_HOME are not kubevirt contexts', async () => {
		for (const [name, extra] of [
			['off', ''],
			['box', `Corral's context "box" is a incus context`],
			['local', `Corral's context "local" is a qemu context`],
			['xdg', ''],
		] as const) {
			const r = await run(['status', '--kubeconfig', kubeconfig, '--context', name]);
			expect(r.code, name).toBe(2);
			expect(r.stderr).toContain(`--context "${name}" is neither a Corral kubevirt context`);
			if (extra) expect(r.stderr).toContain(extra);
		}
	});

	it('without --context: CORRAL_KUBE_CONTEXT, else kubevirt.context, else the current context', async () => {
		const byEnv = await run(['status', '--kubeconfig', kubeconfig], {
			CORRAL_KUBE_CONTEXT: 'admin',
		});
		expect(byEnv.code).toBe(0);
		expect(byEnv.stdout).toContain('cx');
		const legacyHome = corralHome('legacy', 'kubevirt:\n    context: kube-only\n');
		const byFile = await run(['status', '--kubeconfig', kubeconfig], { HOME: legacyHome });
		expect(byFile.code).toBe(0);
		// the env variable wins over the file, as in Corral
		const both = await run(['status', '--kubeconfig', kubeconfig], {
			HOME: legacyHome,
			CORRAL_KUBE_CONTEXT: 'bad',
		});
		expect(both.code).not.toBe(0);
		const current = await run(['status', '--kubeconfig', kubeconfig]);
		expect(current.code).not.toBe(0);
		expect(current.stderr.toLowerCase()).toMatch(/unauthori[sz]ed|401/);
		const wrong = await run(['status', '--kubeconfig', kubeconfig], {
			CORRAL_KUBE_CONTEXT: 'gone',
		});
		expect(wrong.code).toBe(2);
		expect(wrong.stderr).toContain(
			'CORRAL_KUBE_CONTEXT selects kubeconfig context "gone", which is not in the kubeconfig',
		);
	});

	it('the same for -A, reconcile --all and completion', async () => {
		const across = await run(['status', '-A', '--kubeconfig', kubeconfig, '--context', 'lab']);
		// On the shared real control plane -A also sees other test files' pools, some of them
		// failing on purpose (exit 1): what matters is that the context reached this cluster.
		if (onRealCluster)
			expect(across.stderr).not.toMatch(/is neither a Corral|not in the kubeconfig|context "lab"/);
		else expect(across.code).toBe(0);
		expect(across.stdout).toContain('cx');
		const all = await run(['reconcile', '--all', '--kubeconfig', kubeconfig, '--context', 'lab']);
		expect({ code: all.code, stderr: all.stderr }).toEqual({ code: 0, stderr: '' });
		const pools = await run([
			'__complete',
			'pools',
			'--kubeconfig',
			kubeconfig,
			'--context',
			'lab',
		]);
		expect(pools.stdout.split('\n')).toContain('cx');
		const refused = await run([
			'__complete',
			'pools',
			'--kubeconfig',
			kubeconfig,
			'--context',
			'admin',
		]);
		expect(refused.stdout).toBe('');
	});
});
