/** SelfSubjectAccessReview: whether the connection's identity may do one thing in a namespace. */

import { postJson } from './api-request.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type Kube } from './config.js';

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
		// Raw JSON: the typed client would load client-node's generated models, and the console
		// asks this at start-up.
		const review = await postJson<{ status?: { allowed?: boolean } }>(
			kube.config,
			'/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
			{
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
			kube.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
		);
		return review.status?.allowed === true;
	} catch {
		return null;
	}
}
