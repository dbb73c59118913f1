import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConsoleSession } from '../../source/tui/session/run.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';
import { FakeStdin } from './render-console.js';

/** What a terminal saw, in order: raw mode switched, frames written. */
type Seen = { raw: boolean } | { frame: string };

class Stdout extends EventEmitter {
	isTTY = true;
	columns = 100;
	rows = 30;
	constructor(private readonly seen: Seen[]) {
		super();
	}
	write = (chunk: string) => {
		this.seen.push({ frame: String(chunk) });
		return true;
	};
}

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('the console and raw mode', () => {
	it('puts the terminal in raw mode before its first frame, so a key pressed then is not echoed', async () => {
		const seen: Seen[] = [];
		const stdin = new FakeStdin((raw) => seen.push({ raw }));
		const stdout = new Stdout(seen);
		const done = runConsoleSession({
			kube: c.kube,
			stdin: stdin as unknown as NodeJS.ReadStream,
			stdout: stdout as unknown as NodeJS.WriteStream,
		});
		// the first frame: the one that draws the header
		await waitFor(() => seen.some((s) => 'frame' in s && s.frame.includes('ctpool')));
		const firstFrame = seen.findIndex((s) => 'frame' in s && s.frame.includes('ctpool'));
		const raw = seen.findIndex((s) => 'raw' in s && s.raw);
		expect(raw).toBeGreaterThanOrEqual(0);
		expect(raw).toBeLessThan(firstFrame);
		stdin.write('q');
		expect(await done).toBe(0);
		// and the terminal is given back in its own mode
		expect(seen.filter((s) => 'raw' in s).at(-1)).toEqual({ raw: false });
	});
});
