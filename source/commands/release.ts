/** ctpool release: the user is done; destroy the member and make it again from the image. */

import type { ExpiredClaim, ExpiredOutcome } from '../engine/release-expired.js';
import { formatAge } from '../text/age.js';
import { sanitize } from '../text/sanitize.js';
import { runCommand } from './command.js';
import { releaseCommand } from './command-specs.js';
import { EXIT_FAILED, EXIT_OK, usageError } from './failure.js';
import type { ParsedArgs } from './flags.js';
import { renderTable } from './format.js';
import { type CommandIo, println, progressReporter } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkIdentityArg, checkMemberArg, checkPoolArg } from './values.js';

/** Runs `ctpool release`. */
export function runRelease(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(releaseCommand, argv, io, async (args) => {
		if (args.flags.expired === true) return runReleaseExpired(args, io);
		for (const flag of ['allNamespaces', 'dryRun'] as const)
			if (args.flags[flag] === true)
				throw usageError(
					'release',
					`${flag === 'dryRun' ? '--dry-run' : '-A/--all-namespaces'} goes with --expired`,
				);
		checkArgs('release', args.input, ['pool', 'member', 'identity']);
		const [pool, member, identity] = args.input as [string, string, string];
		checkPoolArg('release', pool);
		checkMemberArg('release', pool, member);
		checkIdentityArg('release', identity);
		const { engine } = await connect(args.flags, io, { check: 'release' });
		const progress = progressReporter(io);
		try {
			const result = await engine.release(pool, member, identity, {
				force: args.flags.force === true,
				onProgress: (m) => progress.update(`ctpool: ${sanitize(m)}`),
			});
			progress.done();
			println(io.stdout, sanitize(result.message));
			return EXIT_OK;
		} finally {
			progress.done();
		}
	});
}

/** `release --expired [pool] [-A] [--dry-run]`: list, then release, every expired claim. */
async function runReleaseExpired(args: ParsedArgs, io: CommandIo): Promise<number> {
	checkArgs('release', args.input, [], ['pool']);
	const pool = args.input[0];
	if (pool !== undefined) checkPoolArg('release', pool);
	const allNamespaces = args.flags.allNamespaces === true;
	if (pool !== undefined && allNamespaces)
		throw usageError(
			'release',
			`-A/--all-namespaces looks in every pool; to free pool ${pool}'s expired claims name its namespace with -n instead`,
		);
	// in one namespace the rights a release surely needs are asked up front (not for a dry
	// run, which reads only; across namespaces they differ, and each refusal names its own)
	const check = args.flags.dryRun === true || allNamespaces ? {} : { check: 'release' as const };
	const { engine, ctx } = await connect(args.flags, io, { withSignal: true, ...check });
	const claims = await engine.findExpiredClaims({
		...(pool !== undefined ? { pool } : {}),
		allNamespaces,
	});
	const where =
		pool !== undefined
			? `pool ${pool} (namespace ${ctx.namespace})`
			: allNamespaces
				? 'any namespace'
				: `namespace ${ctx.namespace}`;
	if (claims.length === 0) {
		println(io.stdout, `no expired claims in ${where}`);
		return EXIT_OK;
	}
	const now = ctx.now();
	for (const line of expiredTable(claims, now)) println(io.stdout, line);
	const count = `${claims.length} expired claim${claims.length > 1 ? 's' : ''}`;
	if (args.flags.dryRun === true) {
		println(io.stdout, `would release ${count} in ${where} (leave out --dry-run to release them)`);
		return EXIT_OK;
	}
	const progress = progressReporter(io);
	const outcomes = await engine.releaseExpired(claims, {
		onProgress: (m) => progress.update(`ctpool: ${sanitize(m)}`),
		onOutcome: (o) => {
			progress.done();
			printOutcome(io, o);
		},
	});
	progress.done();
	const released = outcomes.filter((o) => o.ok).length;
	println(io.stdout, `released ${released} of ${count} in ${where}`);
	return released === claims.length ? EXIT_OK : EXIT_FAILED;
}

/** The expired claims as a table: where, who held each, since when it expired. */
function expiredTable(claims: readonly ExpiredClaim[], now: number): string[] {
	return renderTable(
		['NAMESPACE', 'POOL', 'MEMBER', 'HOLDER', 'EXPIRED'],
		claims.map((c) => [
			c.namespace,
			c.pool,
			c.member,
			c.holder,
			c.expiredAt === null ? '?' : `${formatAge(now - c.expiredAt)} ago`,
		]),
		false,
	);
}

/** One release's outcome: on stdout when done, on stderr when it failed or was left alone. */
function printOutcome(io: CommandIo, o: ExpiredOutcome): void {
	const where = `${o.namespace}/${o.pool}`;
	if (o.ok) println(io.stdout, `${where}: ${sanitize(o.message)}`);
	else println(io.stderr, `ctpool: ${where}: ${sanitize(o.message)}`);
}
