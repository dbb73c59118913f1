/** ctpool find: where an identity's desktop is, or a member or pool by name, across pools. Changes nothing. */

import { type FindHit, findMembers } from '../pool/find.js';
import { formatAge } from '../text/age.js';
import { sanitize, sanitizeDeep } from '../text/sanitize.js';
import { runCommand, stringFlag } from './command.js';
import { findCommand } from './command-specs.js';
import { EXIT_FAILED, EXIT_OK, usageError } from './failure.js';
import { renderTable, stateColor } from './format.js';
import { type CommandIo, colorEnabled, println } from './io.js';
import { connect } from './session.js';
import { checkArgs } from './values.js';

const FORMATS = ['table', 'json'] as const;

/** The JSON of a hit (the documented, stable shape). */
export function hitJson(hit: FindHit) {
	return {
		namespace: hit.namespace,
		pool: hit.pool,
		member: hit.member,
		state: hit.state,
		holder: hit.holder,
		claimedAt:
			hit.claimedAt === null
				? null
				: new Date(hit.claimedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
		matched: hit.matched,
	};
}

/** Runs `ctpool find`. */
export function runFind(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(findCommand, argv, io, async (args) => {
		checkArgs('find', args.input, ['identity-or-member']);
		const query = args.input[0]!.trim();
		if (!query) throw usageError('find', 'the text to find is empty');
		const format = stringFlag(args, 'output') ?? 'table';
		if (!(FORMATS as readonly string[]).includes(format))
			throw usageError(
				'find',
				`-o ${JSON.stringify(sanitize(format).slice(0, 20))} is not an output format; use table or json`,
			);
		const allNamespaces = args.flags.allNamespaces === true;
		const { ctx, engine } = await connect(args.flags, io);
		const placed = await engine.listPoolsAcross(allNamespaces);
		const now = ctx.now();
		const hits = findMembers(
			query,
			placed.map(({ namespace, snapshot }) => ({
				key: `${namespace}/${snapshot.pool}`,
				namespace,
				pool: snapshot.pool,
				members: snapshot.members,
			})),
		);
		const where = allNamespaces ? 'in any namespace' : `in namespace ${sanitize(ctx.namespace)}`;
		if (format === 'json')
			io.stdout.write(
				`${JSON.stringify(sanitizeDeep({ query, items: hits.map(hitJson) }), null, 2)}\n`,
			);
		else if (hits.length > 0) {
			const color = colorEnabled(io.stdout, io.env, args.flags.color !== false);
			const rows = hits.map((h) => {
				const cells = [
					h.pool,
					h.member || '(no members)',
					h.state ? { text: h.state, color: stateColor(h.state) } : '-',
					h.holder || '-',
					h.claimedAt === null ? '-' : formatAge(now - h.claimedAt),
				];
				return allNamespaces ? [h.namespace, ...cells] : cells;
			});
			const headers = ['POOL', 'MEMBER', 'STATE', 'HOLDER', 'CLAIMED'];
			for (const line of renderTable(
				allNamespaces ? ['NAMESPACE', ...headers] : headers,
				rows,
				color,
			))
				println(io.stdout, line);
		}
		if (hits.length === 0) {
			println(
				io.stderr,
				`ctpool: no pool, member or holder matches ${JSON.stringify(sanitize(query).slice(0, 80))} ${where}${allNamespaces ? '' : ' (-A searches every namespace)'}`,
			);
			return EXIT_FAILED;
		}
		return EXIT_OK;
	});
}
