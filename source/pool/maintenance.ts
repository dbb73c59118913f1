/** The `corral.dev/vdi-maintenance` annotation on a member's PVC, read: present = in maintenance. */

import { MAINTENANCE_ANNOTATION } from './names.js';

/** The most characters of a maintenance reason kept (longer ones are cut with `…`). */
export const MAINTENANCE_REASON_MAX = 1000;

/** A member's maintenance as its PVC records it. */
export interface Maintenance {
	on: boolean;
	/** Why ('' when no reason was given), at most MAINTENANCE_REASON_MAX characters. */
	reason: string;
}

const OFF: Maintenance = { on: false, reason: '' };

/**
 * Reads the maintenance annotation of a PVC's annotations. Never throws: the annotation's
 * presence is what counts (whatever its value); a value that is not text reads as no reason.
 */
export function readMaintenance(annotations: unknown): Maintenance {
	if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) return OFF;
	if (!Object.hasOwn(annotations, MAINTENANCE_ANNOTATION)) return OFF;
	const v = (annotations as Record<string, unknown>)[MAINTENANCE_ANNOTATION];
	const reason = typeof v === 'string' ? v : '';
	return {
		on: true,
		reason:
			reason.length > MAINTENANCE_REASON_MAX
				? `${reason.slice(0, MAINTENANCE_REASON_MAX)}…`
				: reason,
	};
}
