/**
 * The rights ctpool's operations need, as data shared by the console's key check
 * (tui/commands/access.ts) and the commands' up-front check (commands/access-check.ts): the needs
 * whose denial makes an operation fail (test/safety/least-privilege.test.ts).
 */

/** One right: a verb on a resource (and its API group, or a subresource such as exec). */
export interface OperationNeed {
	verb: string;
	resource: string;
	group?: string;
	subresource?: string;
}

/** The Lease resource of coordination.k8s.io. */
export const LEASES = { resource: 'leases', group: 'coordination.k8s.io' } as const;

/** Reading a pool: its definition, members and their Leases. */
export const READ_NEEDS: readonly OperationNeed[] = [
	{ verb: 'get', resource: 'configmaps' },
	{ verb: 'list', resource: 'pods' },
	{ verb: 'list', resource: 'persistentvolumeclaims' },
	{ verb: 'list', ...LEASES },
];

/** A release: the claim handed to the reconciler, the member destroyed and made again, the Lease deleted. */
export const RELEASE_NEEDS: readonly OperationNeed[] = [
	{ verb: 'get', resource: 'configmaps' },
	{ verb: 'get', ...LEASES },
	{ verb: 'update', ...LEASES },
	{ verb: 'delete', ...LEASES },
	{ verb: 'get', resource: 'pods' },
	{ verb: 'get', resource: 'persistentvolumeclaims' },
	{ verb: 'delete', resource: 'pods' },
	{ verb: 'delete', resource: 'persistentvolumeclaims' },
	{ verb: 'create', resource: 'persistentvolumeclaims' },
	{ verb: 'create', resource: 'pods' },
];

/** Maintenance on or off: only the pool's PVC is marked, read (and its labels checked) first. */
export const MAINTENANCE_NEEDS: readonly OperationNeed[] = [
	{ verb: 'get', resource: 'configmaps' },
	{ verb: 'get', resource: 'persistentvolumeclaims' },
	{ verb: 'patch', resource: 'persistentvolumeclaims' },
];
