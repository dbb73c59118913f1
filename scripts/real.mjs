#!/usr/bin/env node
/**
 * npm run real -- up|down|status|kubeconfig-for: a real Kubernetes control plane on loopback,
 * where ctpool is proven (the simulated cluster serves the demo and the fast inner loop).
 *
 * `up` builds what is missing from the Go module in realcluster/ (kube-apiserver,
 * kube-controller-manager, kube-scheduler and kwok from the Kubernetes modules, and the
 * launcher with etcd embedded) into a cache folder, starts the launcher in the background,
 * and returns once the nodes are Ready, having written the admin kubeconfig.
 *
 * Also a module: the real test tier imports up() and down().
 *
 * Where: CTPOOL_REAL_DIR, else $XDG_CACHE_HOME/ctpool/realcluster, else
 * ~/.cache/ctpool/realcluster; its bin/ keeps the build, its state/ the running cluster.
 */

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const moduleDir = join(root, 'realcluster');

/** The Kubernetes components built from the modules that realcluster/go.mod names. */
const TOOLS = [
	'k8s.io/kubernetes/cmd/kube-apiserver',
	'k8s.io/kubernetes/cmd/kube-controller-manager',
	'k8s.io/kubernetes/cmd/kube-scheduler',
	'sigs.k8s.io/kwok/cmd/kwok',
];
const BINARIES = [
	'kube-apiserver',
	'kube-controller-manager',
	'kube-scheduler',
	'kwok',
	'realcluster',
];

/** The cache folder (bin/ and state/). */
export function realDir() {
	if (process.env.CTPOOL_REAL_DIR) return resolve(process.env.CTPOOL_REAL_DIR);
	const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(cache, 'ctpool', 'realcluster');
}

const binDir = () => join(realDir(), 'bin');
/**
 * A running cluster's state: `state/` for the default one (tests, `npm run real`), and
 * `state-<instance>/` for another beside it (the benchmark's, with bigger nodes).
 */
const stateDir = (instance = 'default') =>
	join(realDir(), instance === 'default' ? 'state' : `state-${instance}`);
const readyFile = (instance) => join(stateDir(instance), 'ready.json');

class RealClusterError extends Error {}

function say(text) {
	process.stderr.write(`realcluster: ${text}\n`);
}

/** The Go toolchain's version, or a clear error when Go is missing. */
function goVersion() {
	try {
		return execFileSync('go', ['version'], { encoding: 'utf8' }).trim();
	} catch {
		throw new RealClusterError(
			'Go is not on the PATH. The real control plane is built from the Kubernetes Go modules: ' +
				'install Go 1.26 or newer, then run `npm run real -- up` again. ' +
				'(`npm start` and `npm test` need no Go.)',
		);
	}
}

/** What the build depends on: the module's files and the Go version. */
function buildStamp(version) {
	const h = createHash('sha256').update(version).update(versionFlags());
	for (const name of readdirSync(moduleDir).sort()) {
		if (/\.(go|mod|sum)$/.test(name)) h.update(name).update(readFileSync(join(moduleDir, name)));
	}
	return h.digest('hex');
}

/**
 * The release that go.mod names, stamped into the binaries as Kubernetes' own build does
 * (without it they say v0.0.0-master, which kubectl's version check cannot parse).
 */
function versionFlags() {
	const mod = readFileSync(join(moduleDir, 'go.mod'), 'utf8');
	const m = /\bk8s\.io\/kubernetes v(\d+)\.(\d+)\.(\d+)/.exec(mod);
	if (!m) throw new RealClusterError('realcluster/go.mod names no k8s.io/kubernetes release');
	const [, major, minor] = m;
	const vars = {
		gitVersion: `v${m[1]}.${m[2]}.${m[3]}`,
		gitMajor: major,
		gitMinor: minor,
		gitTreeState: 'clean',
		buildDate: '1970-01-01T00:00:00Z',
	};
	return Object.entries(vars)
		.flatMap(([k, v]) =>
			['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].map(
				(pkg) => `-X ${pkg}.${k}=${v}`,
			),
		)
		.join(' ');
}

