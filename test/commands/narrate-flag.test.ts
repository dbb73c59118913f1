/** `--narrate` goes with `--demo` (passed to the demo as its narrate option); alone it is a usage error naming the fix. */

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ctpool } from './capture.js';

const runDemo = vi.fn(async (_opts: Record<string, unknown>) => 0);
vi.mock('../../source/demo/run.js', () => ({ runDemo }));

beforeEach(() => runDemo.mockClear());

describe('--narrate', () => {
	it('without --demo is a usage error naming the fix', async () => {
		const r = await ctpool(['--narrate'], { tty: true });
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('--narrate goes with --demo');
		expect(r.stderr).toContain('ctpool --demo --narrate');
		expect(runDemo).not.toHaveBeenCalled();
	});

	it('with --demo reaches the demo as its narrate option, before or after the other flags', async () => {
		expect((await ctpool(['--demo', '--narrate'], { tty: true })).code).toBe(0);
		expect((await ctpool(['--narrate', '--size', '5', '--demo'], { tty: true })).code).toBe(0);
		expect(runDemo.mock.calls.map(([o]) => [o.narrate, o.size])).toEqual([
			[true, undefined],
			[true, 5],
		]);
	});

	it('the demo without it is not narrated', async () => {
		expect((await ctpool(['--demo'], { tty: true })).code).toBe(0);
		expect(runDemo.mock.calls[0]?.[0].narrate).toBeUndefined();
	});

	it('is in the help', async () => {
		const r = await ctpool(['--help']);
		expect(r.stdout).toMatch(
			/--narrate\s+with --demo: play a release, a drift, a scale-down and a takeover/,
		);
	});
});
