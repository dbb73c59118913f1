/** ctpool sim: run the simulated Kubernetes cluster as its own process until interrupted. */

import meow from 'meow';
import { defaultNamespace, isDnsLabel, NAMESPACE_ENV } from '../pool/names.js';
import { parseQuantity } from '../pool/quantity.js';
import {
	defaultClusterConfig,
	parseFaultSpec,
	type SimCluster,
	startSimCluster,
} from '../sim/index.js';
import { scanFlags } from './flags.js';
import { forProgram } from './program.js';
import { SIM_FLAGS } from './sim-flags.js';
import { parseDuration } from './values.js';

const HELP = `
Usage: ctpool sim [flags]

Run a simulated Kubernetes cluster (API server, scheduler, kubelet, volume provisioner) on
127.0.0.1 until interrupted (Ctrl-C). It writes a kubeconfig whose context works with plain
kubectl and with ctpool, creates Corral's namespace ($CORRAL_NAMESPACE, else corral-vms)
and names it in the kubeconfig's context, so neither kubectl nor ctpool needs -n, and
requires its bearer token.

Flags
  --port N             port on 127.0.0.1 (default: a free one)
  --kubeconfig PATH    where to write the kubeconfig (default: a temp file, named on start)
  --nodes N            number of nodes (default 3)
  --node-cpu Q         allocatable CPU of each node (default 8)
  --node-memory Q      allocatable memory of each node (default 32Gi)
  --demo               define pool desk, keep it reconciled, and let simulated users
                       claim and release desktops
  --fault SPEC         switch faults on, e.g. drop-watches-every=5s,error-rate=0.05,
                       latency=50ms,force-410,seed=7
  --kubeconfig-for NS/SA=FILE
                       also write FILE, a kubeconfig acting as ServiceAccount SA in
                       namespace NS (both created if missing), to try ctpool with reduced
                       rights; it has none until a Role is bound to it (repeatable)
  --compaction D       how long the watch history keeps a change (default 5m, as etcd's
                       compaction); a watch from an older resourceVersion gets 410 Gone
  --bookmark-interval D  how often a watch that allows bookmarks gets one (default 60s)
  --help               show this help

Examples
  ctpool sim --kubeconfig ./sim.kubeconfig
  ctpool sim --nodes 2 --node-memory 8Gi --fault error-rate=0.02
  ctpool sim --kubeconfig ./admin.kubeconfig --kubeconfig-for corral-vms/desk-user=./desk.kubeconfig
`;

/**
 * The flags of `ctpool sim`, checked strictly first (an unknown flag or a missing value is
 * a usage error, never a process exit), then parsed by meow.
 */
function parseSimArgs(argv: readonly string[]) {
	const cli = meow(HELP, {
		argv: scanFlags(argv, SIM_FLAGS, 'sim'),
		importMeta: import.meta,
		pkg: { name: 'ctpool' },
		autoHelp: false,
		autoVersion: false,
		allowUnknownFlags: true,
		flags: {
			port: { type: 'number' },
			kubeconfig: { type: 'string' },
			nodes: { type: 'number', default: 3 },
			nodeCpu: { type: 'string', default: '8' },
			nodeMemory: { type: 'string', default: '32Gi' },
			demo: { type: 'boolean', default: false },
			fault: { type: 'string' },
			kubeconfigFor: { type: 'string', isMultiple: true, default: [] },
			compaction: { type: 'string', default: '5m' },
			bookmarkInterval: { type: 'string', default: '60s' },
			help: { type: 'boolean', shortFlag: 'h', default: false },
		},
	});
	return { input: cli.input.map(String), flags: cli.flags };
}

/** Where runSim writes and what stops it (tests pass their own). */
export interface SimCommandIo {
	stdout?: { write(s: string): unknown };
	stderr?: { write(s: string): unknown };
	/** Stops the cluster when aborted (default: SIGINT or SIGTERM). */
	signal?: AbortSignal;
	/** Called once the cluster is up. */
	onReady?: (cluster: SimCluster) => void;
}

function usageError(io: Required<Pick<SimCommandIo, 'stderr'>>, message: string): number {
	io.stderr.write(`ctpool sim: ${message}\nRun 'ctpool sim --help' for usage.\n`);
	return 2;
}

