/** SelfSubjectAccessReview: whether the connection's identity may do one thing in a namespace. */

import type { Kube } from './config.js';

/** One right an operation needs. */
export interface AccessNeed {
	verb: string;
	resource: string;
	group?: string;
	subresource?: string;
}

/** Asks the cluster whether the identity may do one thing; null when the answer is unknown. */
export async function mayI(
	kube: Kube,
	namespace: string,
	need: AccessNeed,
): Promise<boolean | null> {
	try {
		const review = await kube.authorization.createSelfSubjectAccessReview({
			body: {
				apiVersion: 'authorization.k8s.io/v1',
				kind: 'SelfSubjectAccessReview',
				spec: {
					resourceAttributes: {
						namespace,
						verb: need.verb,
						resource: need.resource,
						...(need.group ? { group: need.group } : {}),
						...(need.subresource ? { subresource: need.subresource } : {}),
					},
				},
			},
		});
		return review.status?.allowed === true;
	} catch {
		return null;
	}
}
