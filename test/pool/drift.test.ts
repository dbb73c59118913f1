/**
 * Drift that names what changed (issue 24, finding 3): values are compared normalised
 * (quantities by value, cpu as a number or a string, image references in full, a StorageClass
 * the API server filled in for the cluster default), only differing fields are named, the
 * image first, then the resources, then the rest.
 */

import { describe, expect, it } from 'vitest';
import {
	CT_SPEC_ANNOTATION,
	ctSpecJson,
	ctSpecOf,
	describeDrift,
	groupMembers,
	MEMBER_LABEL,
	memberView,
	normaliseImage,
	POOL_LABEL,
	type PodObject,
	type PvcObject,
	poolRuleInputs,
	pvcSource,
	SOURCE_LABEL,
	type SourceFields,
	sourceFields,
	sourceHash,
	validateSpec,
} from '../../source/pool/index.js';
import { NOW } from './fixtures.js';

const OLD = validateSpec({ image: 'ghcr.io/example/desktop:1', size: 3, memory: '12Gi' });

/**
 * The PVC of desk-1 as ctpool made it from spec and the API server admitted it: Corral's
 * annotation (cpu a number), the disk as the request, and the StorageClass filled in with the
 * cluster default (`standard`) when the spec left it empty.
 */
function admittedPvc(spec: SourceFields, defaultClass = 'standard'): PvcObject {
	return {
		metadata: {
			name: 'desk-1-data',
			labels: {
				[POOL_LABEL]: 'desk',
				[MEMBER_LABEL]: 'desk-1',
				[SOURCE_LABEL]: sourceHash(sourceFields(spec)),
			},
			annotations: { [CT_SPEC_ANNOTATION]: ctSpecJson(ctSpecOf(sourceFields(spec))) },
		},
		spec: {
			resources: { requests: { storage: spec.disk } },
			storageClassName: spec.storageClass || defaultClass,
		},
		status: { phase: 'Bound' },
	} as PvcObject;
}

function driftOf(built: SourceFields, now: SourceFields): string[] {
	const pvc = admittedPvc(built);
	return describeDrift(pvcSource(pvc), sourceFields(now), pvc.metadata.labels?.[SOURCE_LABEL]);
}

describe('drift names only what changed', () => {
	it('a memory change reads as that alone: not cpu 1 -> 1, not storageClass standard -> ""', () => {
		expect(driftOf(OLD, { ...OLD, memory: '6Gi' })).toEqual(['memory 12Gi -> 6Gi']);
	});

	it('and so on the member row and in the status the reconcile records', () => {
		const pvc = admittedPvc(OLD);
		const spec = { ...OLD, memory: '6Gi' };
		const [m] = groupMembers('desk', 3, { pods: [], pvcs: [pvc], leases: [] });
		const v = memberView(m!, poolRuleInputs(3, spec), NOW);
		expect(v).toMatchObject({ drifted: true, drift: ['memory 12Gi -> 6Gi'] });
	});

	it('compares quantities by value and cpu as a number or a string', () => {
		expect(driftOf(OLD, { ...OLD, memory: '12288Mi', cpu: 1 })).toEqual([]);
		expect(driftOf({ ...OLD, disk: '5Gi' }, { ...OLD, disk: '5120Mi' })).toEqual([]);
		expect(driftOf(OLD, { ...OLD, cpu: '2' })).toEqual(['cpu 1 -> 2']);
	});

	it('names the image first, then the resources, then the rest', () => {
		expect(
			driftOf(OLD, {
				...OLD,
				privileged: true,
				disk: '9Gi',
				memory: '6Gi',
				cpu: 2,
				image: 'ghcr.io/example/desktop:2',
			}),
		).toEqual([
			'image ghcr.io/example/desktop:1 -> ghcr.io/example/desktop:2',
			'cpu 1 -> 2',
			'memory 12Gi -> 6Gi',
			'disk 5Gi -> 9Gi',
			'privileged false -> true',
		]);
	});

	it('tells a StorageClass filled in for the default from one the definition named', () => {
		// the default, filled in by the API server: the same
		expect(driftOf(OLD, { ...OLD, image: 'x:2' })).toEqual([
			'image ghcr.io/example/desktop:1 -> x:2',
		]);
		// a class the definition named, now the cluster default
		const fast = { ...OLD, storageClass: 'fast' };
		expect(driftOf(fast, OLD)).toEqual(['storageClass fast -> (cluster default)']);
		// the cluster default, now a class named
		expect(driftOf(OLD, fast)).toEqual(['storageClass (cluster default) -> fast']);
		expect(driftOf(fast, { ...OLD, storageClass: 'slow' })).toEqual(['storageClass fast -> slow']);
		// no source label to tell by: a named class and the default count as the same
		const pvc = admittedPvc(fast);
		expect(describeDrift(pvcSource(pvc), sourceFields(OLD))).toEqual([]);
	});

	it('reads image references in their full form', () => {
		expect(normaliseImage('busybox')).toBe('docker.io/library/busybox:latest');
		expect(normaliseImage('index.docker.io/library/busybox:1')).toBe('docker.io/library/busybox:1');
		expect(normaliseImage('localhost:5000/x@sha256:ab')).toBe('localhost:5000/x@sha256:ab');
		expect(normaliseImage('ghcr.io/example/desktop')).toBe('ghcr.io/example/desktop:latest');
		const img = { ...OLD, image: 'busybox' };
		expect(driftOf(img, { ...img, image: 'docker.io/library/busybox:latest' })).toEqual([]);
	});

	it('says a definition written anew with the same values is that, not a field list', () => {
		// cpu written as a number instead of a string: another hash, the same values
		const pvc = admittedPvc(OLD);
		const spec = { ...OLD, cpu: 1 };
		const pod: PodObject = {
			metadata: {
				name: 'desk-1',
				labels: { ...pvc.metadata.labels },
			},
			status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
		};
		const [m] = groupMembers('desk', 3, { pods: [pod], pvcs: [pvc], leases: [] });
		const v = memberView(m!, poolRuleInputs(3, spec), NOW);
		expect(v.drifted).toBe(true);
		expect(v.drift).toEqual([
			`the same values written anew (source ${sourceHash(sourceFields(OLD))} -> ${sourceHash(sourceFields(spec))})`,
		]);
	});
});
