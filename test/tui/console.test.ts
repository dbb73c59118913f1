import { describe, expect, it } from 'vitest';
import {
	consoleArgs,
	describeConsoleOutcome,
	runKubectlConsole,
} from '../../source/tui/session/console.js';

describe('console command', () => {
	it('execs sh in the member, passing namespace, context and kubeconfig', () => {
		expect(
			consoleArgs({
				member: 'desk-1',
				namespace: 'corral',
				context: 'prod',
				kubeconfig: '/k/config',
				privileged: false,
			}),
		).toEqual([
			'exec',
			'-it',
			'desk-1',
			'-n',
			'corral',
			'-c',
			'ct',
			'--context',
			'prod',
			'--kubeconfig',
			'/k/config',
			'--',
			'sh',
		]);
	});
	it('chroots into the root file system of a privileged member', () => {
		expect(consoleArgs({ member: 'desk-2', namespace: 'ns', privileged: true })).toEqual([
			'exec',
			'-it',
			'desk-2',
			'-n',
			'ns',
			'-c',
			'ct',
			'--',
			'chroot',
			'/corral-rootfs',
			'/bin/sh',
			'-c',
			'exec bash 2>/dev/null || exec sh',
		]);
	});
	it('reports a kubectl that is not installed without throwing', async () => {
		const outcome = await runKubectlConsole(
			{ member: 'desk-1', namespace: 'corral', privileged: false },
			{
				stdin: process.stdin,
				stdout: process.stdout,
				kubectl: 'kubectl-that-does-not-exist-ctpool',
			},
		);
		expect(outcome.code).toBeNull();
		expect(outcome.error).toContain('kubectl is not installed or not on the PATH');
		expect(describeConsoleOutcome('desk-1', outcome)).toEqual({
			ok: false,
			message: expect.stringContaining('console on desk-1 did not open: kubectl is not installed'),
		});
	});
	it('tells a failed kubectl from a shell that exited non-zero', () => {
		expect(
			describeConsoleOutcome('desk-1', {
				code: 1,
				error: null,
				lastError: 'Error from server (NotFound): pods "desk-1" not found',
			}),
		).toEqual({
			ok: false,
			message:
				'console on desk-1 failed (exit 1): Error from server (NotFound): pods "desk-1" not found',
		});
		expect(
			describeConsoleOutcome('desk-1', {
				code: 3,
				error: null,
				lastError: 'command terminated with non-zero exit code: exit status 3',
			}),
		).toEqual({
			ok: true,
			message: 'console on desk-1 closed (exit code 3)',
		});
		expect(describeConsoleOutcome('desk-1', { code: 0, error: null, lastError: '' }).message).toBe(
			'console on desk-1 closed',
		);
	});
});
