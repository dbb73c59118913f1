/** A create sent as a server-side dry run (dryRun=All): every check, nothing stored. */

import { isAlreadyExists } from '../kube/errors.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/**
 * Runs a create given `dryRun: 'All'`. Resolves with 'ok', or 'exists' when an object of that
 * name exists; any other refusal is thrown as a cluster error naming the verb and object.
 */
export async function dryRunCreate(
	ctx: EngineContext,
	what: { resource: string; name: string },
	create: (dryRun: 'All') => Promise<unknown>,
): Promise<'ok' | 'exists'> {
	try {
		await create('All');
		return 'ok';
	} catch (err) {
		if (isAlreadyExists(err)) return 'exists';
		throw clusterError(err, { verb: 'create', namespace: ctx.namespace, ...what });
	}
}
