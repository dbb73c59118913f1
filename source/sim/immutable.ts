/** Update rules of the API server that forbid changing parts of a stored object (422). */

import { accessUpdateCauses } from './access-objects.js';
import { applyDefaults } from './defaults.js';
import { forbiddenField, invalid } from './errors.js';
import { jsonEqual } from './store.js';
import type { SimObject } from './store-api.js';

type Rec = Record<string, unknown>;

const POD_UPDATE_MSG =
	'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';
const PVC_UPDATE_MSG =
	'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

function mutableParts(resource: string, spec: Rec): Rec {
	const s = structuredClone(spec);
	if (resource === 'pods') {
		for (const key of ['containers', 'initContainers']) {
			for (const c of (s[key] as Rec[] | undefined) ?? []) c.image = '';
		}
		delete s.activeDeadlineSeconds;
		delete s.tolerations;
		delete s.terminationGracePeriodSeconds;
	} else if (resource === 'persistentvolumeclaims') {
		const res = (s.resources ?? {}) as Rec;
		delete res.requests;
		delete s.volumeAttributesClassName;
	}
	return s;
}

/**
 * Throws 422 when an update through the API changes what the kind forbids: a pod's spec
 * beyond images, activeDeadlineSeconds, added tolerations and the grace period; a PVC's
 * spec beyond its storage request. The new object is defaulted first, as the server does.
 */
export function checkImmutable(
	resource: string,
	current: SimObject,
	next: SimObject,
	defaultGraceSeconds: number,
): void {
	const access = accessUpdateCauses(resource, current, next);
	if (access.length > 0) throw invalid(resource, current.metadata.name, access);
	if (resource === 'deployments') {
		const before = (current.spec as Rec | undefined)?.selector;
		const after = (next.spec as Rec | undefined)?.selector;
		if (before !== undefined && !jsonEqual(before, after)) {
			throw invalid(resource, current.metadata.name, [
				{
					reason: 'FieldValueInvalid',
					message: `Invalid value: ${JSON.stringify(after ?? null)}: field is immutable`,
					field: 'spec.selector',
				},
			]);
		}
		return;
	}
	if (resource !== 'pods' && resource !== 'persistentvolumeclaims') return;
	const cur = (current.spec ?? {}) as Rec;
	const probe: SimObject = structuredClone({ ...next, status: undefined });
	applyDefaults(resource, probe, {
		defaultGraceSeconds,
		defaultStorageClass: () => cur.storageClassName as string | undefined,
		allocateClusterIP: () => '',
	});
	const nxt = (probe.spec ?? {}) as Rec;
	if (resource === 'pods') {
		const before = (cur.tolerations as unknown[] | undefined) ?? [];
		const after = (nxt.tolerations as unknown[] | undefined) ?? [];
		const kept = before.every((t) => after.some((u) => jsonEqual(t, u)));
		if (!kept || !jsonEqual(mutableParts(resource, cur), mutableParts(resource, nxt))) {
			throw invalid(resource, current.metadata.name, [forbiddenField('spec', POD_UPDATE_MSG)]);
		}
		return;
	}
	if (!jsonEqual(mutableParts(resource, cur), mutableParts(resource, nxt))) {
		throw invalid(resource, current.metadata.name, [forbiddenField('spec', PVC_UPDATE_MSG)]);
	}
}
