/**
 * The benchmark harness: its parts (token scanning through escape sequences, statistics,
 * screen checks, the table, flags, the audit summary), and a tiny smoke run of the whole
 * `npm run bench` pipeline (every scenario, one round, a few members) built into a temp dir.
 */

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawnMembers, isTableComplete } from '../../bench/console-screen.js';
import type { ResultRow } from '../../bench/context.js';
import { formatSpread, ratio, textTable } from '../../bench/report.js';
import { parseBenchArgs } from '../../bench/run.js';
import { isPoolsTableComplete, rowsAbove } from '../../bench/scenarios/scale.js';
import { activitySince } from '../../bench/sim-control.js';
import { percentile, spread } from '../../bench/stats.js';
import { TokenScanner } from '../../bench/token-scanner.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { startTestSim } from '../support/sim.js';

describe('TokenScanner', () => {
	it('finds a token split across chunks and through colour and cursor sequences', () => {
		const s = new TokenScanner(/tq1x\d{6}/g, 10);
		s.feed('\u001b[5;1Hdesk-1  Ready  tq1x00', 100);
		s.feed('0042\u001b[0m\u001b[K', 105);
		s.feed('\u001b[6;1H\u001b[1mtq1x\u001b[22m000043', 110);
		expect(s.seen.get('tq1x000042')).toBe(105);
		// a colour change inside a token is stripped: the terminal shows one word
		expect(s.seen.has('tq1x000043')).toBe(true);
		expect(s.seen.size).toBe(2);
	});

	it('keeps the first time a token appeared', () => {
		const s = new TokenScanner(/tq2x\d{6}/g, 10);
		s.feed('tq2x000001', 1);
		s.feed(' tq2x000001', 2);
		expect(s.seen.get('tq2x000001')).toBe(1);
	});

	it('skips OSC sequences (window titles) without finding tokens in them', () => {
		const s = new TokenScanner(/tq3x\d{6}/g, 10);
		s.feed('\u001b]0;tq3x000001\u0007visible tq3x000002', 5);
		expect([...s.seen.keys()]).toEqual(['tq3x000002']);
	});
});

describe('statistics', () => {
	it('takes nearest-rank percentiles', () => {
		const v = Array.from({ length: 100 }, (_, i) => i + 1);
		expect(percentile(v, 50)).toBe(50);
		expect(percentile(v, 99)).toBe(99);
		expect(percentile(v, 100)).toBe(100);
		expect(percentile([], 50)).toBeNaN();
	});

	it('gives median, min and max over rounds, leaving out rounds without a figure', () => {
		expect(spread([3, 1, 2])).toMatchObject({ median: 2, min: 1, max: 3 });
		expect(spread([4, 1, Number.NaN, 2])).toMatchObject({ median: 2, min: 1, max: 4 });
		expect(spread([Number.NaN]).median).toBeNaN();
	});
});

describe('console screen checks', () => {
	const screen = (counts: string, live = true) => [
		`ctpool  pool desk · ns corral · ctx sim  ${live ? '● live' : '◌ connecting 1s'}`,
		'image x · size 3',
		`desired 3 ${counts} claimed 0 free 3 unschedulable 0 drifted 0`,
		'NAME    STATE    HOLDER',
		'desk-1  Ready    -',
		'desk-2  Ready    -',
		'desk-3  Starting -',
		'',
		'⏎ open',
	];

	it('reads the member rows under the column titles', () => {
		expect(drawnMembers(screen('observed 3 ready 2'), 'desk')).toEqual([
			'desk-1',
			'desk-2',
			'desk-3',
		]);
	});

	it('calls the table complete only when live with the expected counts and rows', () => {
		const want = { pool: 'desk', observed: 3, ready: 2, rows: 3 };
		expect(isTableComplete(screen('observed 3 ready 2'), want)).toBe(true);
		expect(isTableComplete(screen('observed 3 ready 2', false), want)).toBe(false);
		expect(isTableComplete(screen('observed 3 ready 1'), want)).toBe(false);
		expect(isTableComplete(screen('observed 3 ready 2'), { ...want, rows: 4 })).toBe(false);
	});
});

describe('pools screen check (scale scenario)', () => {
	const screen = (live: boolean, readyB: number) => [
		`ctpool  pools (2) · ns scale-1 · ctx sim  ${live ? '● live' : '◌ connecting 1s'}`,
		'POOL      IMAGE        SIZE/OBS  READY  CLAIMED  FREE',
		'fleet-01  ghcr.io/x:1   50/50       50        5    45',
		`fleet-02  ghcr.io/x:1   50/50    ${String(readyB).padStart(5)}        0    50`,
	];

	it('wants every pool with all its members observed and the Ready count the cluster has', () => {
		const ready = new Map([
			['fleet-01', 50],
			['fleet-02', 48],
		]);
		expect(isPoolsTableComplete(screen(true, 48), ready, 50)).toBe(true);
		// a pool still short of the cluster's figure, a screen not live, a pool missing
		expect(isPoolsTableComplete(screen(true, 47), ready, 50)).toBe(false);
		expect(isPoolsTableComplete(screen(false, 48), ready, 50)).toBe(false);
		expect(isPoolsTableComplete(screen(true, 48), new Map([...ready, ['fleet-03', 50]]), 50)).toBe(
			false,
		);
	});

	it('counts the pool rows above a pool (the keys that select it)', () => {
		expect(rowsAbove(screen(true, 50), 'fleet-01')).toBe(0);
		expect(rowsAbove(screen(true, 50), 'fleet-02')).toBe(1);
	});
});