/** Builds the binaries unless bin/ already holds them for the same sources and Go. */
export function build({ quiet = false } = {}) {
	const version = goVersion();
	const stamp = buildStamp(version);
	const stampFile = join(binDir(), '.stamp');
	const built =
		existsSync(stampFile) &&
		readFileSync(stampFile, 'utf8') === stamp &&
		BINARIES.every((b) => existsSync(join(binDir(), b)));
	if (built) return { builtMs: 0 };
	mkdirSync(binDir(), { recursive: true });
	if (!quiet) say(`building the control plane (${version}); a first build takes many minutes`);
	const started = Date.now();
	try {
		execFileSync('go', ['build', '-ldflags', versionFlags(), '-o', `${binDir()}/`, ...TOOLS, '.'], {
			cwd: moduleDir,
			stdio: ['ignore', 'inherit', 'inherit'],
			env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=readonly`.trim() },
		});
	} catch {
		throw new RealClusterError('go build failed (its errors are above)');
	}
	writeFileSync(stampFile, stamp);
	const builtMs = Date.now() - started;
	if (!quiet) say(`built in ${(builtMs / 1000).toFixed(0)} s into ${binDir()}`);
	return { builtMs };
}

function alive(pid) {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	// A pid of a launcher that died may have gone to another process since.
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('realcluster');
	} catch {
		return true; // no /proc: trust the signal
	}
}

/** The running cluster's ready file, or undefined. */
export function current(instance = 'default') {
	if (!existsSync(readyFile(instance))) return undefined;
	try {
		const ready = JSON.parse(readFileSync(readyFile(instance), 'utf8'));
		return alive(ready.pid) ? ready : undefined;
	} catch {
		return undefined;
	}
}

function tail(file, lines = 30) {
	if (!existsSync(file)) return '';
	return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds what is missing, starts the control plane (unless one is running) and resolves
 * with its ready file once its nodes are Ready. `kubeconfig`: also copy the admin
 * kubeconfig there.
 */
export async function up({
	kubeconfig,
	nodes = 3,
	nodeCpu = '64',
	nodeMemory = '32Gi',
	nodePods = '250',
	instance = 'default',
	timeoutMs = 240_000,
	quiet = false,
} = {}) {
	build({ quiet });
	let ready = current(instance);
	if (ready) {
		if (!quiet) say(`already up at ${ready.server}`);
	} else {
		const state = stateDir(instance);
		rmSync(state, { recursive: true, force: true });
		mkdirSync(state, { recursive: true });
		const logFile = join(state, 'launcher.log');
		const out = openSync(logFile, 'a');
		const started = Date.now();
		const child = spawn(
			join(binDir(), 'realcluster'),
			[
				...['--bin', binDir(), '--state', state, '--nodes', String(nodes)],
				...['--node-cpu', nodeCpu, '--node-memory', nodeMemory, '--node-pods', nodePods],
			],
			{ detached: true, stdio: ['ignore', out, out] },
		);
		closeSync(out);
		let exited;
		child.on('exit', (code, signal) => {
			exited = signal ?? `exit code ${code}`;
		});
		child.unref();
		for (ready = current(instance); !ready; ready = current(instance)) {
			if (exited !== undefined || Date.now() - started > timeoutMs) {
				if (exited === undefined) child.kill('SIGTERM');
				throw new RealClusterError(
					`the control plane did not start (${exited ?? `not ready within ${timeoutMs / 1000} s`}); ` +
						`its log (${logFile}) ends:\n${tail(logFile)}`,
				);
			}
			await sleep(200);
		}
		if (!quiet) say(`up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${ready.server}`);
	}
	if (kubeconfig) copyFileSync(ready.kubeconfig, kubeconfig);
	if (!quiet) say(`admin kubeconfig: ${kubeconfig ?? ready.kubeconfig}`);
	return ready;
}

/** Stops the control plane and removes its state. */
export async function down({ quiet = false, instance = 'default' } = {}) {
	const ready = current(instance);
	if (ready) {
		process.kill(ready.pid, 'SIGTERM');
		const deadline = Date.now() + 30_000;
		while (alive(ready.pid) && Date.now() < deadline) await sleep(100);
		// The components die with the launcher; the group kill is for a launcher that hung.
		if (alive(ready.pid)) process.kill(-ready.pid, 'SIGKILL');
	}
	rmSync(stateDir(instance), { recursive: true, force: true });
	if (!quiet) say(ready ? 'stopped, state removed' : 'not running; state removed');
}

/** Writes a kubeconfig acting as ServiceAccount ns/name (created if missing), through kubectl. */
function kubeconfigFor(spec) {
	const ready = current();
	if (!ready) throw new RealClusterError('not running: `npm run real -- up` first');
	const m = /^([a-z0-9-]+)\/([a-z0-9-]+)=(.+)$/.exec(spec ?? '');
	if (!m) throw new RealClusterError('usage: kubeconfig-for NAMESPACE/SERVICEACCOUNT=FILE');
	const [, ns, name, file] = m;
	const kubectl = (...args) =>
		execFileSync('kubectl', ['--kubeconfig', ready.kubeconfig, ...args], {
			encoding: 'utf8',
		}).trim();
	for (const [kind, n] of [
		['namespace', ns],
		['serviceaccount', name],
	]) {
		const args = kind === 'namespace' ? [kind, n] : ['-n', ns, kind, n];
		try {
			kubectl('get', ...args);
		} catch {
			kubectl('create', ...args);
		}
	}
	const token = kubectl('create', 'token', '-n', ns, name, '--duration=24h');
	const admin = readFileSync(ready.kubeconfig, 'utf8');
	const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1];
	writeFileSync(
		file,
		[
			'apiVersion: v1',
			'kind: Config',
			'clusters:',
			`- name: realcluster`,
			'  cluster:',
			`    server: ${ready.server}`,
			`    certificate-authority-data: ${ca}`,
			'users:',
			`- name: ${name}`,
			'  user:',
			`    token: ${token}`,
			'contexts:',
			`- name: ${name}`,
			'  context:',
			'    cluster: realcluster',
			`    namespace: ${ns}`,
			`    user: ${name}`,
			`current-context: ${name}`,
			'',
		].join('\n'),
		{ mode: 0o600 },
	);
	say(`kubeconfig for ServiceAccount ${ns}/${name}: ${file}`);
}

const USAGE = `usage: npm run real -- <command>

  up [--kubeconfig FILE] [--nodes N]   build what is missing, start the control plane, wait
                                      until its nodes are Ready; FILE gets the admin kubeconfig
  down                                stop it and remove its state
  status                              whether it runs, and where
  build                               only build (into ${'$'}CTPOOL_REAL_DIR/bin)
  kubeconfig-for NS/SA=FILE           a kubeconfig acting as ServiceAccount SA of namespace NS
`;

async function main(argv) {
	const [command, ...rest] = argv;
	const flag = (name) => {
		const i = rest.indexOf(name);
		return i >= 0 ? rest[i + 1] : undefined;
	};
	switch (command) {
		case 'up':
			await up({ kubeconfig: flag('--kubeconfig'), nodes: Number(flag('--nodes') ?? 3) });
			return 0;
		case 'down':
			await down();
			return 0;
		case 'build':
			build();
			return 0;
		case 'status': {
			const ready = current();
			process.stdout.write(ready ? `${JSON.stringify(ready, null, 2)}\n` : 'not running\n');
			return ready ? 0 : 1;
		}
		case 'kubeconfig-for':
			kubeconfigFor(rest[0]);
			return 0;
		default:
			process.stderr.write(USAGE);
			return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
	}
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	try {
		process.exitCode = await main(process.argv.slice(2));
	} catch (err) {
		if (!(err instanceof RealClusterError)) throw err;
		say(err.message);
		process.exitCode = 1;
	}
}
