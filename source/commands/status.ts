/** ctpool status: the live state of a pool's members. Changes nothing. */

import type { PlacedSnapshot, PoolSnapshot } from '../engine/read-pool.js';
import {
	type MemberView,
	memberProblems,
	notFreeReason,
	shownHolder,
} from '../pool/member-state.js';
import { rolloutProgress, rolloutText } from '../pool/rollout.js';
import { sourceHash } from '../pool/source-hash.js';
import { sourceFields } from '../pool/spec.js';
import { buildStatus } from '../pool/status.js';
import { formatAge } from '../text/age.js';
import { bounded, sanitize, sanitizeDeep } from '../text/sanitize.js';
import { runCommand, stringFlag } from './command.js';
import { statusCommand } from './command-specs.js';
import { EXIT_FAILED, EXIT_OK, usageError } from './failure.js';
import { renderTable, stateColor } from './format.js';
import { type CommandIo, colorEnabled, println } from './io.js';
import { volumeWaits } from './reconcile-output.js';
import { connect } from './session.js';
import { checkArgs, checkPoolArg } from './values.js';

const FORMATS = ['table', 'json', 'yaml'] as const;

/** The flags beside a member's state, as one word list. */
export function memberFlags(v: MemberView): string {
	const flags: string[] = [];
	if (v.claimExpired) flags.push('expired');
	if (v.reconciling) flags.push('reconciling');
	if (v.maintenance) flags.push('maintenance');
	if (v.drifted) flags.push('drifted');
	if (v.aboveSize) flags.push('above-size');
	if (v.foreign.length > 0) flags.push('foreign');
	if (v.leaseProblem) flags.push('stranded');
	if (v.corralClaim) flags.push('corral-claim');
	if (v.free) flags.push('free');
	return flags.join(',');
}

/**
 * The problems no reconcile step resolves, as found now (strangers under a member's name, a
 * Lease whose times make no sense), one line each with its way out.
 */
export function liveProblems(snap: PoolSnapshot): string[] {
	// a member of an unreadable object: its object's problem says it (not a stranger's)
	const unreadable = snap.unreadable ?? [];
	const named = new Set(unreadable.map((u) => u.member));
	return [
		...unreadable.map((u) => u.problem),
		...snap.members.filter((v) => !named.has(v.name)).flatMap(memberProblems),
	];
}

/**
 * The status object of the contract, computed live: its errors are the problems found now,
 * then those the last reconcile recorded.
 */
export function liveStatus(snap: PoolSnapshot, now: number) {
	const errors = [...new Set([...liveProblems(snap), ...(snap.recorded?.errors ?? [])])];
	const status = buildStatus(snap.counts.desired, snap.members, errors, now);
	const rollout = liveRollout(snap);
	if (rollout) status.rollout = rollout;
	return status;
}

/** The rollout under way as the members show it now (null when none runs). */
function liveRollout(snap: PoolSnapshot) {
	return snap.spec
		? rolloutProgress(snap.members, sourceHash(sourceFields(snap.spec)), snap.spec.image)
		: null;
}

function printTable(io: CommandIo, snap: PoolSnapshot, now: number, color: boolean): void {
	const s = snap.spec;
	const head = s
		? `pool ${snap.pool}   image ${bounded(s.image)}   size ${s.size}   cpu ${s.cpu}   memory ${s.memory}   disk ${s.disk}${s.privileged ? '   privileged' : ''}${s.init ? '   init' : ''}${s.mode !== 'ephemeral' ? `   mode ${s.mode}` : ''}`
		: `pool ${snap.pool}   definition unreadable: ${bounded(snap.specError ?? '', 400)}`;
	println(io.stdout, head);
	const c = snap.counts;
	println(
		io.stdout,
		`desired ${c.desired}   observed ${c.observed}   ready ${c.ready}   claimed ${c.claimed}   free ${c.free} (now ${c.claimableNow}, soon ${c.claimableSoon})   unschedulable ${c.unschedulable}${volumeWaits(snap.members, '   ')}   failed ${c.failed}   expired ${c.expired}   drifted ${c.drifted}${c.exhausted ? '   EXHAUSTED' : ''}`,
	);
	const rollout = liveRollout(snap);
	if (rollout) println(io.stdout, rolloutText(rollout));
	println(io.stdout);
	const rows = snap.members.map((v) => [
		v.name,
		{ text: v.state, color: stateColor(v.state) },
		shownHolder(v),
		memberFlags(v),
		v.node,
		v.createdAt === null ? '-' : formatAge(now - v.createdAt),
		v.foreign.length > 0 || v.leaseProblem || v.corralClaim
			? (notFreeReason(v) ?? '')
			: [v.message, v.drifted && v.drift.length > 0 ? `drift: ${v.drift.join('; ')}` : '']
					.filter(Boolean)
					.join('; '),
	]);
	for (const line of renderTable(
		['NAME', 'STATE', 'HOLDER', 'FLAGS', 'NODE', 'AGE', 'MESSAGE'],
		rows,
		color,
	))
		println(io.stdout, line);
	const problems = liveProblems(snap);
	if (problems.length > 0) {
		println(io.stdout);
		println(io.stdout, 'problems now:');
		for (const e of problems) println(io.stdout, `  ${bounded(e, 400)}`);
	}
	if (snap.statusProblem) {
		println(io.stdout);
		println(io.stdout, `the recorded status is unreadable: ${bounded(snap.statusProblem, 400)}`);
	}
	const errors = snap.recorded?.errors ?? [];
	if (errors.length > 0) {
		println(io.stdout);
		println(io.stdout, 'errors of the last reconcile:');
		for (const e of errors) println(io.stdout, `  ${bounded(e, 400)}`);
	}
}

