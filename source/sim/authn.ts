/**
 * Authentication of the simulated cluster: the admin token of the kubeconfig it writes
 * (a member of system:masters), and ServiceAccount tokens issued through the TokenRequest
 * subresource (JWTs naming `system:serviceaccount:NS:NAME`, valid while the account exists
 * with the same uid and the token has not expired).
 */

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from './rbac.js';
import type { SimObject } from './store-api.js';

/** The issuer and default audience of ServiceAccount tokens, as on a real cluster. */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The issuer of legacy (Secret-based) ServiceAccount tokens. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

/** The user name of the admin token (kubeadm's name for it). */
export const ADMIN_USER = 'kubernetes-admin';

/** The groups of every authenticated user. */
const AUTHENTICATED = 'system:authenticated';

/** What token authentication needs from the store. */
export interface ServiceAccountSource {
	get(resource: string, namespace: string | undefined, name: string): SimObject | undefined;
}

/** Settings of the authenticator. */
export interface AuthenticatorOptions {
	/** The bearer token of the admin kubeconfig. */
	adminToken: string;
	/** The admin's user name (default `kubernetes-admin`). */
	adminUser?: string;
	/** Where ServiceAccounts are looked up. */
	store: ServiceAccountSource;
	/** The clock (ms). */
	now?: () => number;
}

/** A TokenRequest's answer. */
export interface IssuedToken {
	token: string;
	/** RFC 3339, seconds. */
	expirationTimestamp: string;
}

interface Claims {
	aud: string[];
	exp: number;
	iat: number;
	nbf: number;
	iss: string;
	jti: string;
	sub: string;
	'kubernetes.io': {
		namespace: string;
		serviceaccount: { name: string; uid: string };
	};
}

interface LegacyClaims {
	iss: string;
	'kubernetes.io/serviceaccount/namespace': string;
	'kubernetes.io/serviceaccount/secret.name': string;
	'kubernetes.io/serviceaccount/service-account.name': string;
	'kubernetes.io/serviceaccount/service-account.uid': string;
	sub: string;
}

function b64url(s: string | Buffer): string {
	return Buffer.from(s).toString('base64url');
}

/** The identity of a ServiceAccount: its user name and groups. */
export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
	return {
		username: `system:serviceaccount:${namespace}:${name}`,
		...(uid ? { uid } : {}),
		groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED],
	};
}

/** Parses `system:serviceaccount:NS:NAME` into its parts (undefined for other names). */
export function parseServiceAccountUser(
	username: string,
): { namespace: string; name: string } | undefined {
	const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
	return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}

/** Tells who a bearer token belongs to, and issues ServiceAccount tokens. */
export class Authenticator {
	private readonly adminToken: string;
	private readonly adminUser: string;
	private readonly store: ServiceAccountSource;
	private readonly now: () => number;
	private readonly key = randomBytes(32);

	constructor(opts: AuthenticatorOptions) {
		this.adminToken = opts.adminToken;
		this.adminUser = opts.adminUser ?? ADMIN_USER;
		this.store = opts.store;
		this.now = opts.now ?? Date.now;
	}

	/** The admin's identity. */
	admin(): UserInfo {
		return { username: this.adminUser, groups: ['system:masters', AUTHENTICATED] };
	}

	/** The user behind an `Authorization` header, or undefined (401). */
	authenticate(header: string | undefined): UserInfo | undefined {
		const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
		if (!m) return undefined;
		const token = m[1]!;
		if (token === this.adminToken) return this.admin();
		return this.serviceAccountToken(token);
	}

	private sign(data: string): Buffer {
		return createHmac('sha256', this.key).update(data).digest();
	}

	private serviceAccountToken(token: string): UserInfo | undefined {
		const parts = token.split('.');
		if (parts.length !== 3) return undefined;
		const [h, p, s] = parts as [string, string, string];
		const want = this.sign(`${h}.${p}`);
		const got = Buffer.from(s, 'base64url');
		if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
		let claims: Claims;
		try {
			claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Claims;
		} catch {
			return undefined;
		}
		if ((claims.iss as string) === LEGACY_ISSUER)
			return this.legacyToken(token, claims as unknown as LegacyClaims);
		const nowS = Math.floor(this.now() / 1000);
		if (claims.iss !== TOKEN_ISSUER || claims.exp <= nowS || claims.nbf > nowS + 60) {
			return undefined;
		}
		const k = claims['kubernetes.io'];
		const sa = this.store.get('serviceaccounts', k?.namespace, k?.serviceaccount?.name ?? '');
		if (!sa || sa.metadata.deletionTimestamp || sa.metadata.uid !== k.serviceaccount.uid) {
			return undefined;
		}
		return {
			...serviceAccountUser(k.namespace, k.serviceaccount.name, k.serviceaccount.uid),
			extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
		};
	}

	/** A legacy token is valid while its Secret still holds it and its account keeps its uid. */
	private legacyToken(token: string, c: LegacyClaims): UserInfo | undefined {
		const ns = c['kubernetes.io/serviceaccount/namespace'];
		const secret = this.store.get('secrets', ns, c['kubernetes.io/serviceaccount/secret.name']);
		const data = (secret?.data ?? {}) as Record<string, unknown>;
		if (!secret || data.token !== Buffer.from(token).toString('base64')) return undefined;
		const name = c['kubernetes.io/serviceaccount/service-account.name'];
		const uid = c['kubernetes.io/serviceaccount/service-account.uid'];
		const sa = this.store.get('serviceaccounts', ns, name);
		if (!sa || sa.metadata.uid !== uid) return undefined;
		return serviceAccountUser(ns, name, uid);
	}

	/** Issues the never-expiring token of a `kubernetes.io/service-account-token` Secret. */
	issueLegacy(secret: SimObject, sa: SimObject): string {
		const claims: LegacyClaims = {
			iss: LEGACY_ISSUER,
			'kubernetes.io/serviceaccount/namespace': sa.metadata.namespace ?? '',
			'kubernetes.io/serviceaccount/secret.name': secret.metadata.name,
			'kubernetes.io/serviceaccount/service-account.name': sa.metadata.name,
			'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid ?? '',
			sub: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
		};
		const head = b64url(JSON.stringify({ alg: 'HS256', kid: 'ctpool-sim' }));
		const body = b64url(JSON.stringify(claims));
		return `${head}.${body}.${this.sign(`${head}.${body}`).toString('base64url')}`;
	}

	/**
	 * Issues a token for a stored ServiceAccount (the TokenRequest subresource); the caller
	 * checks that the account exists and validates the request.
	 */
	issue(
		sa: SimObject,
		expirationSeconds: number,
		audiences: string[] = [TOKEN_ISSUER],
	): IssuedToken {
		const iat = Math.floor(this.now() / 1000);
		const claims: Claims = {
			aud: audiences,
			exp: iat + expirationSeconds,
			iat,
			iss: TOKEN_ISSUER,
			jti: randomUUID(),
			'kubernetes.io': {
				namespace: sa.metadata.namespace ?? '',
				serviceaccount: { name: sa.metadata.name, uid: sa.metadata.uid ?? '' },
			},
			nbf: iat,
			sub: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
		};
		const head = b64url(JSON.stringify({ alg: 'HS256', kid: 'ctpool-sim' }));
		const body = b64url(JSON.stringify(claims));
		const sig = this.sign(`${head}.${body}`).toString('base64url');
		return {
			token: `${head}.${body}.${sig}`,
			expirationTimestamp: new Date(claims.exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
		};
	}
}
