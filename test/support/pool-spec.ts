/** The one pool definition builder of the tests. */

import type { PoolSpec } from '../../source/pool/spec.js';

/**
 * A small valid pool definition of three ephemeral members, with `over` on top: small
 * requests, so that pools of 50 members fit the simulated cluster's nodes.
 */
export function poolSpec(over: Partial<PoolSpec> = {}): PoolSpec {
	return {
		image: 'ghcr.io/example/desktop:1',
		cpu: '1',
		memory: '64Mi',
		disk: '1Gi',
		storageClass: '',
		privileged: false,
		init: false,
		mode: 'ephemeral',
		size: 3,
		...over,
	};
}

/** The command-line flags of poolSpec's image and requests (`ctpool apply <pool> ...POOL_FLAGS`). */
export const POOL_FLAGS: readonly string[] = [
	'--image',
	'ghcr.io/example/desktop:1',
	'--cpu',
	'1',
	'--mem',
	'64Mi',
	'--disk',
	'1Gi',
];
