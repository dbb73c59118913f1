/**
 * RBAC in the simulated cluster: a ServiceAccount bound to a Role gets exactly that Role's
 * rights through REST, watch and exec; SelfSubjectAccessReview agrees with what requests are
 * allowed; impersonation needs the impersonate verb; whoami and can-i --list answer from the
 * same rules. Checked with the real kubectl and client-node.
 */

import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeKubectl, kubectl, spawnKubectl } from '../support/kubectl.js';
import { serviceAccountKubeConfig, simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { isReady, NS, pod, podManifest } from './behaviour-support.js';

const sim = withSim();
const SA = 'desk-user';
const SA_USER = `system:serviceaccount:${NS}:${SA}`;
let saConfig = '';
let saToken = '';

/** The Role under test: read pods and their logs, exec into them, read leases. */
const ROLE_RULES = [
	{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
	{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
	{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
	{
		apiGroups: [''],
		resources: ['configmaps'],
		resourceNames: ['allowed-cm'],
		verbs: ['get', 'watch'],
	},
];

beforeAll(async () => {
	const { store } = sim.cluster;
	store.create('pods', podManifest('desk-1'));
	store.create('configmaps', {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name: 'allowed-cm', namespace: NS },
		data: { a: '1' },
	});
	store.create('configmaps', {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name: 'other-cm', namespace: NS },
		data: { a: '2' },
	});
	store.create('roles', {
		apiVersion: 'rbac.authorization.k8s.io/v1',
		kind: 'Role',
		metadata: { name: 'desk-reader', namespace: NS },
		rules: ROLE_RULES,
	});
	store.create('rolebindings', {
		apiVersion: 'rbac.authorization.k8s.io/v1',
		kind: 'RoleBinding',
		metadata: { name: 'desk-reader', namespace: NS },
		roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'desk-reader' },
		subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
	});
	const sa = await serviceAccountKubeConfig(sim.cluster, NS, SA);
	saConfig = sa.kubeconfigPath;
	saToken = sa.token;
	await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
});

/** Whether the ServiceAccount's request on a path with a method is allowed (not 403). */
async function allowed(method: string, path: string, body?: unknown): Promise<boolean> {
	const r = await simFetch(sim.cluster, path, {
		method,
		token: saToken,
		headers: { 'Content-Type': 'application/json' },
		...(body !== undefined ? { body: JSON.stringify(body) } : {}),
	});
	if (r.status === 401) throw new Error(`401 for ${method} ${path}`);
	return r.status !== 403;
}

/** What SelfSubjectAccessReview says for the ServiceAccount. */
async function reviewSays(attrs: Record<string, string>): Promise<boolean> {
	const r = await simFetch(sim.cluster, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
		method: 'POST',
		token: saToken,
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({
			apiVersion: 'authorization.k8s.io/v1',
			kind: 'SelfSubjectAccessReview',
			spec: { resourceAttributes: attrs },
		}),
	});
	expect(r.status).toBe(201);
	return (r.json() as { status: { allowed: boolean } }).status.allowed;
}

