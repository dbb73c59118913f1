import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtOrSay, CLI } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { kubectlAvailable } from '../support/kubectl.js';

const built = builtOrSay('the built-binary tests');

interface Run {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

function run(
	args: string[],
	opts: {
		onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
		/** Another program than `node dist/cli.js` (kubectl), and what to add to its environment. */
		program?: string;
		env?: Record<string, string>;
	} = {},
): Promise<Run> {
	return new Promise((resolve, reject) => {
		const [file, argv] = opts.program ? [opts.program, args] : [process.execPath, [CLI, ...args]];
		const child = spawn(file, argv, {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...opts.env },
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on('data', (d: Buffer) => {
			stderr += d.toString();
			opts.onStderr?.(stderr, child);
		});
		child.on('error', reject);
		child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
	});
}

// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
// only when the file is run alone before `npm run build`.
describe.skipIf(!built)('the built ctpool binary', () => {
	let c: TestCluster;
	beforeAll(async () => {
		c = await startTestCluster();
	});
	afterAll(() => c?.close());

	it('prints its version and build and exits 0', async () => {
		const r = await run(['--version']);
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(
			/^ctpool \d+\.\d+\.\d+ \(build ([0-9a-f]{7,}(-dirty)?|dev), node v\d+\.\d+\.\d+\)\n$/,
		);
	});

	it('turns an unknown flag into a clear message and exit 2, not a stack trace', async () => {
		const r = await run(['apply', 'desk', '--image', 'ghcr.io/example/desktop:1', '--bogus']);
		expect(r.code).toBe(2);
		expect(r.stderr).toBe(
			'ctpool: unknown flag --bogus for ctpool apply; see ctpool apply --help\n',
		);
		expect(r.stdout).toBe('');
	});

	it('applies and shows a pool through a kubeconfig, and reconcile --watch exits 0 on Ctrl-C', async () => {
		const kc = ['--kubeconfig', c.sim.kubeconfigPath];
		const apply = await run([
			'apply',
			'bin',
			'--image',
			'ghcr.io/example/desktop:1',
			'--size',
			'2',
			'--cpu',
			'1',
			'--mem',
			'64Mi',
			...kc,
		]);
		expect(apply.stderr).toBe('');
		expect(apply.code).toBe(0);
		expect(apply.stdout).toContain('bin-2 created');
		const status = await run(['status', 'bin', '-o', 'json', ...kc]);
		expect(status.code).toBe(0);
		expect(JSON.parse(status.stdout).desired).toBe(2);

		// Ctrl-C once watch mode says it is running.
		let interrupted = false;
		const r = await run(['reconcile', 'bin', '--watch', ...kc], {
			onStderr: (text, child) => {
				if (!interrupted && text.includes('Ctrl-C stops')) {
					interrupted = true;
					child.kill('SIGINT');
				}
			},
		});
		expect(interrupted).toBe(true);
		expect(r.signal).toBeNull();
		expect(r.code).toBe(0);
	});

	it('runs as kubectl ctpool with the global flags before the command (issue 24, finding 4)', async (t) => {
		if (!kubectlAvailable()) {
			if (process.env.CI === 'true') throw new Error('kubectl is not on the PATH (CI=true)');
			// Reason: kubectl is the plugin's host; without it there is nothing to run through (CI fails above).
			t.skip('kubectl is not on the PATH');
		}
		const bin = mkdtempSync(join(tmpdir(), 'ctpool-plugin-'));
		try {
			symlinkSync(CLI, join(bin, 'kubectl-ctpool'));
			const env = { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
			const kubectl = (args: string[]) => run(['ctpool', ...args], { program: 'kubectl', env });
			const kc = ['--kubeconfig', c.sim.kubeconfigPath];
			const apply = await run([
				'apply',
				'plug',
				'--image',
				'ghcr.io/example/desktop:1',
				'--size',
				'1',
				'-n',
				'corral',
				...kc,
			]);
			expect(apply.code).toBe(0);
			const status = await kubectl(['-n', 'corral', ...kc, 'status', '-o', 'json']);
			expect(status.stderr).toBe('');
			expect(status.code).toBe(0);
			expect(JSON.parse(status.stdout).items.map((i: { pool: string }) => i.pool)).toContain(
				'plug',
			);
			const typo = await kubectl(['-n', 'corral', ...kc, 'stauts']);
			expect(typo.code).toBe(1);
			expect(typo.stderr).toContain('unknown command "stauts"; did you mean "status"?');
			expect(typo.stderr).toMatch(/the pools there are [a-z, ]*plug/);
		} finally {
			rmSync(bin, { recursive: true, force: true });
		}
	});
});
