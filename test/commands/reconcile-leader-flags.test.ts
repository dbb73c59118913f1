/** reconcile --leader-elect's flags: bad values are usage errors naming the fix, before any cluster is asked. */

import { describe, expect, it } from 'vitest';
import { ctpool } from './capture.js';

/** Runs ctpool with a kubeconfig that cannot be read: a usage error must come before it is. */
function run(argv: string[]) {
	return ctpool([...argv, '--kubeconfig', '/nonexistent/kubeconfig'], { env: { NO_COLOR: '1' } });
}

describe('reconcile --leader-elect flags', () => {
	it.each([
		[['reconcile', 'p', '--leader-elect'], /--leader-elect only goes with --watch/],
		[
			['reconcile', 'p', '--watch', '--leader-elect-lease', 'x'],
			/--leader-elect-\* settings only go with --leader-elect/,
		],
		[
			['reconcile', 'p', '--watch', '--leader-elect', '--leader-elect-lease', 'corral-vdi-ct-p-1'],
			/not named like a member's Lease/,
		],
		[
			['reconcile', 'p', '--watch', '--leader-elect', '--leader-elect-lease', 'Bad_Name'],
			/is not a Lease name ctpool may use/,
		],
		[
			['reconcile', 'p', '--watch', '--leader-elect', '--leader-elect-namespace', 'a/b'],
			/is not a namespace name/,
		],
		[
			['reconcile', 'p', '--watch', '--leader-elect', '--leader-elect-renew-deadline', '20s'],
			/needs --leader-elect-lease-duration > --leader-elect-renew-deadline > 1\.2 x --leader-elect-retry-period/,
		],
		[
			['reconcile', 'p', '--watch', '--leader-elect', '--leader-elect-retry-period', 'soon'],
			/--leader-elect-retry-period "soon" is not a duration/,
		],
	])('%j is refused', async (argv, message) => {
		const r = await run(argv);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(message);
		expect(r.stdout).toBe('');
	});

	it('are described in the help', async () => {
		const r = await run(['reconcile', '--help']);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('--leader-elect ');
		expect(r.stdout).toContain('--leader-elect-lease NAME');
	});
});