/** Runs `ctpool sim`; resolves with the exit code once interrupted and closed. */
export async function runSim(argv: string[], io: SimCommandIo = {}): Promise<number> {
	const stdout = io.stdout ?? process.stdout;
	const stderr = io.stderr ?? process.stderr;
	let parsed: ReturnType<typeof parseSimArgs>;
	try {
		parsed = parseSimArgs(argv);
	} catch (err) {
		return usageError({ stderr }, (err as Error).message);
	}
	const { input, flags: f } = parsed;
	if (f.help) {
		stdout.write(`${forProgram(HELP.trim())}\n`);
		return 0;
	}
	if (input.length > 0) return usageError({ stderr }, `unexpected argument: ${input[0]}`);
	if (f.port !== undefined && (!Number.isInteger(f.port) || f.port < 0 || f.port > 65535)) {
		return usageError({ stderr }, `--port must be 0..65535, got ${f.port}`);
	}
	if (!Number.isInteger(f.nodes) || f.nodes < 1 || f.nodes > 100) {
		return usageError({ stderr }, `--nodes must be 1..100, got ${f.nodes}`);
	}
	for (const [flag, q] of [
		['--node-cpu', f.nodeCpu],
		['--node-memory', f.nodeMemory],
	] as const) {
		const v = parseQuantity(q);
		if (v === null || v <= 0)
			return usageError({ stderr }, `${flag} must be a positive quantity, got ${q}`);
	}
	const accounts: { namespace: string; name: string; file: string }[] = [];
	for (const spec of f.kubeconfigFor) {
		const m = /^([^/=]+)\/([^/=]+)=(.+)$/.exec(spec);
		const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
		if (!m || !dns.test(m[1]!) || m[1]!.length > 63 || !dns.test(m[2]!) || m[2]!.length > 63) {
			return usageError(
				{ stderr },
				`--kubeconfig-for must be NAMESPACE/SERVICEACCOUNT=FILE with lower-case DNS names (e.g. corral-vms/desk-user=./desk.kubeconfig), got ${JSON.stringify(spec)}`,
			);
		}
		accounts.push({ namespace: m[1]!, name: m[2]!, file: m[3]! });
	}
	let faults = {};
	try {
		if (f.fault) faults = parseFaultSpec(f.fault);
	} catch (err) {
		return usageError({ stderr }, `--fault: ${(err as Error).message}`);
	}

	let compactionMs: number;
	let bookmarkIntervalMs: number;
	try {
		compactionMs = parseDuration('sim', 'compaction', f.compaction, 100);
		bookmarkIntervalMs = parseDuration('sim', 'bookmark-interval', f.bookmarkInterval, 100);
	} catch (err) {
		return usageError({ stderr }, (err as Error).message.replace(/; see ctpool sim --help$/, ''));
	}

	const namespace = defaultNamespace(process.env);
	if (!isDnsLabel(namespace))
		return usageError(
			{ stderr },
			`${NAMESPACE_ENV}=${JSON.stringify(namespace.slice(0, 70))} is not a valid namespace; set it to a DNS-1123 label or unset it`,
		);
	const base = defaultClusterConfig();
	const nodes = Array.from({ length: f.nodes }, (_, i) => ({
		name: base.nodes[i]?.name ?? `node-${i + 1}`,
		cpu: f.nodeCpu,
		memory: f.nodeMemory,
	}));
	let cluster: SimCluster;
	try {
		cluster = await startSimCluster({
			config: { nodes },
			compactionMs,
			bookmarkIntervalMs,
			namespace,
			...(f.port !== undefined ? { port: f.port } : {}),
			...(f.kubeconfig ? { kubeconfigPath: f.kubeconfig } : {}),
		});
	} catch (err) {
		stderr.write(`ctpool sim: cannot start: ${(err as Error).message}\n`);
		return 1;
	}
	cluster.faults.set(faults);
	const accountLines: string[] = [];
	try {
		for (const a of accounts) {
			if (!cluster.store.get('namespaces', undefined, a.namespace)) {
				cluster.store.create(
					'namespaces',
					{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } },
					{ who: 'ctpool-sim' },
				);
			}
			const file = await cluster.serviceAccountKubeconfig(a.namespace, a.name, { path: a.file });
			accountLines.push(
				`  kubeconfig for ServiceAccount ${a.namespace}/${a.name}: ${file} (no rights until bound, e.g.`,
				`    kubectl --kubeconfig ${cluster.kubeconfigPath} -n ${a.namespace} create rolebinding ${a.name}-edit --clusterrole=edit --serviceaccount=${a.namespace}:${a.name})`,
			);
		}
	} catch (err) {
		stderr.write(
			`ctpool sim: cannot write a ServiceAccount kubeconfig: ${(err as Error).message}\n`,
		);
		await cluster.close();
		return 1;
	}

	const path = cluster.kubeconfigPath;
	const lines = [
		`ctpool sim: a simulated Kubernetes cluster is running at ${cluster.httpsUrl}`,
		`  ${f.nodes} node(s) with ${f.nodeCpu} CPU and ${f.nodeMemory} each; namespaces default and ${namespace}`,
		`  kubeconfig: ${path} (context ${cluster.contextName}, namespace ${namespace})`,
		...accountLines,
		'',
		'Use it from another terminal:',
		`  kubectl --kubeconfig ${path} get pods`,
		`  ctpool --kubeconfig ${path} desk`,
		`  export KUBECONFIG=${path}`,
		'',
	];
	if (Object.keys(faults).length > 0)
		lines.push(`Faults: ${JSON.stringify(cluster.faults.current())}`, '');
	if (f.demo)
		lines.push(
			'Demo: pool desk (6 desktops) is defined and reconciled every 10 s; simulated users claim and release.',
			'',
		);
	lines.push('Press Ctrl-C to stop.');
	stdout.write(`${lines.join('\n')}\n`);
	let demo: { stop(): Promise<void> } | null = null;
	if (f.demo) {
		const { startBackgroundDemo } = await import('../demo/background.js');
		try {
			demo = await startBackgroundDemo(cluster, { log: (line) => stdout.write(`${line}\n`) });
		} catch (err) {
			stderr.write(`ctpool sim: the demo pool could not be set up: ${(err as Error).message}\n`);
		}
	}
	io.onReady?.(cluster);

	await new Promise<void>((resolve) => {
		if (io.signal) {
			if (io.signal.aborted) resolve();
			else io.signal.addEventListener('abort', () => resolve(), { once: true });
			return;
		}
		const stop = () => {
			process.off('SIGINT', stop);
			process.off('SIGTERM', stop);
			resolve();
		};
		process.on('SIGINT', stop);
		process.on('SIGTERM', stop);
	});
	await demo?.stop();
	await cluster.close();
	stdout.write('ctpool sim: stopped\n');
	return 0;
}