/** The summary of many pools: a table (NAMESPACE first with -A), or the items as JSON/YAML. */
async function printPools(
	io: CommandIo,
	placed: readonly PlacedSnapshot[],
	o: { format: string; allNamespaces: boolean; namespace: string; now: number; color: boolean },
): Promise<number> {
	const broken = placed.filter((p) => p.snapshot.specError);
	for (const p of broken)
		println(
			io.stderr,
			`ctpool: ${sanitize(p.namespace)}/${sanitize(p.snapshot.pool)}: ${sanitize(p.snapshot.specError ?? '')}`,
		);
	const exit = broken.length > 0 ? EXIT_FAILED : EXIT_OK;
	if (o.format !== 'table') {
		const items = placed.map((p) => ({
			namespace: p.namespace,
			pool: p.snapshot.pool,
			status: liveStatus(p.snapshot, o.now),
			error: p.snapshot.specError,
		}));
		const out = sanitizeDeep({ items });
		if (o.format === 'json') io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
		else {
			const { dumpYaml } = await import('@kubernetes/client-node');
			io.stdout.write(dumpYaml(out));
		}
		return exit;
	}
	if (placed.length === 0) {
		println(
			io.stderr,
			`No pools found ${o.allNamespaces ? 'in any namespace' : `in namespace ${sanitize(o.namespace)}`}; define one with ctpool apply`,
		);
		return exit;
	}
	const rows = placed.map(({ namespace, snapshot: snap }) => {
		const c = snap.counts;
		const cells: Array<string | { text: string; color?: string }> = [
			snap.pool,
			snap.spec ? `${snap.spec.size}/${c.observed}` : `?/${c.observed}`,
			String(c.ready),
			String(c.claimed),
			String(c.free),
			String(c.unschedulable),
			String(c.failed),
			String(c.expired),
			String(c.drifted),
			c.exhausted ? 'EXHAUSTED' : 'no',
			snap.specError
				? `definition unreadable: ${snap.specError}`
				: snap.spec
					? bounded(snap.spec.image)
					: '',
		];
		return o.allNamespaces ? [namespace, ...cells] : cells;
	});
	const headers = [
		'POOL',
		'SIZE/OBS',
		'READY',
		'CLAIMED',
		'FREE',
		'UNSCHED',
		'FAILED',
		'EXPIRED',
		'DRIFTED',
		'EXHAUSTED',
		'IMAGE',
	];
	for (const line of renderTable(
		o.allNamespaces ? ['NAMESPACE', ...headers] : headers,
		rows,
		o.color,
	))
		println(io.stdout, line);
	return exit;
}

/** Runs `ctpool status`. */
export function runStatus(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(statusCommand, argv, io, async (args) => {
		checkArgs('status', args.input, [], ['pool']);
		const pool = args.input[0];
		const allNamespaces = args.flags.allNamespaces === true;
		if (pool !== undefined) checkPoolArg('status', pool);
		if (pool !== undefined && allNamespaces)
			throw usageError(
				'status',
				'a pool cannot be shown by name across all namespaces (as kubectl); name its namespace with -n, or drop the pool to list every pool with -A',
			);
		const format = stringFlag(args, 'output') ?? 'table';
		if (!(FORMATS as readonly string[]).includes(format))
			throw usageError(
				'status',
				`-o ${JSON.stringify(sanitize(format).slice(0, 20))} is not an output format; use table, json or yaml`,
			);
		const { ctx, engine } = await connect(args.flags, io);
		if (pool === undefined) {
			const placed = await engine.listPoolsAcross(allNamespaces);
			return printPools(io, placed, {
				format,
				allNamespaces,
				namespace: ctx.namespace,
				now: ctx.now(),
				color: colorEnabled(io.stdout, io.env, args.flags.color !== false),
			});
		}
		const snap = await engine.readPool(pool);
		const now = ctx.now();
		// An unreadable definition is shown, and also fails the command so that scripts notice.
		const exit = snap.specError ? EXIT_FAILED : EXIT_OK;
		if (snap.specError) println(io.stderr, `ctpool: ${sanitize(snap.specError)}`);
		if (format === 'table') {
			printTable(io, snap, now, colorEnabled(io.stdout, io.env, args.flags.color !== false));
			return exit;
		}
		const status = sanitizeDeep(liveStatus(snap, now));
		if (format === 'json') io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
		else {
			const { dumpYaml } = await import('@kubernetes/client-node/dist/yaml.js');
			io.stdout.write(dumpYaml(status));
		}
		return exit;
	});
}
