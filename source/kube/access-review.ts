/** SelfSubjectAccessReview: whether the connection's identity may do one thing in a namespace. */

import type { OperationNeed } from '../pool/operation-needs.js';
import { postJson } from './api-request.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type Kube } from './config.js';

/** One right an operation needs. */
export type AccessNeed = OperationNeed;

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

/** One resource rule of a SelfSubjectRulesReview's answer. */
interface ReviewRule {
	verbs?: unknown;
	apiGroups?: unknown;
	resources?: unknown;
	resourceNames?: unknown;
}

const strings = (v: unknown): string[] =>
	Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** Whether one rule grants the need, matched as RBAC does (a star for any; no resourceNames). */
function ruleGrants(rule: ReviewRule, need: AccessNeed): boolean {
	if (strings(rule.resourceNames).length > 0) return false;
	const verbs = strings(rule.verbs);
	const groups = strings(rule.apiGroups);
	const resources = strings(rule.resources);
	const full = need.subresource ? `${need.resource}/${need.subresource}` : need.resource;
	return (
		(verbs.includes('*') || verbs.includes(need.verb)) &&
		(groups.includes('*') || groups.includes(need.group ?? '')) &&
		resources.some(
			(r) =>
				r === '*' ||
				r === full ||
				(need.subresource !== undefined && r === `*/${need.subresource}`),
		)
	);
}

/**
 * The needs the identity lacks in a namespace: one SelfSubjectRulesReview answers most; a
 * need it does not show granted (rules by name, another authorizer, an incomplete list) is
 * asked on its own, and only a clear "no" counts. A question that cannot be asked lacks
 * nothing: the operation then says what the cluster answers.
 */
export async function lacking(
	kube: Kube,
	namespace: string,
	needs: readonly AccessNeed[],
): Promise<AccessNeed[]> {
	let rules: ReviewRule[] = [];
	try {
		const review = await postJson<{ status?: { resourceRules?: unknown } }>(
			kube.config,
			'/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
			{
				apiVersion: 'authorization.k8s.io/v1',
				kind: 'SelfSubjectRulesReview',
				spec: { namespace },
			},
			kube.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
		);
		const got = review.status?.resourceRules;
		if (Array.isArray(got))
			rules = got.filter((r): r is ReviewRule => r !== null && typeof r === 'object');
	} catch {
		// asked one by one below
	}
	const open = needs.filter((n) => !rules.some((r) => ruleGrants(r, n)));
	const answers = await Promise.all(open.map((n) => mayI(kube, namespace, n)));
	return open.filter((_, i) => answers[i] === false);
}