describe('report', () => {
	const row: ResultRow = {
		scenario: 'startup',
		metric: 'first complete table',
		unit: 'ms',
		ctpool: spread([300, 280, 320]),
		baseline: spread([200, 190, 210]),
		baselineName: 'kubectl get pods -l',
		target: { text: '<= 1.5 x kubectl', met: true },
	};

	it('formats spreads and ratios', () => {
		expect(formatSpread(row.ctpool)).toBe('300 [280-320]');
		expect(formatSpread(spread([12.34]))).toBe('12.3');
		expect(ratio(row)).toBe('1.50x');
		expect(ratio({ ...row, baseline: undefined })).toBe('');
	});

	it('prints one aligned line per row under the headers', () => {
		const lines = textTable([row]).split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[1]).toMatch(
			/^startup\s+first complete table \(ms\)\s+300 \[280-320\]\s+200 \[190-210\]/,
		);
		expect(lines[1]).toMatch(/1\.50x\s+<= 1\.5 x kubectl\s+yes$/);
	});
});

describe('flags', () => {
	it('defaults to every scenario in a fixed order', () => {
		const a = parseBenchArgs([]);
		expect(a.opts.scenarios).toEqual([
			'startup',
			'live',
			'reconcile',
			'claims',
			'scale',
			'failover',
		]);
		expect(a.opts).toMatchObject({
			members: 2000,
			rounds: 3,
			startupRounds: 7,
			churn: 200,
			seconds: 20,
			scalePools: 20,
			scaleMembers: 500,
			hog: false,
		});
		// the start-up rounds follow --rounds unless said
		expect(parseBenchArgs(['--rounds', '1']).opts.startupRounds).toBe(1);
		expect(parseBenchArgs(['--rounds', '1', '--startup-rounds', '4']).opts.startupRounds).toBe(4);
		expect(parseBenchArgs(['--scenario', 'claims,live']).opts.scenarios).toEqual([
			'live',
			'claims',
		]);
	});

	it('refuses unknown scenarios, bad numbers and unknown flags', () => {
		expect(() => parseBenchArgs(['--scenario', 'nope'])).toThrow(/unknown scenario nope/);
		expect(() => parseBenchArgs(['--rounds', '0'])).toThrow(/--rounds/);
		expect(() => parseBenchArgs(['--releases', '9', '--claims', '3'])).toThrow(/--releases/);
		expect(() => parseBenchArgs(['--bogus'])).toThrow();
		expect(() => parseBenchArgs(['--members', '30'])).toThrow(/--members must exceed --rows/);
		expect(parseBenchArgs(['--members', '30', '--scenario', 'startup']).opts.members).toBe(30);
		expect(() => parseBenchArgs(['--scenario', 'scale', '--scale-members', '20'])).toThrow(
			/--scale-members must exceed --rows/,
		);
		expect(() => parseBenchArgs(['--scenario', 'scale', '--scale-pools', '40'])).toThrow(
			/do not fit the pools screen/,
		);
		expect(parseBenchArgs(['--hog']).opts.hog).toBe(true);
	});
});

describe('audit summary', () => {
	it('counts requests and writes per client after a mark', async () => {
		const sim = await startTestSim();
		try {
			const { cluster } = sim;
			const mark = cluster.audit.mark();
			const headers = {
				Authorization: `Bearer ${cluster.token}`,
				'User-Agent': 'ctpool/0.1.0',
				'Content-Type': 'application/json',
			};
			const base = `${cluster.url}/api/v1/namespaces/corral/configmaps`;
			await fetch(base, { headers });
			const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
			expect((await fetch(base, { method: 'POST', headers, body })).status).toBe(201);
			expect((await fetch(base, { method: 'POST', headers, body })).status).toBe(409);
			const a = activitySince(cluster, mark).ctpool;
			expect(a).toBeDefined();
			expect(a!.requests).toBe(3);
			expect(a!.byVerb).toMatchObject({ list: 1, create: 2 });
			expect(a!.writes).toBe(1);
			expect(a!.writesByKind).toEqual({ 'create configmaps': 1 });
			expect(a!.unchangedWrites).toBe(1);
		} finally {
			await sim.cleanup();
		}
	});
});

