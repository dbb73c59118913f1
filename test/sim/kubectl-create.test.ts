import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

type Rec = Record<string, unknown>;

// kubectl's imperative `create` commands send protobuf bodies: each must be decoded and stored.
describeKubectl('kubectl create (protobuf bodies) against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });
	const stored = (resource: string, name: string, ns: string | undefined = NS) =>
		env.cluster.store.get(resource, ns, name) as Rec | undefined;

	it('create namespace', async () => {
		const r = await run('create', 'namespace', 'made-ns');
		expect(r.stderr).toBe('');
		expect(r.stdout.trim()).toBe('namespace/made-ns created');
		expect(stored('namespaces', 'made-ns', undefined)).toMatchObject({
			metadata: { name: 'made-ns', labels: { 'kubernetes.io/metadata.name': 'made-ns' } },
			status: { phase: 'Active' },
		});
	});

	it('create configmap --from-literal', async () => {
		const r = await run(
			'create',
			'configmap',
			'made-cm',
			'--from-literal=a=1',
			'--from-literal=b=two',
			'-n',
			NS,
		);
		expect(r.stderr).toBe('');
		expect(r.stdout.trim()).toBe('configmap/made-cm created');
		expect(stored('configmaps', 'made-cm')?.data).toEqual({ a: '1', b: 'two' });
	});

	it('create secret generic', async () => {
		const r = await run(
			'create',
			'secret',
			'generic',
			'made-secret',
			'--from-literal=password=s3cret',
			'-n',
			NS,
		);
		expect(r.stderr).toBe('');
		expect(r.stdout.trim()).toBe('secret/made-secret created');
		const s = stored('secrets', 'made-secret');
		expect(s?.type).toBe('Opaque');
		expect(s?.data).toEqual({ password: Buffer.from('s3cret').toString('base64') });
		const table = await run('get', 'secret', 'made-secret', '-n', NS);
		expect(table.stdout).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE\nmade-secret\s+Opaque\s+1\s+\d+s\n$/);
	});

	it('create serviceaccount, and get shows NAME SECRETS AGE', async () => {
		const r = await run('create', 'serviceaccount', 'made-sa', '-n', NS);
		expect(r.stderr).toBe('');
		expect(r.stdout.trim()).toBe('serviceaccount/made-sa created');
		expect(stored('serviceaccounts', 'made-sa')?.metadata).toMatchObject({
			name: 'made-sa',
			namespace: NS,
		});
		const table = await run('get', 'sa', 'made-sa', '-n', NS);
		expect(table.stdout).toMatch(/^NAME\s+SECRETS\s+AGE\nmade-sa\s+0\s+\d+s\n$/);
	});

	it('create role and rolebinding, and get shows their columns', async () => {
		const role = await run(
			'create',
			'role',
			'pod-reader',
			'--verb=get,list,watch',
			'--resource=pods,pods/log',
			'-n',
			NS,
		);
		expect(role.stderr).toBe('');
		expect(role.stdout.trim()).toBe('role.rbac.authorization.k8s.io/pod-reader created');
		expect(stored('roles', 'pod-reader')?.rules).toEqual([
			{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
		]);
		const rb = await run(
			'create',
			'rolebinding',
			'read-pods',
			'--role=pod-reader',
			'--serviceaccount=corral:made-sa',
			'--user=alice',
			'--group=team',
			'-n',
			NS,
		);
		expect(rb.stderr).toBe('');
		expect(rb.stdout.trim()).toBe('rolebinding.rbac.authorization.k8s.io/read-pods created');
		expect(stored('rolebindings', 'read-pods')).toMatchObject({
			roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
			subjects: expect.arrayContaining([
				{ kind: 'ServiceAccount', name: 'made-sa', namespace: NS },
				{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
				{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team' },
			]),
		});
		const roles = await run('get', 'roles', '-n', NS);
		expect(roles.stdout).toMatch(
			/^NAME\s+CREATED AT\npod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/,
		);
		const wide = await run('get', 'rolebinding', 'read-pods', '-n', NS, '-o', 'wide');
		expect(wide.stdout).toMatch(
			/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\nread-pods\s+Role\/pod-reader\s+\d+s\s+alice\s+team\s+corral\/made-sa\n$/,
		);
	});

	it('create clusterrole and clusterrolebinding', async () => {
		const cr = await run(
			'create',
			'clusterrole',
			'ns-viewer',
			'--verb=get,list',
			'--resource=namespaces',
		);
		expect(cr.stderr).toBe('');
		expect(cr.stdout.trim()).toBe('clusterrole.rbac.authorization.k8s.io/ns-viewer created');
		expect(stored('clusterroles', 'ns-viewer', undefined)?.rules).toEqual([
			{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] },
		]);
		const crb = await run(
			'create',
			'clusterrolebinding',
			'ns-viewers',
			'--clusterrole=ns-viewer',
			'--serviceaccount=corral:made-sa',
		);
		expect(crb.stderr).toBe('');
		expect(crb.stdout.trim()).toBe(
			'clusterrolebinding.rbac.authorization.k8s.io/ns-viewers created',
		);
		expect(stored('clusterrolebindings', 'ns-viewers', undefined)).toMatchObject({
			roleRef: { kind: 'ClusterRole', name: 'ns-viewer' },
			subjects: [{ kind: 'ServiceAccount', name: 'made-sa', namespace: NS }],
		});
	});

	it('explains the RBAC kinds and refuses an unknown field under Strict validation', async () => {
		const explain = await run('explain', 'rolebinding.roleRef');
		expect(explain.stderr).toBe('');
		expect(explain.stdout).toContain('KIND:       RoleBinding');
		expect(explain.stdout).toMatch(/apiGroup\s+<string>/);
		const file = join(env.sim.dir, 'typo-role.yaml');
		await writeFile(
			file,
			'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: typo}\nrulez: []\n',
		);
		const r = await run('create', '-f', file, '-n', NS);
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain('unknown field "rulez"');
		expect(stored('roles', 'typo')).toBeUndefined();
	});

	it('refuses a roleRef change with the real message', async () => {
		const r = await run(
			'patch',
			'rolebinding',
			'read-pods',
			'-n',
			NS,
			'--type=merge',
			'-p',
			'{"roleRef":{"name":"other"}}',
		);
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain(
			'The RoleBinding "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
		);
		expect(stored('rolebindings', 'read-pods')?.roleRef).toMatchObject({ name: 'pod-reader' });
	});

	it('create service clusterip and nodeport', async () => {
		const r = await run('create', 'service', 'clusterip', 'made-svc', '--tcp=80:8080', '-n', NS);
		expect(r.stderr).toBe('');
		expect(r.stdout.trim()).toBe('service/made-svc created');
		const spec = stored('services', 'made-svc')?.spec as Rec;
		expect(spec).toMatchObject({
			type: 'ClusterIP',
			selector: { app: 'made-svc' },
			ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
		});
		expect((spec.ports as Rec[])[0]!.nodePort).toBeUndefined();
		const np = await run(
			'create',
			'service',
			'nodeport',
			'made-np',
			'--tcp=443:https',
			'--node-port=30443',
			'-n',
			NS,
		);
		expect(np.stderr).toBe('');
		expect(stored('services', 'made-np')?.spec).toMatchObject({
			type: 'NodePort',
			ports: [{ port: 443, targetPort: 'https', nodePort: 30443 }],
		});
	});

	it('fills a legacy service-account-token Secret, whose token works until its account goes', async () => {
		expect((await run('create', 'serviceaccount', 'legacy-sa', '-n', NS)).code).toBe(0);
		const file = join(env.sim.dir, 'legacy-secret.yaml');
		await writeFile(
			file,
			[
				'apiVersion: v1',
				'kind: Secret',
				'metadata:',
				'  name: legacy-sa-token',
				'  annotations: {kubernetes.io/service-account.name: legacy-sa}',
				'type: kubernetes.io/service-account-token',
				'',
			].join('\n'),
		);
		expect((await run('apply', '-f', file, '-n', NS)).stderr).toBe('');
		const secret = await waitFor(() => {
			const s = stored('secrets', 'legacy-sa-token');
			return (s?.data as Rec | undefined)?.token ? s : undefined;
		});
		const saUid = (stored('serviceaccounts', 'legacy-sa')?.metadata as Rec | undefined)?.uid;
		expect((secret.metadata as Rec).annotations).toMatchObject({
			'kubernetes.io/service-account.uid': saUid,
		});
		const token = Buffer.from(String((secret.data as Rec).token), 'base64').toString();
		const who = await run('auth', 'whoami', '--token', token);
		expect(who.stdout).toMatch(/Username\s+system:serviceaccount:corral:legacy-sa/);
		expect((await run('delete', 'sa', 'legacy-sa', '-n', NS)).code).toBe(0);
		await waitFor(() => stored('secrets', 'legacy-sa-token') === undefined);
		const gone = await run('auth', 'whoami', '--token', token);
		expect(gone.stderr).toContain('Unauthorized');
	});

	it('create token prints a token that acts as the service account', async () => {
		const r = await run('create', 'token', 'made-sa', '-n', NS, '--duration=20m');
		expect(r.stderr).toBe('');
		const token = r.stdout.trim();
		expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
		const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
			exp: number;
			iat: number;
			sub: string;
		};
		expect(claims.sub).toBe('system:serviceaccount:corral:made-sa');
		expect(claims.exp - claims.iat).toBe(1200);
		const who = await run('auth', 'whoami', '--token', token);
		expect(who.stderr).toBe('');
		expect(who.stdout).toMatch(/Username\s+system:serviceaccount:corral:made-sa/);
		expect(who.stdout).toMatch(
			/Groups\s+\[system:serviceaccounts system:serviceaccounts:corral system:authenticated\]/,
		);
		const short = await run('create', 'token', 'made-sa', '-n', NS, '--duration=1m');
		expect(short.code).not.toBe(0);
		expect(short.stderr).toContain(
			'TokenRequest.authentication.k8s.io "made-sa" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
		);
		const missing = await run('create', 'token', 'nobody', '-n', NS);
		expect(missing.code).not.toBe(0);
		expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
		// A deleted account's tokens stop working.
		expect((await run('delete', 'sa', 'made-sa', '-n', NS)).code).toBe(0);
		const gone = await run('get', 'pods', '-n', NS, '--token', token);
		expect(gone.code).not.toBe(0);
		expect(gone.stderr).toContain('Unauthorized');
	});
});
