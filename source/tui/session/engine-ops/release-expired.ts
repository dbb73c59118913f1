/** The release-expired operation: every expired claim shown, across pools and namespaces. */

import { releaseExpired } from '../../../engine/index.js';
import type { ExpiredClaim } from '../../../engine/release-expired.js';
import { act, logFailure, noteAuth, type OpsContext, plural } from './context.js';

/**
 * Releases with --force each expired claim, in whatever pool and namespace it is; a claim
 * renewed since it was listed is left alone; the outcome is reported claim by claim.
 */
export function releaseExpiredOp(ops: OpsContext, claims: readonly ExpiredClaim[]): void {
	const n = claims.length;
	act(
		ops,
		`releasing ${plural(n, 'expired claim')}`,
		{ pool: '', action: 'release' },
		async (ctx, progress) => {
			const outcomes = await releaseExpired(ctx, claims, {
				onProgress: progress,
				onOutcome: (o) => {
					if (o.ok) return;
					noteAuth(ops, o.message);
					logFailure(
						ops,
						{ pool: `${o.namespace}/${o.pool}`, member: o.member, action: 'release' },
						o.message,
					);
				},
			});
			const done = outcomes.filter((o) => o.ok).map((o) => o.member);
			const failed = outcomes.filter((o) => !o.ok);
			const summary = `release expired: ${done.length} of ${n} done${done.length > 0 ? ` (${done.join(', ')})` : ''}`;
			if (failed.length > 0)
				throw new Error(
					`${summary}; ${failed.length} not: ${failed.map((o) => `${o.namespace}/${o.pool} ${o.member}: ${o.message}`).join('; ')}`,
				);
			return summary;
		},
	);
}
