/**
 * Adoption of a member's pod started by Corral's own `corral ct start`: the pod Corral's
 * generatePod makes carries only `corral.dev/ct=true` and `corral.dev/ct-name=<member>`, so
 * ctpool adds the pool, member and source labels (a merge patch carrying the pod's
 * resourceVersion: a pod changed or swapped meanwhile is read and judged again) and records
 * an `Adopted` Event. The rule of what may be adopted is pool/ownership.ts's.
 */

import { isConflict, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { MEMBER_LABEL, POOL_LABEL, SOURCE_LABEL } from '../pool/names.js';
import type { PodObject, PvcObject } from '../pool/objects.js';
import { adoptedText, isCorralStartedPod, isPoolObject } from '../pool/ownership.js';
import { clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';
import { ForeignObjectError } from './foreign-objects.js';
import { recordAudit } from './kube-event.js';
import { mergePatchOptions } from './merge-patch.js';

/** How often an adoption reads the pod again after it changed between the read and the patch. */
const ADOPT_ATTEMPTS = 3;

/** The labels an adopted pod gets: the pool's, the member's, and its PVC's source. */
function adoptedLabels(pool: string, member: string, pvc: PvcObject): Record<string, string> {
	return {
		[POOL_LABEL]: pool,
		[MEMBER_LABEL]: member,
		[SOURCE_LABEL]: pvc.metadata.labels?.[SOURCE_LABEL] ?? '',
	};
}

async function readPod(ctx: EngineContext, member: string): Promise<PodObject | null> {
	try {
		return plainObject<PodObject>(
			await ctx.kube.core.readNamespacedPod({ name: member, namespace: ctx.namespace }),
		);
	} catch (err) {
		if (isNotFound(err)) return null;
		throw clusterError(err, {
			verb: 'get',
			resource: 'pods',
			namespace: ctx.namespace,
			name: member,
		});
	}
}

/**
 * Adopts the member's pod that Corral started (isCorralStartedPod must hold for pod and pvc):
 * resolves with the pod as written, the pool's labels on it, or null when it went meanwhile.
 * A pod that changed into something else meanwhile (a stranger's, or adopted by another
 * ctpool) is judged again: the pool's is returned as it is, any other is a ForeignObjectError.
 */
export async function adoptCorralPod(
	ctx: EngineContext,
	pool: string,
	member: string,
	pod: PodObject,
	pvc: PvcObject,
): Promise<PodObject | null> {
	let current: PodObject | null = pod;
	for (let attempt = 1; current; attempt++) {
		if (isPoolObject(pool, member, 'pod', current)) return current;
		if (!isCorralStartedPod(pool, member, current, pvc))
			throw new ForeignObjectError(member, ['pod']);
		const metadata: Record<string, unknown> = { labels: adoptedLabels(pool, member, pvc) };
		if (current.metadata.resourceVersion)
			metadata.resourceVersion = current.metadata.resourceVersion;
		try {
			const written = plainObject<PodObject>(
				await ctx.kube.core.patchNamespacedPod(
					{ name: member, namespace: ctx.namespace, body: { metadata } },
					mergePatchOptions(),
				),
			);
			recordAudit(ctx, pool, { action: 'adopt', member, detail: adoptedText(member) });
			emitEvent(ctx, {
				pool,
				member,
				action: 'adopt',
				outcome: 'ok',
				message: `adopted ${member}: ${adoptedText(member)}`,
			});
			return written;
		} catch (err) {
			if (isNotFound(err)) return null;
			if (!isConflict(err) || attempt >= ADOPT_ATTEMPTS)
				throw clusterError(err, {
					verb: 'patch',
					resource: 'pods',
					namespace: ctx.namespace,
					name: member,
				});
		}
		current = await readPod(ctx, member);
	}
	return null;
}
