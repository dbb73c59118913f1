/** Suggested commands as printed (issue 24, finding 5): -n unless the default namespace, --context when given. */

import { describe, expect, it } from 'vitest';
import { ctpoolCommand, kubectlCommand } from '../../source/pool/command-hint.js';

describe('suggested commands', () => {
	it('ctpool: -n only outside the default namespace, --context when one was given', () => {
		const scope = { defaultNamespace: 'corral-vms' };
		expect(ctpoolCommand('status desk', 'corral-vms', scope)).toBe('ctpool status desk');
		expect(ctpoolCommand('status desk', 'team-b', scope)).toBe('ctpool status desk -n team-b');
		expect(ctpoolCommand('status desk', 'team-b', { ...scope, context: 'prod' })).toBe(
			'ctpool status desk -n team-b --context prod',
		);
		// not knowing the default (a reconciler, a recorded status): -n always
		expect(ctpoolCommand('status desk', 'corral-vms')).toBe('ctpool status desk -n corral-vms');
	});

	it('kubectl: -n always (its default is the kubeconfig context’s namespace, not Corral’s)', () => {
		expect(
			kubectlCommand('describe pvc desk-1-data', 'corral-vms', { defaultNamespace: 'corral-vms' }),
		).toBe('kubectl describe pvc desk-1-data -n corral-vms');
		expect(kubectlCommand('delete pod desk-1', 'team-b', { context: 'prod' })).toBe(
			'kubectl delete pod desk-1 -n team-b --context prod',
		);
	});
});
