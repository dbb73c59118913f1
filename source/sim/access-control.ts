/**
 * The access-control gate of the simulated API server: who a request comes from (bearer
 * token, then impersonation headers) and whether RBAC lets them do it. The cluster's `deny`
 * setting (`'verb resource'` pairs) is an overlay that denies a pair to everyone, for tests.
 */

import type { IncomingHttpHeaders } from 'node:http';
import { type Authenticator, parseServiceAccountUser, serviceAccountUser } from './authn.js';
import { badRequest, unauthorized } from './errors.js';
import {
	type Attributes,
	authorize,
	type Decision,
	forbiddenError,
	type RbacSource,
	type UserInfo,
} from './rbac.js';

/** The first `verb resource` entry of the deny list that matches, if any. */
export function deniedBy(
	deny: readonly string[],
	verb: string,
	resource: string,
	subresource?: string,
): string | undefined {
	const full = subresource ? `${resource}/${subresource}` : resource;
	for (const entry of deny) {
		const [v = '', r = ''] = entry.trim().split(/\s+/);
		const [rName = '', rSub] = r.split('/');
		const rFull = rSub ? `${rName.split('.')[0]}/${rSub}` : (rName.split('.')[0] ?? '');
		if ((v === '*' || v === verb) && (r === '*' || rFull === full)) return entry;
	}
	return undefined;
}

/** Settings of the gate. */
export interface AccessControlOptions {
	authenticator: Authenticator;
	/** The RBAC objects (the store). */
	rbac: RbacSource;
	/** The deny overlay, read at every request (tests change it while the cluster runs). */
	deny: () => readonly string[];
}

function headerList(headers: IncomingHttpHeaders, name: string): string[] {
	const v = headers[name];
	if (v === undefined) return [];
	return (Array.isArray(v) ? v : [v])
		.flatMap((x) => x.split(','))
		.map((x) => x.trim())
		.filter(Boolean);
}

/** Authenticates, impersonates and authorises requests. */
export class AccessControl {
	/** The authenticator (token issue and check). */
	readonly authenticator: Authenticator;
	private readonly rbac: RbacSource;
	private readonly deny: () => readonly string[];

	constructor(opts: AccessControlOptions) {
		this.authenticator = opts.authenticator;
		this.rbac = opts.rbac;
		this.deny = opts.deny;
	}

	/**
	 * The user a request acts as: its bearer token's owner, or the user it impersonates
	 * (Impersonate-User, -Group, -Uid) when the owner may. Throws 401, 403 or 400.
	 */
	identify(headers: IncomingHttpHeaders): UserInfo {
		const actor = this.authenticator.authenticate(headers.authorization);
		if (!actor) throw unauthorized();
		const asUser = headerList(headers, 'impersonate-user')[0];
		const asGroups = headerList(headers, 'impersonate-group');
		const asUid = headerList(headers, 'impersonate-uid')[0];
		const extras = Object.keys(headers).filter((h) => h.startsWith('impersonate-extra-'));
		if (asUser === undefined) {
			if (asGroups.length > 0 || asUid !== undefined || extras.length > 0) {
				throw badRequest(
					`requested ${[...asGroups.map((g) => `{Group ${g}}`), ...(asUid ? [`{UID ${asUid}}`] : [])].join(' ')} without impersonating a user`,
				);
			}
			return actor;
		}
		const sa = parseServiceAccountUser(asUser);
		const checks: Attributes[] = [
			sa
				? {
						verb: 'impersonate',
						resourceRequest: true,
						apiGroup: '',
						resource: 'serviceaccounts',
						namespace: sa.namespace,
						name: sa.name,
					}
				: {
						verb: 'impersonate',
						resourceRequest: true,
						apiGroup: '',
						resource: 'users',
						name: asUser,
					},
			...asGroups.map((g) => ({
				verb: 'impersonate',
				resourceRequest: true,
				apiGroup: '',
				resource: 'groups',
				name: g,
			})),
			...(asUid !== undefined
				? [
						{
							verb: 'impersonate',
							resourceRequest: true,
							apiGroup: 'authentication.k8s.io',
							resource: 'uids',
							name: asUid,
						},
					]
				: []),
		];
		const extra: Record<string, string[]> = {};
		for (const h of extras) {
			const key = decodeURIComponent(h.slice('impersonate-extra-'.length));
			const values = headerList(headers, h);
			extra[key] = values;
			for (const v of values) {
				checks.push({
					verb: 'impersonate',
					resourceRequest: true,
					apiGroup: 'authentication.k8s.io',
					resource: 'userextras',
					subresource: key,
					name: v,
				});
			}
		}
		for (const a of checks) {
			if (!this.decide(actor, a).allowed) throw forbiddenError(actor.username, a);
		}
		let groups = asGroups;
		if (groups.length === 0 && sa) groups = serviceAccountUser(sa.namespace, sa.name).groups;
		if (asUser !== 'system:anonymous' && !groups.includes('system:authenticated')) {
			groups = [...groups, 'system:authenticated'];
		}
		return {
			username: asUser,
			...(asUid !== undefined ? { uid: asUid } : {}),
			groups,
			...(extras.length > 0 ? { extra } : {}),
		};
	}

	/** RBAC's decision for the user, with the deny overlay applied to resource requests. */
	decide(user: UserInfo, a: Attributes): Decision {
		if (a.resourceRequest) {
			const entry = deniedBy(this.deny(), a.verb, a.resource ?? '', a.subresource);
			if (entry) {
				return {
					allowed: false,
					reason: `denied by the simulated cluster's configuration: ${entry}`,
				};
			}
		}
		// kube-apiserver allows system:masters before RBAC is asked (a privileged-group authorizer).
		if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
		return authorize(this.rbac, user, a);
	}

	/** Throws the real 403 unless the user may do it. */
	check(user: UserInfo, a: Attributes): void {
		if (!this.decide(user, a).allowed) throw forbiddenError(user.username, a);
	}

	/** The RBAC source (for rules reviews). */
	source(): RbacSource {
		return this.rbac;
	}
}
