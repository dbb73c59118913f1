/**
 * Issue 22, "a controller that outlives bad input": an error nothing handled (a timer's throw,
 * a promise's rejection, a throw in one of ctpool's own handlers) is one line on stderr, never
 * a stack or the bundle's source line. A command then exits 70; `reconcile --watch` goes on
 * reconciling. The errors are planted in the built binary's process by a module preloaded
 * with `node --import`, as any code the process runs could raise them.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDefinition } from '../../source/engine/apply.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const children: ChildProcess[] = [];

beforeAll(async () => {
	requireBuild();
	c = await startTestCluster();
});
afterAll(async () => {
	for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
	await c?.close();
});

/**
 * A preloaded module that, once ctpool's own stdout error handler is there (now, or on
 * SIGUSR2), makes three errors nothing handles: stdout fails with EIO (ctpool's handler
 * rethrows all but EPIPE: a throw in the bundle's code), a timer throws, a promise rejects.
 */
function hook(on: 'start' | 'SIGUSR2'): string {
	const source = `
const fire = () => {
	setTimeout(() => { throw new RangeError('a timer threw'); }, 1);
	setTimeout(() => { Promise.reject(new TypeError('a promise rejected')); }, 2);
	process.stdout.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
};
${
	on === 'start'
		? `const t = setInterval(() => { if (process.stdout.listenerCount('error') > 0) { clearInterval(t); fire(); } }, 1);`
		: `process.on('SIGUSR2', fire);`
}`;
	return `data:text/javascript,${encodeURIComponent(source)}`;
}

/** Runs the built ctpool with the hook preloaded; collects its stderr. */
function start(on: 'start' | 'SIGUSR2', args: string[]) {
	const child = spawn(process.execPath, ['--import', hook(on), CLI, ...args, ...c.kc], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', CORRAL_NAMESPACE: c.ns },
	});
	children.push(child);
	const out = { stderr: '', code: null as number | null };
	child.stdout?.resume();
	child.stderr?.on('data', (d: Buffer) => {
		out.stderr += d.toString();
	});
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => {
			out.code = code;
			resolve(code);
		}),
	);
	return { child, out, exited };
}

/** The lines ctpool told of errors nothing handled. */
function internalLines(stderr: string): string[] {
	return stderr.split('\n').filter((l) => l.startsWith('ctpool: internal error'));
}

/** Checks that no stack, no source text and no file path reached stderr. */
function expectNoTrace(stderr: string): void {
	expect(stderr).not.toMatch(/^\s+at /m);
	expect(stderr).not.toContain('file://');
	expect(stderr).not.toContain('^');
	expect(stderr).not.toMatch(/function|=>/);
}

describe('an error nothing handled', { timeout: 120_000 }, () => {
	it('ends a command with one line and exit 70, without the bundle', async () => {
		await writeDefinition(c.context(), 'una', poolSpec({ size: 1 }));
		const { out, exited } = start('start', ['status', 'una']);
		expect(await exited).toBe(70);
		const [line, ...more] = internalLines(out.stderr);
		expect(more).toEqual([]);
		expect(line).toMatch(
			/^ctpool: internal error \(uncaught exception in [\w.<>]+\), stopping: Error: write EIO$/,
		);
		expectNoTrace(out.stderr);
	});

	it('is one line each in reconcile --watch, which goes on reconciling', async () => {
		await writeDefinition(c.context(), 'unw', poolSpec({ size: 1 }));
		const { child, out, exited } = start('SIGUSR2', ['reconcile', 'unw', '--watch']);
		await waitFor(() => out.stderr.includes('Ctrl-C stops') || undefined, {
			what: 'the watch started',
			timeoutMs: 30_000,
		});
		await waitFor(async () => (await c.api.get('pods', 'unw-1')) !== undefined, 'unw-1 made');
		child.kill('SIGUSR2');
		await waitFor(() => internalLines(out.stderr).length >= 3 || undefined, {
			what: 'three errors told',
			detail: () => out.stderr,
		});
		const told = internalLines(out.stderr).map((l) => l.replace(/ in [\w.<>]+\)/, ')'));
		expect(told).toEqual([
			'ctpool: internal error (uncaught exception), skipped it, still running: Error: write EIO',
			'ctpool: internal error (uncaught exception), skipped it, still running: RangeError: a timer threw',
			'ctpool: internal error (unhandled rejection), skipped it, still running: TypeError: a promise rejected',
		]);
		expectNoTrace(out.stderr);
		// still reconciling: a bigger pool gets its new member
		await writeDefinition(c.context(), 'unw', poolSpec({ size: 2 }));
		await waitFor(async () => (await c.api.get('pods', 'unw-2')) !== undefined, {
			what: 'unw-2 made after the errors',
			timeoutMs: 30_000,
		});
		expect(child.exitCode).toBeNull();
		child.kill('SIGINT');
		expect(await exited).toBe(0);
	});
});
