/**
 * The package as an admin installs it: `npm pack` of the built dist/, installed with
 * `npm install -g --prefix <tmp>`, then ctpool and the kubectl plugin run from the prefix's
 * bin. The bundle holds every runtime dependency, so the package declares none and the
 * install fetches nothing.
 *
 * Should a runtime dependency come back, the install fetches it with --prefer-offline: the
 * local npm cache first, the registry for what it lacks. When neither can give it (no
 * registry, empty cache), the install tests skip with npm's message, except under CI=true,
 * where that is a failure.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putDefinition } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { kubectlAvailable } from '../support/kubectl.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const built = existsSync(join(ROOT, 'dist', 'cli.js'));
if (!built)
	console.warn('skipping the tarball tests: dist/cli.js is missing (npm test builds it first)');

interface Run {
	code: number;
	stdout: string;
	stderr: string;
}

/** The environment without npm's own variables (a parent `npm test` sets npm_config_*). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env))
		if (!k.toLowerCase().startsWith('npm_')) env[k] = v;
	return { ...env, NO_COLOR: '1', KUBECONFIG: '', ...extra };
}

/** Runs a program and collects its output (never rejects on a non-zero exit). */
function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<Run> {
	return new Promise((done) => {
		execFile(
			file,
			args,
			{ cwd, env, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 << 20 },
			(err, stdout, stderr) => {
				const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
				done({ code, stdout, stderr });
			},
		);
	});
}

/** npm's sign that the dependencies could not be fetched (no registry, not in the cache). */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED/;

// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
// only when the file is run alone before `npm run build`.
describe.skipIf(!built)('the npm tarball', () => {
	let dir = '';
	let tarball = '';
	let files: Array<{ path: string; mode: number }> = [];
	let prefix = '';
	/** Why the install could not run (registry and cache both unable), or '' when installed. */
	let unreachable = '';
	let c: TestCluster;
	let manifestBefore = '';
	let manifestAfter = '';
	let installWarnings = '';
	/** Skips a test that needs the install when there is none (offline). */
	const skipOffline = (t: { skip(note: string): void }) => {
		// Reason: offline, npm can fetch the runtime dependencies neither from the registry nor
		// from its cache, so there is no install to test (under CI=true beforeAll throws instead).
		if (unreachable) t.skip(`npm could not fetch the runtime dependencies: ${unreachable}`);
	};

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), 'ctpool-tarball-'));
		// with its scripts, as an admin runs it: prepack writes the published package.json
		// (no prepare, so nothing is built: the dist/ already built is packed, under the feet of
		// no other test file), postpack puts the clone's back
		manifestBefore = readFileSync(join(ROOT, 'package.json'), 'utf8');
		const pack = await run('npm', ['pack', '--json', '--pack-destination', dir], cleanEnv());
		manifestAfter = readFileSync(join(ROOT, 'package.json'), 'utf8');
		if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
		const info = JSON.parse(pack.stdout) as Array<{
			filename: string;
			files: Array<{ path: string; mode: number }>;
		}>;
		tarball = join(dir, info[0]!.filename);
		files = info[0]!.files;
		prefix = join(dir, 'prefix');
		const install = await run(
			'npm',
			[
				'install',
				'--global',
				'--prefix',
				prefix,
				tarball,
				'--prefer-offline',
				'--no-audit',
				'--no-fund',
				'--loglevel=warn',
			],
			cleanEnv(),
			dir,
		);
		installWarnings = install.stderr;
		if (install.code !== 0) {
			if (UNREACHABLE.test(install.stderr) && process.env.CI !== 'true')
				unreachable = install.stderr.trim().split('\n').slice(0, 3).join(' ');
			else throw new Error(`npm install -g of the tarball failed:\n${install.stderr}`);
		}
		c = await startTestCluster();
		await putDefinition(c, 'desk', '{}');
	}, 600_000);

	afterAll(async () => {
		await c?.close();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	/** The prefix's bin first on the PATH, as after a global install. */
	const installedEnv = () =>
		cleanEnv({ PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}` });

	it('holds only the bundled CLI (its chunks, and the modules it loads on demand), the README and package.json', () => {
		const paths = files.map((f) => f.path).sort();
		expect(paths).toContain('dist/cli.js');
		expect(paths).toContain('package.json');
		for (const p of paths)
			expect(p).toMatch(
				/^(package\.json|README\.md|LICENSE.*|dist\/cli\.js|dist\/chunks\/[\w-]+\.[cm]?js)$/,
			);
		const cli = files.find((f) => f.path === 'dist/cli.js')!;
		expect(cli.mode & 0o111).not.toBe(0);
		expect(readFileSync(join(ROOT, 'dist', 'cli.js'), 'utf8').split('\n')[0]).toBe(
			'#!/usr/bin/env node',
		);
	});

	it('installs without dependencies (the bundle holds them) and without a build step', (t) => {
		skipOffline(t);
		const pkgDir = join(prefix, 'lib', 'node_modules', 'ctpool');
		const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
		expect(manifest.dependencies ?? {}).toEqual({});
		// nothing fetched: no node_modules beside dist/ (no dev dependency, no runtime one)
		expect(readdirSync(pkgDir).sort()).toEqual(['README.md', 'dist', 'package.json']);
		expect(readdirSync(join(prefix, 'bin')).sort()).toEqual(['ctpool', 'kubectl-ctpool']);
		// no install script to run or to warn about (it was `install-scripts ctpool@0.1.0
		// (prepare: npm run build)`; issue 24, finding 9)
		expect(manifest.scripts).toBeUndefined();
		expect(manifest.devDependencies).toBeUndefined();
		expect(installWarnings).not.toMatch(/install-scripts|prepare/);
		// the clone's package.json is put back as it was, and still builds on npm install
		expect(manifestAfter).toBe(manifestBefore);
		expect(JSON.parse(manifestAfter).scripts.prepare).toBe('npm run build');
		expect(existsSync(join(ROOT, '.package.json.prepack'))).toBe(false);
	});

	it('runs ctpool --version, --help and a command that reads the cluster from the prefix', async (t) => {
		skipOffline(t);
		const env = installedEnv();
		const version = await run('ctpool', ['--version'], env, dir);
		expect(version.stderr).toBe('');
		expect(version.stdout).toMatch(/^ctpool \d+\.\d+\.\d+ \(build [\w-]+, node v\d+/);
		const help = await run('ctpool', ['--help'], env, dir);
		expect(help.code).toBe(0);
		expect(help.stdout).toMatch(/^Usage: ctpool \[pool\] \[flags\]/);
		const pools = await run(
			'ctpool',
			['__complete', 'pools', '--kubeconfig', c.sim.kubeconfigPath],
			{ ...env, CORRAL_NAMESPACE: 'corral' },
			dir,
		);
		expect(pools).toEqual({ code: 0, stdout: 'desk\n', stderr: '' });
	});

	it('runs as a kubectl plugin: kubectl ctpool --help', async (t) => {
		// Reason: the global install needs the npm registry; offline there is no plugin to run.
		skipOffline(t);
		if (!kubectlAvailable()) {
			if (process.env.CI === 'true') throw new Error('kubectl is not on the PATH (CI=true)');
			// Reason: kubectl is the plugin's host; without it there is nothing to run through (CI fails above).
			t.skip('kubectl is not on the PATH');
		}
		const env = installedEnv();
		const help = await run('kubectl', ['ctpool', '--help'], env, dir);
		expect(help.stderr).toBe('');
		expect(help.code).toBe(0);
		expect(help.stdout).toMatch(/^Usage: kubectl ctpool \[pool\] \[flags\]/);
		const plugins = await run('kubectl', ['plugin', 'list'], env, dir);
		expect(plugins.stdout).toContain(join(prefix, 'bin', 'kubectl-ctpool'));
	});
});
