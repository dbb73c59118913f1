/**
 * The differences between the simulated cluster and the real control plane that the
 * differential test allows, each with its reason. Keep it short: a difference is fixed in
 * the simulator unless it cannot matter to ctpool or to kubectl and Corral beside it.
 * Each entry matches `<case id> <path>` (case ids as in differential-corpus.ts).
 */

/** One allowed difference. */
export interface Allowed {
	match: RegExp;
	reason: string;
}

export const ALLOWED: Allowed[] = [
	{
		match: / body(\.items\[\d+\])?\.metadata\.managedFields$/,
		reason:
			'The real server records server-side apply field ownership (metadata.managedFields) on every write; the simulator keeps none. Nothing in ctpool, in kubectl get (it hides them) or in Corral reads them.',
	},
	{
		match: /\/list by bad label selector body\.message$/,
		reason:
			"A label selector's syntax error: both answer 400 BadRequest `unable to parse requirement: ...`; the wording after it comes from the server's own lexer, which the simulator does not copy.",
	},
];

/** The reason a difference is allowed, or undefined. */
export function allowedReason(key: string): string | undefined {
	return ALLOWED.find((a) => a.match.test(key))?.reason;
}
