/** The log endpoint's choices and errors, and the bound on each container's log. */

import { describe, expect, it } from 'vitest';
import { ContainerLogs } from '../../source/sim/container-logs.js';
import { logContainerId, logTimestamp, podLogQuery } from '../../source/sim/pod-log.js';
import type { SimObject } from '../../source/sim/store-api.js';

function pod(containerStatus: Record<string, unknown>, nodeName = 'node-a'): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name: 'x', namespace: 'corral' },
		spec: { nodeName, containers: [{ name: 'ct' }] },
		status: { containerStatuses: [{ name: 'ct', ...containerStatus }] },
	};
}

const q = (s = '') => podLogQuery(pod({}), new URLSearchParams(s));

describe('pods/log', () => {
	it('words the kubelet errors as a real node does', () => {
		const cases: Array<[Record<string, unknown>, string, string]> = [
			[
				{ state: { waiting: { reason: 'ImagePullBackOff' } } },
				'',
				'container "ct" in pod "x" is waiting to start: trying and failing to pull image',
			],
			[
				{ state: { waiting: { reason: 'ErrImagePull' } } },
				'',
				`container "ct" in pod "x" is waiting to start: image can't be pulled`,
			],
			[
				{ state: { waiting: { reason: 'ContainerCreating' } } },
				'',
				'container "ct" in pod "x" is waiting to start: ContainerCreating',
			],
			[
				{ state: { running: {} }, containerID: 'c1' },
				'previous=true',
				'previous terminated container "ct" in pod "x" not found',
			],
		];
		for (const [status, query, message] of cases) {
			const p = pod(status);
			expect(() => logContainerId(p, podLogQuery(p, new URLSearchParams(query)))).toThrow(message);
		}
	});

	it('reads the last run of a crash-looping container, with or without --previous', () => {
		const p = pod({
			containerID: 'c2',
			state: { waiting: { reason: 'CrashLoopBackOff' } },
			lastState: { terminated: { containerID: 'c1' } },
		});
		expect(logContainerId(p, podLogQuery(p, new URLSearchParams()))).toBe('c1');
		expect(logContainerId(p, podLogQuery(p, new URLSearchParams('previous=True')))).toBe('c1');
		expect(logContainerId(pod({}, ''), q())).toBeUndefined();
	});

	it('checks the options as ValidatePodLogOptions does', () => {
		expect(() => q('container=nope')).toThrow('container nope is not valid for pod x');
		expect(() => q('tailLines=-1')).toThrow(
			'PodLogOptions "x" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
		);
		expect(() => q('sinceSeconds=0')).toThrow(
			'sinceSeconds: Invalid value: 0: must be greater than 0',
		);
		expect(() => q('sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z')).toThrow(
			'at most one of `sinceTime` or `sinceSeconds` may be specified',
		);
		expect(() => q('tailLines=ten')).toThrow('strconv.ParseInt: parsing "ten": invalid syntax');
		expect(q('follow=T&timestamps=1')).toMatchObject({ follow: true, timestamps: true });
	});

	it('writes timestamps with nine fractional digits', () => {
		expect(logTimestamp(Date.UTC(2026, 10, 30, 22, 0, 0, 123))).toBe(
			'2026-11-30T22:00:00.123000000Z',
		);
	});

	it('keeps each container log within its bound and ends its followers', () => {
		const logs = new ContainerLogs({ maxLines: 3, maxBytes: 1000 });
		logs.open('c');
		const seen: string[] = [];
		let ended = false;
		logs.follow('c', { line: (l) => seen.push(l.text), end: () => (ended = true) });
		for (let i = 0; i < 10; i++) logs.write('c', `line ${i}`);
		expect(logs.lines('c')?.map((l) => l.text)).toEqual(['line 7', 'line 8', 'line 9']);
		expect(seen).toHaveLength(10);
		const bytes = new ContainerLogs({ maxLines: 100, maxBytes: 20 });
		bytes.open('b');
		for (let i = 0; i < 10; i++) bytes.write('b', `line ${i}`);
		expect(bytes.lines('b')?.map((l) => l.text)).toEqual(['line 8', 'line 9']);
		logs.drop('c');
		expect(ended).toBe(true);
		expect(logs.size()).toBe(0);
	});
});