/** The repository root (this file is test/bench/harness.test.ts). */
const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The sources tsconfig.tools.json compiles (source, bench, chaos) and the test helpers the
 * bench imports (test/support), as paths from the repository root.
 */
function toolSources(): string[] {
	return ['source', 'bench', 'chaos', 'test/support'].flatMap((folder) =>
		readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
			.filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
			.map((f) => join(ROOT, folder, f)),
	);
}

describe('smoke run of npm run bench', () => {
	let dir = '';
	beforeAll(async () => {
		// Build the bench into a temp dir that resolves packages from the repository, so the
		// smoke run never writes dist/ or bench/results; it measures the bundle npm test has
		// just built (dist/cli.js: the console's command records are found by the build, which
		// tsc alone does not do).
		requireBuild();
		dir = await mkdtemp(join(tmpdir(), 'ctpool-bench-smoke-'));
		await writeFile(
			join(dir, 'package.json'),
			// npm start: the demo, as the repository's runs it, from the CLI built here
			JSON.stringify({
				name: 'ctpool',
				version: '0.0.0-smoke',
				type: 'module',
				scripts: { start: `node ${JSON.stringify(CLI)} --demo` },
			}),
		);
		await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
		// The JavaScript `tsc -p tsconfig.tools.json` emits, file by file, made by esbuild (the
		// files are isolatedModules, so each compiles alone to the same code; tsc took half a
		// minute of the file's time on the 2-core machine). Type errors are `tsc --noEmit`'s to
		// report (npm test runs it first); the smoke run needs only the JavaScript.
		await build({
			entryPoints: toolSources(),
			outdir: join(dir, 'tools'),
			outbase: ROOT,
			bundle: false,
			format: 'esm',
			platform: 'node',
			target: 'es2023',
			jsx: 'automatic',
			logLevel: 'error',
		});
		if (!existsSync(join(dir, 'tools', 'bench', 'run.js')))
			throw new Error('esbuild emitted no bench');
	}, 180_000);

	afterAll(async () => {
		if (dir) await rm(dir, { recursive: true, force: true });
	});

	it('runs every scenario end to end and writes the results', async () => {
		const out = join(dir, 'results');
		const args = [
			join(dir, 'tools', 'bench', 'run.js'),
			'--rounds',
			'1',
			'--members',
			'60',
			'--seconds',
			'2',
			'--churn',
			'40',
			'--visible',
			'5',
			'--visible-share',
			'0.25',
			'--reconcile-members',
			'4',
			'--claims',
			'4',
			'--releases',
			'1',
			'--scale-pools',
			'3',
			'--scale-members',
			'45',
			'--time-scale',
			'0.1',
			'--cli',
			CLI,
			'--out-dir',
			out,
		];
		const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
			(done) => {
				const child = spawn(process.execPath, args, {
					cwd: dir,
					stdio: ['ignore', 'pipe', 'pipe'],
				});
				let stdout = '';
				let stderr = '';
				child.stdout.on('data', (d: Buffer) => {
					stdout += d.toString();
				});
				child.stderr.on('data', (d: Buffer) => {
					stderr += d.toString();
				});
				child.on('close', (code) => done({ code, stdout, stderr }));
			},
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
		expect(existsSync(join(out, 'latest.json'))).toBe(true);
		const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8'));
		for (const s of ['startup', 'live', 'reconcile', 'claims', 'scale']) {
			expect(results.scenarios[s], s).toBeDefined();
			expect(results.scenarios[s].error, s).toBeUndefined();
		}
		const row = (metric: RegExp) =>
			(results.rows as ResultRow[]).find((r) => metric.test(r.metric));
		expect(row(/^first complete table/)?.ctpool.median).toBeGreaterThan(0);
		expect(row(/^tokens never shown/)?.ctpool.median).toBe(0);
		expect(row(/^no-op reconcile writes/)?.ctpool.median).toBe(0);
		expect(row(/^distinct members of 4 claims/)?.ctpool.median).toBe(4);
		expect(row(/^complete pools table \(3 pools, 135 members\)/)?.ctpool.median).toBeGreaterThan(0);
		expect(row(/^CPU share against the bare client/)?.baseline?.median).toBeGreaterThanOrEqual(0);
		if (kubectlAvailable()) {
			expect(row(/^latency p99/)?.baseline?.median).toBeGreaterThanOrEqual(0);
			expect(row(/^from empty/)?.baseline?.median).toBeGreaterThan(0);
			const startup = (results.rows as ResultRow[]).filter((r) =>
				r.metric.startsWith('first complete table'),
			);
			expect(startup.map((r) => r.baselineName)).toEqual([
				'kubectl get pods -l',
				'kubectl get pods,pvc,leases -l',
			]);
		}
		expect(run.stdout).toMatch(/targets met/);
	}, 180_000);
});