describe('a ServiceAccount bound to a Role', () => {
	it('gets exactly the Role’s rights over REST, and SSAR agrees with every answer', async () => {
		const pods = `/api/v1/namespaces/${NS}/pods`;
		const cases: [string, string, Record<string, string>, boolean, unknown?][] = [
			['GET', pods, { verb: 'list', resource: 'pods' }, true],
			['GET', `${pods}/desk-1`, { verb: 'get', resource: 'pods', name: 'desk-1' }, true],
			[
				'GET',
				`${pods}/desk-1/log`,
				{ verb: 'get', resource: 'pods', subresource: 'log', name: 'desk-1' },
				true,
			],
			['DELETE', `${pods}/desk-1`, { verb: 'delete', resource: 'pods', name: 'desk-1' }, false],
			['POST', pods, { verb: 'create', resource: 'pods' }, false, podManifest('nope')],
			[
				'GET',
				'/api/v1/namespaces/default/pods',
				{ verb: 'list', resource: 'pods', namespace: 'default' },
				false,
			],
			[
				'GET',
				`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/x`,
				{ verb: 'get', resource: 'leases', group: 'coordination.k8s.io', name: 'x' },
				true,
			],
			[
				'GET',
				`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
				{ verb: 'list', resource: 'leases', group: 'coordination.k8s.io' },
				false,
			],
			[
				'GET',
				`/api/v1/namespaces/${NS}/configmaps/allowed-cm`,
				{ verb: 'get', resource: 'configmaps', name: 'allowed-cm' },
				true,
			],
			[
				'GET',
				`/api/v1/namespaces/${NS}/configmaps/other-cm`,
				{ verb: 'get', resource: 'configmaps', name: 'other-cm' },
				false,
			],
			[
				'GET',
				`/api/v1/namespaces/${NS}/configmaps`,
				{ verb: 'list', resource: 'configmaps' },
				false,
			],
			['GET', '/api/v1/nodes', { verb: 'list', resource: 'nodes' }, false],
			['GET', `/api/v1/namespaces/${NS}/secrets`, { verb: 'list', resource: 'secrets' }, false],
		];
		for (const [method, path, attrs, expected, body] of cases) {
			const review = await reviewSays({
				namespace: path.includes('/namespaces/default/') ? 'default' : NS,
				...attrs,
			});
			const real = await allowed(method, path, body);
			expect({ method, path, real, review }).toEqual({
				method,
				path,
				real: expected,
				review: expected,
			});
		}
	});

	it('is refused with the texts a real server sends', async () => {
		const r = await simFetch(sim.cluster, `/api/v1/namespaces/${NS}/pods/desk-1`, {
			method: 'DELETE',
			token: saToken,
		});
		expect(r.status).toBe(403);
		expect(r.json()).toEqual({
			kind: 'Status',
			apiVersion: 'v1',
			metadata: {},
			status: 'Failure',
			message: `pods "desk-1" is forbidden: User "${SA_USER}" cannot delete resource "pods" in API group "" in the namespace "corral"`,
			reason: 'Forbidden',
			details: { name: 'desk-1', kind: 'pods' },
			code: 403,
		});
		const nodes = await simFetch(sim.cluster, '/api/v1/nodes', { token: saToken });
		expect((nodes.json() as { message: string }).message).toBe(
			`nodes is forbidden: User "${SA_USER}" cannot list resource "nodes" in API group "" at the cluster scope`,
		);
		const leases = await simFetch(
			sim.cluster,
			`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
			{
				token: saToken,
			},
		);
		expect(leases.json()).toMatchObject({
			message: `leases.coordination.k8s.io is forbidden: User "${SA_USER}" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "corral"`,
			details: { group: 'coordination.k8s.io', kind: 'leases' },
		});
		const watchOther = await simFetch(
			sim.cluster,
			`/api/v1/namespaces/${NS}/configmaps?watch=1&fieldSelector=metadata.name%3Dother-cm`,
			{ token: saToken },
		);
		expect((watchOther.json() as { message: string }).message).toBe(
			`configmaps "other-cm" is forbidden: User "${SA_USER}" cannot watch resource "configmaps" in API group "" in the namespace "corral"`,
		);
		const anon = await simFetch(sim.cluster, '/api/v1/namespaces', { token: 'not-a-token' });
		expect(anon.status).toBe(401);
	});

	it('may watch what the Role allows, and only that (client-node)', async () => {
		const kc = new KubeConfig();
		kc.loadFromFile(saConfig);
		const watch = new Watch(kc);
		const seen: string[] = [];
		const allowedWatch = await watch.watch(
			`/api/v1/namespaces/${NS}/pods`,
			{},
			(type, obj: { metadata?: { name?: string } }) => seen.push(`${type} ${obj.metadata?.name}`),
			() => {},
		);
		try {
			await waitFor(() => seen.includes('ADDED desk-1'), {
				what: 'the ADDED event of desk-1',
				wakeOn: sim.cluster.store,
			});
		} finally {
			allowedWatch.abort();
		}
		const refused = await new Promise<unknown>((resolve) => {
			watch
				.watch(`/api/v1/namespaces/${NS}/configmaps`, {}, () => {}, resolve)
				.then(() => {}, resolve);
		});
		expect(String(refused)).toMatch(/Forbidden|403/);
		const core = kc.makeApiClient(CoreV1Api);
		expect(
			(await core.listNamespacedPod({ namespace: NS })).items.map((p) => p.metadata?.name),
		).toContain('desk-1');
	});
});

describeKubectl('RBAC with the real kubectl', () => {
	const admin = (...args: string[]) => kubectl(args, { kubeconfig: sim.kubeconfigPath });
	const asSa = (...args: string[]) => kubectl(args, { kubeconfig: saConfig });

	it('watches the one ConfigMap its resourceNames rule names (get -w)', async () => {
		const w = spawnKubectl(['get', 'configmap', 'allowed-cm', '-n', NS, '-w'], {
			kubeconfig: saConfig,
		});
		try {
			await w.waitFor(/allowed-cm\s+1\s+\d+s/);
		} finally {
			await w.stop();
		}
		expect(w.stderr()).toBe('');
	});

	it('execs into a pod with pods/exec create, and is refused without it', async () => {
		const ok = await asSa('exec', 'desk-1', '-n', NS, '--', 'hostname');
		expect(ok.stderr).toBe('');
		expect(ok.stdout).toBe('desk-1\n');
		const other = await simFetch(sim.cluster, `/api/v1/namespaces/default/pods/x/exec?command=sh`, {
			token: saToken,
		});
		expect((other.json() as { message: string }).message).toBe(
			`pods "x" is forbidden: User "${SA_USER}" cannot create resource "pods/exec" in API group "" in the namespace "default"`,
		);
	});

	it('lets a WebSocket exec in with get on pods/exec alone, as a 1.32 server does', async () => {
		const { store } = sim.cluster;
		store.create('roles', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'Role',
			metadata: { name: 'exec-get', namespace: NS },
			rules: [{ apiGroups: [''], resources: ['pods', 'pods/exec'], verbs: ['get'] }],
		});
		store.create('rolebindings', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'RoleBinding',
			metadata: { name: 'exec-get', namespace: NS },
			roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'exec-get' },
			subjects: [{ kind: 'ServiceAccount', name: 'getter', namespace: NS }],
		});
		const getter = `--as=system:serviceaccount:${NS}:getter`;
		const r = await admin('exec', 'desk-1', '-n', NS, getter, '--', 'hostname');
		expect(r.stderr).toBe('');
		expect(r.stdout).toBe('desk-1\n');
		const nobody = await admin(
			'exec',
			'desk-1',
			'-n',
			NS,
			`--as=system:serviceaccount:${NS}:nobody`,
			'--',
			'hostname',
		);
		expect(nobody.code).not.toBe(0);
		expect(nobody.stderr).toContain('forbidden');
	});

	it('auth whoami names the admin and the service account', async () => {
		const me = await admin('auth', 'whoami');
		expect(me.stderr).toBe('');
		expect(me.stdout).toMatch(/Username\s+kubernetes-admin\n/);
		expect(me.stdout).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
		const sa = await asSa('auth', 'whoami', '-o', 'json');
		expect(JSON.parse(sa.stdout)).toMatchObject({
			kind: 'SelfSubjectReview',
			apiVersion: 'authentication.k8s.io/v1',
			status: {
				userInfo: {
					username: SA_USER,
					groups: [
						'system:serviceaccounts',
						`system:serviceaccounts:${NS}`,
						'system:authenticated',
					],
				},
			},
		});
	});

	it('auth can-i answers yes for the admin and no for a service account without rights', async () => {
		const yes = await admin('auth', 'can-i', 'create', 'pods');
		expect(yes.stdout.trim()).toBe('yes');
		expect(yes.code).toBe(0);
		const no = await admin(
			'auth',
			'can-i',
			'--as=system:serviceaccount:corral:nobody',
			'create',
			'pods',
		);
		expect(no.stdout.trim()).toBe('no');
		expect(no.code).toBe(1);
		const saNo = await asSa('auth', 'can-i', 'delete', 'pods', '-n', NS);
		expect(saNo.stdout.trim()).toBe('no');
		const saYes = await asSa('auth', 'can-i', 'create', 'pods', '--subresource=exec', '-n', NS);
		expect(saYes.stdout.trim()).toBe('yes');
	});

	it('auth can-i --list lists the Role’s rules and the discovery rules', async () => {
		const r = await asSa('auth', 'can-i', '--list', '-n', NS);
		expect(r.stderr).toBe('');
		const lines = r.stdout.split('\n');
		expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
		expect(r.stdout).toMatch(/\npods\s+\[\]\s+\[\]\s+\[get list watch\]\n/);
		expect(r.stdout).toMatch(/\npods\/exec\s+\[\]\s+\[\]\s+\[create\]\n/);
		expect(r.stdout).toMatch(/\nleases\.coordination\.k8s\.io\s+\[\]\s+\[\]\s+\[get\]\n/);
		expect(r.stdout).toMatch(/\nconfigmaps\s+\[\]\s+\[allowed-cm\]\s+\[get watch\]\n/);
		expect(r.stdout).toMatch(/\n\s+\[\/api\/\*\]\s+\[\]\s+\[get\]\n/);
		expect(r.stdout).toMatch(
			/\nselfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]\n/,
		);
		const admins = await admin('auth', 'can-i', '--list', '-n', NS);
		expect(admins.stdout).toMatch(/\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]\n/);
	});

	it('impersonation needs the impersonate verb', async () => {
		const refused = await asSa('get', 'pods', '-n', NS, '--as=bob');
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toContain(
			`users "bob" is forbidden: User "${SA_USER}" cannot impersonate resource "users" in API group "" at the cluster scope`,
		);
		const asSaByAdmin = await admin('get', 'pods', '-n', NS, `--as=${SA_USER}`, '-o', 'name');
		expect(asSaByAdmin.stderr).toBe('');
		expect(asSaByAdmin.stdout).toContain('pod/desk-1');
		const deleteAs = await admin('delete', 'pod', 'desk-1', '-n', NS, `--as=${SA_USER}`);
		expect(deleteAs.stderr).toContain(
			`pods "desk-1" is forbidden: User "${SA_USER}" cannot delete resource "pods" in API group "" in the namespace "corral"`,
		);
		const whoAs = await admin('auth', 'whoami', '--as=alice', '--as-group=team', '-o', 'json');
		expect(JSON.parse(whoAs.stdout)).toMatchObject({
			status: { userInfo: { username: 'alice', groups: ['team', 'system:authenticated'] } },
		});
		expect(sim.cluster.store.get('pods', NS, 'desk-1')).toBeDefined();
	});

	it('impersonation is allowed by a rule with the impersonate verb, for the names it lists', async () => {
		const { store } = sim.cluster;
		store.create('clusterroles', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'ClusterRole',
			metadata: { name: 'impersonate-bob' },
			rules: [
				{ apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] },
			],
		});
		store.create('clusterrolebindings', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'ClusterRoleBinding',
			metadata: { name: 'desk-user-impersonates-bob' },
			roleRef: {
				apiGroup: 'rbac.authorization.k8s.io',
				kind: 'ClusterRole',
				name: 'impersonate-bob',
			},
			subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
		});
		const asBob = await asSa('auth', 'whoami', '--as=bob', '-o', 'json');
		expect(asBob.stderr).toBe('');
		expect(JSON.parse(asBob.stdout)).toMatchObject({
			status: { userInfo: { username: 'bob', groups: ['system:authenticated'] } },
		});
		const withGroup = await asSa('get', 'pods', '-n', NS, '--as=bob', '--as-group=admins');
		expect(withGroup.stderr).toContain(
			`groups "admins" is forbidden: User "${SA_USER}" cannot impersonate resource "groups" in API group "" at the cluster scope`,
		);
		const asCarol = await asSa('get', 'pods', '-n', NS, '--as=carol');
		expect(asCarol.stderr).toContain(
			`users "carol" is forbidden: User "${SA_USER}" cannot impersonate`,
		);
	});
});
