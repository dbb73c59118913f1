/**
 * The legacy ServiceAccount token controller: a Secret of type
 * `kubernetes.io/service-account-token` naming an existing account gets its `token` and
 * `namespace` data and the account's uid annotation; one naming a missing account is deleted,
 * and so are an account's token Secrets when the account is deleted.
 */

import type { SimEvent, SimObject, SimStore } from '../store-api.js';

/** What the controller needs to mint a token. */
export interface LegacyTokenIssuer {
	issueLegacy(secret: SimObject, sa: SimObject): string;
}

const TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';

/** Starts the controller; returns its stop function. */
export function startTokenController(store: SimStore, issuer: LegacyTokenIssuer): () => void {
	let stopped = false;
	const sync = (ns: string, name: string) => {
		if (stopped) return;
		const secret = store.get('secrets', ns, name);
		if (!secret || secret.type !== TYPE || secret.metadata.deletionTimestamp) return;
		const ann = secret.metadata.annotations ?? {};
		const sa = store.get('serviceaccounts', ns, ann[NAME_ANNOTATION] ?? '');
		const who = { who: 'system:serviceaccount:kube-system:token-controller' };
		try {
			if (!sa) {
				store.delete('secrets', ns, name, who);
				return;
			}
			const data = (secret.data ?? {}) as Record<string, string>;
			if (data.token && ann[UID_ANNOTATION] === sa.metadata.uid) return;
			store.update(
				'secrets',
				{
					...secret,
					metadata: {
						...secret.metadata,
						annotations: { ...ann, [UID_ANNOTATION]: sa.metadata.uid ?? '' },
					},
					data: {
						...data,
						namespace: Buffer.from(ns).toString('base64'),
						token: Buffer.from(issuer.issueLegacy(secret, sa)).toString('base64'),
					},
				},
				who,
			);
		} catch {
			// A race with another writer: the next change of the Secret syncs it again.
		}
	};
	const dropTokensOf = (sa: SimObject) => {
		if (stopped) return;
		const ns = sa.metadata.namespace ?? '';
		for (const s of store.list('secrets', { namespace: ns })) {
			const ann = s.metadata.annotations ?? {};
			if (s.type !== TYPE || ann[NAME_ANNOTATION] !== sa.metadata.name) continue;
			try {
				store.delete('secrets', ns, s.metadata.name, {
					who: 'system:serviceaccount:kube-system:token-controller',
				});
			} catch {
				// Already gone.
			}
		}
	};
	const off = store.onChange((e: SimEvent) => {
		if (e.resource === 'serviceaccounts' && e.type === 'DELETED') {
			const sa = e.object;
			setImmediate(() => dropTokensOf(sa));
			return;
		}
		if (e.resource !== 'secrets' || e.type === 'DELETED') return;
		const { namespace = '', name } = e.object.metadata;
		setImmediate(() => sync(namespace, name));
	});
	return () => {
		stopped = true;
		off();
	};
}
