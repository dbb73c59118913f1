/** maintenance: mark a member (never free, never replaced or deleted by reconcile) or unmark it. */

import { PoolError } from '../pool/errors.js';
import { MAINTENANCE_ANNOTATION, pvcName } from '../pool/names.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';
import { readDefinition } from './definition.js';
import { flushKubeEvents, recordAudit } from './kube-event.js';
import { annotateOwnedPvc } from './member-ops.js';
import { checkMember } from './release.js';

/**
 * Sets (on) or removes (off) the maintenance annotation on the member's PVC; its value is the
 * reason. A PVC of that name that is not the pool's is left alone (ForeignObjectError). Throws PoolError('not-found') when the member has no PVC to mark; "off" without a
 * PVC is already true, and succeeds.
 */
export async function setMaintenance(
	ctx: EngineContext,
	pool: string,
	member: string,
	on: boolean,
	reason?: string,
): Promise<void> {
	await changingPool(ctx, pool, () => markMaintenance(ctx, pool, member, on, reason));
}

async function markMaintenance(
	ctx: EngineContext,
	pool: string,
	member: string,
	on: boolean,
	reason: string | undefined,
): Promise<void> {
	checkPoolName(pool);
	checkMember(pool, member);
	await readDefinition(ctx, pool, { allowPersistent: true });
	const name = pvcName(member);
	let pvc: Awaited<ReturnType<typeof annotateOwnedPvc>>;
	try {
		pvc = await annotateOwnedPvc(ctx, pool, member, {
			[MAINTENANCE_ANNOTATION]: on ? (reason ?? '') : null,
		});
	} catch (err) {
		if (err instanceof PoolError) throw err;
		throw clusterError(err, {
			verb: 'patch',
			resource: 'persistentvolumeclaims',
			namespace: ctx.namespace,
			name,
		});
	}
	if (pvc === null && !on) {
		// Nothing is in maintenance without a PVC: "off" already holds.
		const message = `${member} has no PVC ${name}, so it is not in maintenance; nothing to do`;
		emitEvent(ctx, { pool, member, action: 'maintenance', outcome: 'info', message });
		return;
	}
	if (pvc === null)
		throw new PoolError(
			'not-found',
			`${member} has no PVC ${name} in namespace ${ctx.namespace}: the member does not exist now, so there is nothing to mark`,
		);
	const message = on
		? `${member} put in maintenance by ${ctx.actor}${reason ? `: ${reason}` : ''}`
		: `${member} taken out of maintenance by ${ctx.actor}`;
	recordAudit(ctx, pool, {
		action: on ? 'maintenance-on' : 'maintenance-off',
		member,
		...(on && reason ? { detail: reason } : {}),
	});
	await flushKubeEvents(ctx);
	emitEvent(ctx, { pool, member, action: 'maintenance', outcome: 'ok', message });
}
