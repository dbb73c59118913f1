/**
 * Commands refused up front: before a command changes anything, the rights it surely needs
 * are asked of the cluster (one SelfSubjectRulesReview, SelfSubjectAccessReviews for the
 * rest), and a missing one ends it with exit 1, naming the right and the smallest tier of
 * `ctpool rbac` that has it. Only rights every run of the command uses are asked (those whose
 * denial makes it fail, test/safety/least-privilege.test.ts); a right a run may not need
 * (a console Service's delete, the status a reconcile records) is left to the cluster.
 */

import type { AccessNeed } from '../kube/access-review.js';
import type { Kube } from '../kube/config.js';
import { PoolError } from '../pool/errors.js';
import {
	LEASES,
	MAINTENANCE_NEEDS,
	READ_NEEDS as READS,
	RELEASE_NEEDS,
} from '../pool/operation-needs.js';

/** A reconcile works under Leases: taken for a step, deleted after it. */
const RECONCILE: readonly AccessNeed[] = [
	...READS,
	{ verb: 'create', ...LEASES },
	{ verb: 'delete', ...LEASES },
];

/** The commands checked up front. */
export type CheckedCommand = 'claim' | 'release' | 'maintenance' | 'delete' | 'reconcile' | 'watch';

/** The rights each command surely needs, as data. */
export const UP_FRONT_NEEDS: Record<CheckedCommand, readonly AccessNeed[]> = {
	claim: [...READS, { verb: 'create', ...LEASES }],
	release: RELEASE_NEEDS,
	maintenance: MAINTENANCE_NEEDS,
	// size 0 under the Leases, every member deleted, then the definition
	delete: [
		...RECONCILE,
		{ verb: 'patch', resource: 'configmaps' },
		{ verb: 'get', resource: 'pods' },
		{ verb: 'get', resource: 'persistentvolumeclaims' },
		{ verb: 'delete', resource: 'pods' },
		{ verb: 'delete', resource: 'persistentvolumeclaims' },
		{ verb: 'delete', resource: 'configmaps' },
	],
	reconcile: RECONCILE,
	watch: [
		...RECONCILE,
		{ verb: 'list', resource: 'configmaps' },
		{ verb: 'watch', resource: 'configmaps' },
		{ verb: 'watch', resource: 'pods' },
		{ verb: 'watch', resource: 'persistentvolumeclaims' },
		{ verb: 'watch', ...LEASES },
	],
};

/**
 * Refuses the command (a PoolError, exit 1) when the identity lacks a right it surely needs
 * in the namespace; the message names the first such right and the tier that has it.
 */
export async function refuseUnlessAllowed(
	kube: Kube,
	namespace: string,
	command: CheckedCommand,
): Promise<void> {
	const [{ lacking }, { forbiddenText }] = await Promise.all([
		import('../kube/access-review.js'),
		import('../kube/errors.js'),
	]);
	const missing = await lacking(kube, namespace, UP_FRONT_NEEDS[command]);
	const first = missing[0];
	if (!first) return;
	const resource = `${first.resource}${first.subresource ? `/${first.subresource}` : ''}`;
	const more = missing.length > 1 ? ` (and ${missing.length - 1} more right(s))` : '';
	throw new PoolError(
		'failed',
		`${command === 'watch' ? 'reconcile --watch' : command} refused before any change: ${forbiddenText({ verb: first.verb, resource, namespace })}${more}`,
	);
}
