/** Fitting a message to a line keeps its cause (issue 24, finding 6). */

import { describe, expect, it } from 'vitest';
import { fitMessage } from '../../source/tui/render/message-fit.js';

const ERROR =
	'list pods in namespace corral-vms: cannot reach the cluster: connection refused (10.96.0.1:6443)';

describe('fitMessage', () => {
	it('leaves a message that fits as it is', () => {
		expect(fitMessage(ERROR, 200)).toBe(ERROR);
	});

	it('drops the address first, then the request text before the cause', () => {
		expect(fitMessage(ERROR, 90)).toBe(
			'list pods in namespace corral-vms: cannot reach the cluster: connection refused',
		);
		expect(fitMessage(ERROR, 60)).toBe('cannot reach the cluster: connection refused');
		expect(fitMessage(ERROR, 30)).toBe('connection refused');
		// a short segment that says what happened stays
		expect(
			fitMessage(
				'console: forbidden: cannot create pods/exec in namespace corral-vms (ask for it)',
				60,
			),
		).toBe('console: forbidden: cannot create pods/exec in namespace co…');
	});

	it('keeps a label and the parts of a line before the error, cut before the cause', () => {
		const line = `stale since 02:14:05 · retry 3 · last error: ${ERROR}`;
		expect(fitMessage(line, 72)).toBe(
			'stale since 02:14:05 · retry 3 · last error: connection refused',
		);
		const cut = fitMessage(line, 40);
		expect(cut.endsWith('last error: connection refused')).toBe(true);
		expect(cut.length).toBeLessThanOrEqual(40);
	});

	it('drops URLs', () => {
		expect(
			fitMessage('GET https://10.0.0.1:6443/api/v1/pods?watch=1: the server is down', 40),
		).toBe('GET: the server is down');
	});

	it('keeps the subject of a message (what failed) and drops the request text and the lead', () => {
		const console =
			'console on desk-1 did not open: kubectl is not installed or not on the PATH (kubectl); install kubectl to open a console';
		expect(
			fitMessage(console, 98).startsWith('console on desk-1 did not open: kubectl is not'),
		).toBe(true);
		expect(
			fitMessage(`reconcile desk: watch pods in namespace x: GET https://h:1/api: ${ERROR}`, 70),
		).toBe('reconcile desk: cannot reach the cluster: connection refused');
	});
});
