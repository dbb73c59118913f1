/** ctpool audit: who did what to the pools, from the Kubernetes Events ctpool wrote. Changes nothing. */

import {
	AUDIT_TRUST_NOTE,
	type AuditEntry,
	auditActionProblem,
	auditActionText,
	auditActorText,
	DEFAULT_EVENT_TTL_MS,
} from '../pool/audit.js';
import { formatAge } from '../text/age.js';
import { sanitize, sanitizeDeep } from '../text/sanitize.js';
import { runCommand, stringFlag } from './command.js';
import { auditCommand } from './command-specs.js';
import { EXIT_OK, usageError } from './failure.js';
import { renderTable } from './format.js';
import { type CommandIo, colorEnabled, println } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkPoolArg, parseDuration } from './values.js';

const FORMATS = ['table', 'json', 'yaml'] as const;

/** The apiVersion and kind of `ctpool audit -o json`. */
export const AUDIT_LIST_VERSION = 'ctpool/v1';

/** One line of `ctpool audit -o json`: stable field names (see the README). */
export interface AuditItem {
	time: string;
	namespace: string;
	pool: string;
	member: string;
	target: string;
	action: string;
	reason: string;
	type: string;
	holder: string;
	identity: string;
	actor: string;
	/** The user the cluster authenticated the writer as, as the writer recorded it, or ''. */
	user: string;
	force: boolean;
	/** The Event stated a time beyond its creation (forged, or a wrong clock); time is its creation. */
	timeClamped: boolean;
	count: number;
	detail: string;
	/** The reconcile pass that did the act (16 hex digits; the acts of one pass share it), or ''. */
	pass: string;
	message: string;
	event: string;
}

/** The JSON item of an audit line. */
export function auditItem(e: AuditEntry): AuditItem {
	return {
		time: new Date(e.time).toISOString(),
		namespace: e.namespace,
		pool: e.pool,
		member: e.member,
		target: e.target,
		action: e.action,
		reason: e.reason,
		type: e.type,
		holder: e.holder,
		identity: e.identity,
		actor: e.actor,
		user: e.user,
		force: e.force,
		timeClamped: e.clamped,
		count: e.count,
		detail: e.detail,
		pass: e.pass ?? '',
		message: e.message,
		event: e.name,
	};
}

/** Runs `ctpool audit`. */
export function runAudit(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(auditCommand, argv, io, async (args) => {
		checkArgs('audit', args.input, [], ['pool']);
		const pool = args.input[0];
		if (pool !== undefined) checkPoolArg('audit', pool);
		const format = stringFlag(args, 'output') ?? 'table';
		if (!(FORMATS as readonly string[]).includes(format))
			throw usageError(
				'audit',
				`-o ${JSON.stringify(sanitize(format).slice(0, 20))} is not an output format; use table, json or yaml`,
			);
		const action = stringFlag(args, 'action');
		const actionProblem = action === undefined ? null : auditActionProblem(action);
		if (actionProblem) throw usageError('audit', `--action: ${sanitize(actionProblem)}`);
		const sinceText = stringFlag(args, 'since');
		const sinceMs =
			sinceText === undefined
				? undefined
				: parseDuration('audit', 'since', sinceText, 1000, 30 * 24 * 3_600_000);
		if (stringFlag(args, 'identity') !== undefined)
			throw usageError(
				'audit',
				'audit filters by identity with --by ID (--identity names who acts, and audit changes nothing)',
			);
		const identity = stringFlag(args, 'by');
		const member = stringFlag(args, 'member');
		const all = args.flags.allNamespaces === true;
		// --identity is a filter here, not who acts: the audit changes nothing
		const { ctx, engine } = await connect({ ...args.flags, identity: undefined }, io);
		const now = ctx.now();
		const trail = await engine.readAudit({
			...(all ? { allNamespaces: true } : {}),
			...(pool !== undefined ? { pool } : {}),
			...(member !== undefined && member !== '' ? { member } : {}),
			...(identity !== undefined && identity !== '' ? { identity } : {}),
			...(action !== undefined ? { action } : {}),
			...(sinceMs !== undefined ? { since: now - sinceMs } : {}),
		});
		if (format !== 'table') {
			const list = sanitizeDeep({
				apiVersion: AUDIT_LIST_VERSION,
				kind: 'AuditList',
				metadata: {
					namespace: all ? '' : ctx.namespace,
					note: AUDIT_TRUST_NOTE,
					oldest: trail.oldest === null ? null : new Date(trail.oldest).toISOString(),
				},
				items: trail.entries.map(auditItem),
			});
			if (format === 'json') io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
			else {
				const { dumpYaml } = await import('@kubernetes/client-node');
				io.stdout.write(dumpYaml(list));
			}
			return EXIT_OK;
		}
		if (trail.entries.length === 0) {
			println(
				io.stderr,
				`No audit lines found${all ? '' : ` in namespace ${ctx.namespace}`}${trail.oldest === null ? '' : ` (oldest ctpool Event ${formatAge(now - trail.oldest)} ago)`}; the cluster keeps Events ~${Math.round(DEFAULT_EVENT_TTL_MS / 3_600_000)}h by default.`,
			);
			return EXIT_OK;
		}
		const headers = [
			'AGE',
			...(all ? ['NAMESPACE'] : []),
			'POOL',
			'ACTION',
			'MEMBER',
			'HOLDER',
			'BY',
			'DETAIL',
		];
		const rows = trail.entries.map((e) => [
			`${formatAge(Math.max(0, now - e.time))}${e.clamped ? '!' : ''}`,
			...(all ? [e.namespace] : []),
			e.pool,
			{ text: auditActionText(e), ...(e.type === 'Warning' ? { color: '33' } : {}) },
			e.member || e.target || '-',
			e.holder || '-',
			auditActorText(e),
			e.detail,
		]);
		for (const line of renderTable(
			headers,
			rows,
			colorEnabled(io.stdout, io.env, args.flags.color !== false),
		))
			println(io.stdout, line);
		if (trail.entries.some((e) => e.clamped))
			println(
				io.stderr,
				'ctpool: "!": the Event stated a time beyond its creation (forged, or a wrong clock); it is shown at its creation.',
			);
		println(io.stderr, `ctpool: ${AUDIT_TRUST_NOTE}`);
		return EXIT_OK;
	});
}
