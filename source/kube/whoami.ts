/**
 * Who the cluster says the connection is: the user name of a SelfSubjectReview
 * (authentication.k8s.io/v1, what `kubectl auth whoami` asks). The audit records it beside
 * the acting identity a user may type freely. Asked once per process and connection; a
 * refused or failed review (an older cluster, a Role without it) is simply not recorded.
 */

import type { KubeConfig } from '@kubernetes/client-node';
import { postJson } from './api-request.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type Kube } from './config.js';

/** The longest user name kept (Kubernetes names and e-mail addresses fit). */
const USER_MAX = 253;

const asked = new WeakMap<KubeConfig, Promise<string | null>>();

/**
 * A SelfSubjectReview's answer parsed: its `status.userInfo.username` when it is a string of
 * 1..253 printable characters, else null. Never throws.
 */
export function reviewedUser(review: unknown): string | null {
	if (!review || typeof review !== 'object') return null;
	const status = (review as { status?: unknown }).status;
	if (!status || typeof status !== 'object') return null;
	const info = (status as { userInfo?: unknown }).userInfo;
	if (!info || typeof info !== 'object') return null;
	const name = (info as { username?: unknown }).username;
	if (typeof name !== 'string' || name.length === 0 || name.length > USER_MAX) return null;
	if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\s]/u.test(name)) return null;
	return name;
}

/**
 * The authenticated user of the connection, or null when the cluster does not say (the
 * review refused or failed). Cached for the life of the process: one review per connection.
 */
export function authenticatedUser(kube: Kube): Promise<string | null> {
	let pending = asked.get(kube.config);
	if (!pending) {
		pending = postJson<unknown>(
			kube.config,
			'/apis/authentication.k8s.io/v1/selfsubjectreviews',
			{ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
			kube.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
		).then(reviewedUser, () => null);
		asked.set(kube.config, pending);
	}
	return pending;
}
