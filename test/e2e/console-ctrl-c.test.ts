/**
 * Issue 22: Ctrl-C always ends the console and gives the terminal back, whatever is running.
 * The built binary runs in a pseudo-terminal under a shell that, once ctpool has ended, asks
 * the terminal for its mode (`stty -a`): canonical input and echo again, not raw. Busy with:
 * a costly filter typed (nested quantifiers against every holder), a container log streaming
 * thousands of lines, and a request the API server never answers (Ctrl-C, then Ctrl-C again
 * to abandon it).
 */

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apply, claim, createEngineContext, readPool } from '../../source/engine/index.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { poolSpec } from '../support/pool-spec.js';
import { startTerminal, type TestTerminal, terminalEnv } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';
import { consoleTests, ROOT } from './ctpool-console.js';

const SLOW = 45_000;
const c = consoleTests({ config: { timeScale: 0.2 } });
let pool = 0;
const CTRL_C = '\u0003';
const open: TestTerminal[] = [];

/** The marker the shell prints once ctpool has ended, before the terminal's mode. */
const ENDED = 'CTPOOL-ENDED';

/**
 * A fresh ready pool (a long holder on its first member), and ctpool open on it in a terminal
 * under a shell that prints ctpool's exit code and the terminal's mode once it ends.
 */
async function openOn(): Promise<{ name: string; term: TestTerminal }> {
	requireBuild();
	pool++;
	const name = `k${pool}`;
	const ctx = createEngineContext(c.kube, { actor: 'test' });
	await apply(ctx, name, poolSpec({ size: 2 }));
	await waitFor(async () => (await readPool(ctx, name)).members.every((m) => m.state === 'Ready'), {
		what: `pool ${name} ready`,
		timeoutMs: SLOW,
	});
	const holder = `${'a'.repeat(200)}@example.com`;
	await claim(createEngineContext(c.kube, { actor: 'test' }), name, holder);
	const command = [
		JSON.stringify(process.execPath),
		JSON.stringify(CLI),
		name,
		'--kubeconfig',
		JSON.stringify(c.sim.kubeconfigPath),
	].join(' ');
	const term = startTerminal(
		'/bin/sh',
		['-c', `${command}; echo "${ENDED} $?"; stty -a; sleep 30`],
		{
			columns: 100,
			rows: 30,
			cwd: ROOT,
			env: terminalEnv({ KUBECACHEDIR: join(c.sim.dir, 'kube-cache') }),
		},
	);
	open.push(term);
	await term.waitFor(new RegExp(`${name}-2\\s+Ready`), SLOW);
	await term.waitFor('● live', SLOW);
	return { name, term };
}

/** Waits until ctpool has ended; its exit code, and the terminal's mode after it. */
async function ended(term: TestTerminal): Promise<{ code: number; mode: string }> {
	await waitFor(() => term.output().includes(ENDED) && /\bicanon\b/.test(after(term)), {
		what: 'ctpool to end and the shell to print the terminal mode',
		timeoutMs: SLOW,
	});
	// the raw output is read as it comes; the screen (its alternate screen) once parsed
	await term.settled();
	const text = after(term);
	return { code: Number(/^ (\d+)/.exec(text)?.[1] ?? -1), mode: text };
}

function after(term: TestTerminal): string {
	const out = term.output();
	return out.slice(out.lastIndexOf(ENDED) + ENDED.length);
}

/** The terminal is back as the shell left it: canonical input, echo, the main screen. */
function expectRestored(term: TestTerminal, mode: string): void {
	expect(mode).toMatch(/(^|\s)icanon(\s|$)/);
	expect(mode).toMatch(/(^|\s)echo(\s|$)/);
	expect(mode).not.toMatch(/(^|\s)-icanon(\s|$)/);
	expect(term.altScreen()).toBe(false);
}

describe('Ctrl-C ends the console whatever it is doing', { timeout: 180_000 }, () => {
	// the shell waits a little after printing the mode: end it with the test
	afterEach(() => {
		for (const t of open.splice(0)) t.dispose();
	});

	it('while a costly filter is typed and applied', async () => {
		const { term } = await openOn();
		// nested quantifiers against a long holder (a backtracking engine would stall here)
		term.write('/(a+)+b');
		await term.waitFor('(a+)+b', SLOW);
		term.write('\r');
		term.write('/(((a*)*)*)*$');
		term.write(CTRL_C);
		const { code, mode } = await ended(term);
		expect(code).toBe(0);
		expectRestored(term, mode);
	});

	it('while a container log streams thousands of lines', async () => {
		const { name, term } = await openOn();
		term.write('\u001b[B'); // the second member: no long holder in the way
		term.write('L');
		await term.waitFor(new RegExp(`log ${name}-2 · following`), SLOW);
		const pod = (await c.cluster.api.get('pods', `${name}-2`)) as {
			status?: { containerStatuses?: Array<{ containerID?: string }> };
		};
		const id = pod.status?.containerStatuses?.[0]?.containerID ?? '';
		expect(id).not.toBe('');
		let n = 0;
		const flood = setInterval(() => {
			for (let i = 0; i < 500; i++)
				c.sim.cluster.controllers.logs.write(id, `line ${n++} ${'x'.repeat(200)}`);
		}, 5);
		try {
			await term.waitFor(/line \d{4,} x/, SLOW);
			term.write(CTRL_C);
			const { code, mode } = await ended(term);
			expect(code).toBe(0);
			expectRestored(term, mode);
		} finally {
			clearInterval(flood);
		}
	});

	it('while a request hangs: the first Ctrl-C says it finishes it first, the second abandons it', async () => {
		const { name, term } = await openOn();
		// from now on the API server answers nothing for ten minutes
		c.sim.cluster.faults.set({ latencyMs: 600_000 });
		try {
			term.write('r');
			await term.waitFor(`reconciling ${name}`, SLOW);
			term.write(CTRL_C);
			await term.waitFor(`finishing reconciling ${name} before quitting`, SLOW);
			term.write(CTRL_C);
			const { code, mode } = await ended(term);
			expect(code).toBe(0);
			expectRestored(term, mode);
			expect(term.output()).toContain('abandoning');
		} finally {
			c.sim.cluster.faults.set({ latencyMs: 0 });
		}
	});
});
