import { expect, it } from 'vitest';
import { describeKubectl, kubectl, spawnKubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

describeKubectl('kubectl get against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });

	function pod(name: string, labels: Record<string, string>, image = 'ghcr.io/example/desktop:1') {
		return {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name, namespace: NS, labels },
			spec: { containers: [{ name: 'ct', image, command: ['sleep', 'infinity'] }] },
		};
	}

	async function seed() {
		const store = env.cluster.store;
		if (store.get('pods', NS, 'desk-1')) return;
		store.create('pods', pod('desk-1', { pool: 'desk', tier: 'gold' }));
		store.create('pods', pod('desk-2', { pool: 'desk' }));
		store.create('configmaps', {
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: { name: 'corral-vdi-ctpool-desk', namespace: NS },
			data: { spec: '{}', status: '{}' },
		});
		store.create('persistentvolumeclaims', {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: { name: 'desk-1-data', namespace: NS },
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
		});
		store.create('leases', {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: { name: 'corral-vdi-ct-desk-1', namespace: NS },
			spec: { holderIdentity: 'alice@example.com', leaseDurationSeconds: 3600 },
		});
		await waitFor(
			() =>
				['desk-1', 'desk-2'].every(
					(n) => (store.get('pods', NS, n)?.status as { phase?: string })?.phase === 'Running',
				) &&
				(store.get('persistentvolumeclaims', NS, 'desk-1-data')?.status as { phase?: string })
					?.phase === 'Bound',
			{ what: 'pods Running and the PVC Bound' },
		);
	}

	it('version shows the server version', async () => {
		const r = await run('version');
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^Server Version: v1\.32\.0$/m);
	});

	it('get pods,pvc,cm,leases prints the real column headers and rows', async () => {
		await seed();
		const r = await run('get', 'pods,pvc,cm,leases', '-n', NS);
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
		expect(r.stdout).toMatch(/^pod\/desk-1\s+1\/1\s+Running\s+0\s+\d+s$/m);
		expect(r.stdout).toMatch(
			/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/m,
		);
		expect(r.stdout).toMatch(
			/^persistentvolumeclaim\/desk-1-data\s+Bound\s+\S+\s+5Gi\s+RWO\s+standard\s+<unset>\s+\d+s$/m,
		);
		expect(r.stdout).toMatch(/^NAME\s+DATA\s+AGE$/m);
		expect(r.stdout).toMatch(/^configmap\/corral-vdi-ctpool-desk\s+2\s+\d+s$/m);
		expect(r.stdout).toMatch(/^NAME\s+HOLDER\s+AGE$/m);
		expect(r.stdout).toMatch(
			/^lease\.coordination\.k8s\.io\/corral-vdi-ct-desk-1\s+alice@example\.com\s+\d+s$/m,
		);
	});

	it('short names work (po, cm, pvc, no, ns)', async () => {
		await seed();
		const r = await run('get', 'po,cm,pvc', '-n', NS, '-o', 'name');
		expect(r.stdout.split('\n').filter(Boolean)).toEqual([
			'pod/desk-1',
			'pod/desk-2',
			'configmap/corral-vdi-ctpool-desk',
			'configmap/kube-root-ca.crt',
			'persistentvolumeclaim/desk-1-data',
		]);
		const nodes = await run('get', 'no');
		expect(nodes.stdout).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/m);
		expect(nodes.stdout).toMatch(/^node-a\s+Ready\s+<none>\s+\S+\s+v1\.32\.0$/m);
		const ns = await run('get', 'ns', 'corral');
		expect(ns.stdout).toMatch(/^corral\s+Active\s+\S+$/m);
	});

	it('-o wide adds the priority-1 columns', async () => {
		await seed();
		const r = await run('get', 'pods', '-n', NS, '-o', 'wide');
		expect(r.stdout).toMatch(
			/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m,
		);
		expect(r.stdout).toMatch(
			/^desk-1\s+1\/1\s+Running\s+0\s+\S+\s+\d+\.\d+\.\d+\.\d+\s+node-[a-c]\s+<none>\s+<none>$/m,
		);
	});

	it('-o json prints the objects', async () => {
		await seed();
		const r = await run('get', 'pods', '-n', NS, '-o', 'json');
		const list = JSON.parse(r.stdout) as {
			kind: string;
			items: { kind: string; metadata: { name: string } }[];
		};
		expect(list.kind).toBe('List');
		expect(list.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual([
			'Pod/desk-1',
			'Pod/desk-2',
		]);
	});

	it('-l and --field-selector filter on the server', async () => {
		await seed();
		const l = await run('get', 'pods', '-n', NS, '-l', 'tier=gold', '-o', 'name');
		expect(l.stdout.trim()).toBe('pod/desk-1');
		const notin = await run(
			'get',
			'pods',
			'-n',
			NS,
			'-l',
			'pool=desk,tier notin (gold)',
			'-o',
			'name',
		);
		expect(notin.stdout.trim()).toBe('pod/desk-2');
		const f = await run(
			'get',
			'pods',
			'-n',
			NS,
			'--field-selector',
			'metadata.name=desk-2,status.phase=Running',
			'-o',
			'name',
		);
		expect(f.stdout.trim()).toBe('pod/desk-2');
		const bad = await run('get', 'pods', '-n', NS, '--field-selector', 'spec.bogus=1');
		expect(bad.code).not.toBe(0);
		expect(bad.stderr).toContain('field label not supported: spec.bogus');
	});

	it('STATUS shows Terminating for a pod being deleted', async () => {
		await seed();
		const store = env.cluster.store;
		store.create('pods', {
			...pod('held', { pool: 'held' }),
			metadata: {
				name: 'held',
				namespace: NS,
				labels: { pool: 'held' },
				finalizers: ['example.com/hold'],
			},
		});
		store.delete('pods', NS, 'held', { gracePeriodSeconds: 0 });
		const r = await run('get', 'pod', 'held', '-n', NS);
		expect(r.stdout).toMatch(/^held\s+\d\/1\s+Terminating\s+0\s+\S+$/m);
		const cur = store.get('pods', NS, 'held')!;
		store.update('pods', { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
		expect(store.get('pods', NS, 'held')).toBeUndefined();
	});

	it('get -w prints a change as it happens', async () => {
		await seed();
		const w = spawnKubectl(['get', 'pods', '-n', NS, '-l', 'pool=desk', '-w'], {
			kubeconfig: env.kubeconfigPath,
		});
		try {
			await w.waitFor(/^desk-2\s+1\/1\s+Running/m);
			expect(w.stdout()).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
			env.cluster.store.create('pods', pod('desk-3', { pool: 'desk' }));
			await w.waitFor(/^desk-3\s+0\/1\s+(Pending|ContainerCreating)/m);
			await w.waitFor(/^desk-3\s+1\/1\s+Running/m);
			// the header is printed once
			expect(w.stdout().match(/^NAME\s+READY/gm)).toHaveLength(1);
		} finally {
			await w.stop();
		}
	});

	it('get events shows what the controllers did', async () => {
		await seed();
		const r = await run('get', 'events', '-n', NS);
		expect(r.stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
		expect(r.stdout).toMatch(
			/^\S+\s+Normal\s+Scheduled\s+pod\/desk-1\s+Successfully assigned corral\/desk-1 to node-[a-c]$/m,
		);
		const ev = await run(
			'get',
			'ev',
			'-n',
			NS,
			'--field-selector',
			'involvedObject.name=desk-2',
			'-o',
			'name',
		);
		expect(ev.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(0);
	});

	it('auth can-i follows the deny list', async () => {
		expect((await run('auth', 'can-i', 'delete', 'pods', '-n', NS)).stdout.trim()).toBe('yes');
		env.cluster.config.deny.push('delete pods');
		try {
			const r = await run('auth', 'can-i', 'delete', 'pods', '-n', NS);
			expect(r.stdout.trim()).toMatch(/^no - .*delete pods$/);
			const d = await run('delete', 'pod', 'desk-2', '-n', NS);
			expect(d.stderr).toContain(
				'pods "desk-2" is forbidden: User "kubernetes-admin" cannot delete resource "pods" in API group "" in the namespace "corral"',
			);
		} finally {
			env.cluster.config.deny.length = 0;
		}
	});
});
