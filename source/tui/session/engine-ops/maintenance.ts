/** The maintenance operation: a member in or out of maintenance. */

import { setMaintenance } from '../../../engine/index.js';
import { poolName } from '../../model/pool-index.js';
import { act, type OpsContext } from './context.js';

/** Turns maintenance on (with the reason) or off for a member. */
export function maintenanceOp(
	ops: OpsContext,
	key: string,
	member: string,
	on: boolean,
	reason?: string,
): void {
	act(
		ops,
		`${on ? 'setting' : 'clearing'} maintenance on ${member}`,
		{ pool: key, member, action: 'maintenance' },
		async (ctx) => {
			await setMaintenance(ctx, poolName(key), member, on, on ? reason : undefined);
			return on
				? `${member} is in maintenance${reason ? `: ${reason}` : ''}`
				: `${member} is out of maintenance`;
		},
	);
}
