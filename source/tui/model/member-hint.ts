/**
 * What to do now about a member that is not Ready, and about a troubled pool: the console's
 * hints, from the member's row and objects, the pool's rows, and inputs read on demand (the
 * nodes' free room for an Unschedulable member, the last log lines of a crashing one).
 * Pure: plain data in, lines out.
 */

import {
	type CommandScope,
	ctpoolCommand,
	failureKind,
	fitCount,
	formatCpu,
	formatMemory,
	formatRequests,
	freeOn,
	isImagePullKind,
	largestNode,
	type NodeRoom,
	type PodObject,
	type PoolSpec,
	podRequests,
	recordedStorm,
	replaceHeldUntil,
	roomiestNode,
} from '../../pool/index.js';
import { clockTime, formatAge } from '../../text/age.js';
import type { MemberRow } from './member-row.js';
import type { PoolDerivation } from './pool-derivation.js';
import { poolNamespace } from './pool-index.js';

/** Something read on demand for a hint: the value, or why it cannot be shown. */
export type Lookup<T> = { value: T } | { unavailable: string };

/** What a hint may need, read when the details open (absent: still reading). */
export interface HintInputs {
	/** The room on every node (for an Unschedulable member). */
	rooms?: Lookup<NodeRoom[]>;
	/** The last lines of the container's previous run (for a crashing member). */
	log?: Lookup<string[]>;
}

/** One line of a hint. */
export interface HintLine {
	label: string;
	text: string;
	tone?: 'warn' | 'error' | 'muted';
}

/** What a member hint needs of its pool. */
export interface HintPool {
	name: string;
	/** The pool's namespace, and what a suggested command needs to reach it as printed. */
	namespace: string;
	scope: CommandScope;
	spec: PoolSpec | null;
	rows: readonly MemberRow[];
	/** The recorded status says replacing is stopped (a replace storm). */
	stormStopped: boolean;
}

/** What a hint needs of a derived pool in its namespace (scope: the console's -n and --context). */
export function hintPool(p: PoolDerivation, namespace: string, scope: CommandScope): HintPool {
	return {
		name: p.pool,
		namespace,
		scope,
		spec: p.spec,
		rows: p.rows,
		stormStopped: recordedStorm(p.recorded?.errors, p.pool) !== null,
	};
}

/** The hint pool of the pool keyed `key` in the console's session (its namespace, -n and --context). */
export function sessionHintPool(
	session: { namespace: string; commandScope?: CommandScope },
	key: string,
	p: PoolDerivation,
): HintPool {
	return hintPool(p, poolNamespace(key, session.namespace), session.commandScope ?? {});
}

/** The permissions the node room needs, for a hint that cannot show it. */
export const NODE_ROOM_NEEDS = 'list on nodes, and on pods in all namespaces';

/** How many log lines a crash hint shows. */
export const HINT_LOG_LINES = 5;

/** The image line: what the pool asks for and what the kubelet actually runs. */
export function imageLine(pod: PodObject | null): HintLine | null {
	if (!pod) return null;
	const spec = pod.spec?.containers?.[0]?.image ?? '-';
	const cs = pod.status?.containerStatuses?.[0];
	const running = cs?.imageID ? `running ${cs.imageID}` : 'not pulled yet';
	return { label: 'Image', text: `${spec} · ${running}` };
}

/** Members within size Failed with an image pull error, and whether they are most of the pool. */
export function pullFailures(pool: HintPool): { count: number; most: boolean } {
	const size = pool.spec?.size ?? 0;
	const count = pool.rows.filter(
		(r) => !r.aboveSize && r.state === 'Failed' && isImagePullKind(failureKind(r.message)),
	).length;
	return { count, most: size > 0 && count * 2 > size };
}

/** A ctpool command on the pool, runnable as printed (its namespace and context). */
function onPool(pool: HintPool, words: string): string {
	return ctpoolCommand(words.replace('{pool}', pool.name), pool.namespace, pool.scope);
}

function applyImage(pool: HintPool): string {
	return onPool(pool, 'apply {pool} --image <image>');
}

function unschedulableHint(pod: PodObject | null, pool: HintPool, inputs: HintInputs): HintLine[] {
	const req = podRequests(pod ?? {});
	const needs = `needs ${formatRequests(req)}`;
	const rooms = inputs.rooms;
	if (!rooms) return [{ label: 'Do', text: `${needs}; reading the nodes' free room…` }];
	if ('unavailable' in rooms)
		return [
			{
				label: 'Do',
				text: `${needs}; the nodes' free room is not shown: ${rooms.unavailable} (it needs ${NODE_ROOM_NEEDS}); the scheduler's message above says why it waits`,
				tone: 'warn',
			},
		];
	const best = roomiestNode(rooms.value, req);
	if (!best)
		return [
			{
				label: 'Do',
				text: `${needs}; no node takes new pods (all cordoned or not Ready)`,
				tone: 'error',
			},
		];
	const free = freeOn(best);
	const lines: HintLine[] = [
		{
			label: 'Do',
			text: `${needs}; the roomiest node, ${best.name}, has ${formatRequests(free)} free`,
			tone: 'warn',
		},
	];
	const big = largestNode(rooms.value);
	if (big) {
		const fit = fitCount(big.allocatable, req);
		const like = `cpu ${formatCpu(big.allocatable.milliCpu)}, memory ${formatMemory(big.allocatable.memory)}`;
		const lower = onPool(pool, 'apply {pool} --cpu <cores> --mem <memory>');
		lines.push({
			label: '',
			text:
				fit > 0
					? `${fit} more fit when a node like ${big.name} (${like}) is added; or lower the pool's cpu/memory: ${lower}`
					: `even an empty ${big.name} (${like}) cannot hold it: lower the pool's cpu/memory (${lower}), or add a larger node`,
		});
	}
	return lines;
}

function crashHint(pod: PodObject | null, inputs: HintInputs): HintLine[] {
	const cs = pod?.status?.containerStatuses?.[0];
	const restarts = cs?.restartCount ?? 0;
	const head: HintLine = {
		label: 'Do',
		text: `the container keeps crashing (${restarts} restart${restarts === 1 ? '' : 's'}); its image's command or the data on its PVC: the last lines of its previous run:`,
		tone: 'error',
	};
	const log = inputs.log;
	if (!log) return [head, { label: '', text: '  reading the log…', tone: 'muted' }];
	if ('unavailable' in log)
		return [head, { label: '', text: `  the log is not shown: ${log.unavailable}`, tone: 'warn' }];
	if (log.value.length === 0)
		return [head, { label: '', text: '  (it wrote nothing)', tone: 'muted' }];
	return [head, ...log.value.slice(-HINT_LOG_LINES).map((l) => ({ label: '', text: `  ${l}` }))];
}

/** What reconcile does next about a Failed member (backoff, storm, or a replace now). */
function replaceNext(row: MemberRow, pool: HintPool, now: number): string {
	if (row.holder) return `claimed by ${row.holder}: reconcile leaves it; x force-releases it`;
	if (row.maintenance) return 'in maintenance: reconcile leaves it; m ends the maintenance';
	if (pool.stormStopped)
		return 'replacing is stopped (most of the pool fails the same way); it resumes once the definition changes or members recover';
	const until = replaceHeldUntil(row, now);
	if (until !== null)
		return `replaced ${row.replaces} time${row.replaces === 1 ? '' : 's'} after failures; the next replace waits until ${clockTime(until)} (in ${formatAge(until - now)})`;
	return 'the next reconcile replaces it (r reconciles now)';
}

/**
 * The "what to do now" lines of a member: why it is not Ready and the way out. None for a
 * Ready member with nothing to say.
 */
export function memberHint(
	row: MemberRow,
	pod: PodObject | null,
	pool: HintPool,
	inputs: HintInputs,
	now: number,
): HintLine[] {
	const lines: HintLine[] = [];
	if (row.state === 'Unschedulable') lines.push(...unschedulableHint(pod, pool, inputs));
	else if (row.state === 'Failed') {
		const kind = failureKind(row.message);
		if (isImagePullKind(kind)) {
			const pulls = pullFailures(pool);
			lines.push({
				label: 'Do',
				text: pulls.most
					? `the pool image ${pool.spec?.image ?? ''} cannot be pulled (${pulls.count} of ${pool.spec?.size ?? 0} members): fix it in the registry, or change it with: ${applyImage(pool)}`
					: `its image cannot be pulled on node ${row.node || '?'} while other members pull it: look at that node's registry access`,
				tone: 'error',
			});
		} else if (kind === 'CrashLoopBackOff') lines.push(...crashHint(pod, inputs));
		lines.push({ label: lines.length === 0 ? 'Do' : '', text: replaceNext(row, pool, now) });
	} else if (row.state === 'Stopped')
		lines.push({
			label: 'Do',
			text: 'it has no pod: the next reconcile starts it (r reconciles now)',
		});
	else if (row.state === 'Missing')
		lines.push({ label: 'Do', text: 'the next reconcile creates it (r reconciles now)' });
	if (row.drifted) {
		const what = row.drift.length > 0 ? row.drift.join('; ') : 'its source hash';
		const then = row.holder
			? `it is replaced once ${row.holder} releases it (x force-releases it now)`
			: row.maintenance
				? 'it is replaced once its maintenance ends'
				: row.waitsForWave
					? 'it stays claimable with the old image until its wave of the rollout replaces it'
					: 'the next reconcile replaces it';
		lines.push({
			label: lines.length === 0 ? 'Do' : '',
			text: `differs from the pool: ${what}; ${then}`,
			tone: 'warn',
		});
	}
	if (row.claimExpired) {
		const since =
			row.claimedAt === null
				? ''
				: `, claimed at ${clockTime(row.claimedAt)} (${formatAge(now - row.claimedAt)} ago)`;
		const expired =
			row.leaseExpiresAt === null
				? 'has no readable expiry'
				: `expired ${formatAge(now - row.leaseExpiresAt)} ago`;
		lines.push({
			label: lines.length === 0 ? 'Do' : '',
			text: `the claim of ${row.holder} ${expired}${since}; it still protects the desktop: x force-releases it (destroys its data), or ${row.holder} renews it by claiming again`,
			tone: 'warn',
		});
	}
	return lines;
}

/** The members of a pool (within size) in a state. */
function countIn(pool: HintPool, state: string): number {
	return pool.rows.filter((r) => !r.aboveSize && r.state === state).length;
}

/** A count with its noun, singular or plural (`1 member`, `2 members`). */
function plural(n: number, noun: string): string {
	return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * What to do about a troubled pool on the pools screen: every cause, the most urgent first
 * (an image that cannot be pulled, members that wait for room, Failed members, expired
 * claims), or null when the pool needs nothing.
 */
export function poolHint(pool: HintPool): string | null {
	const causes: string[] = [];
	const pulls = pullFailures(pool);
	if (pool.stormStopped)
		causes.push(
			pulls.most
				? `the pool image cannot be pulled; replacing stopped. Change the image: ${applyImage(pool)}`
				: 'most members fail the same way; replacing stopped. Enter, then Enter on a member',
		);
	else if (pulls.most)
		causes.push(`the pool image cannot be pulled; change it: ${applyImage(pool)}`);
	const unsched = countIn(pool, 'Unschedulable');
	if (unsched > 0)
		causes.push(
			`${plural(unsched, 'member')} wait${unsched === 1 ? 's' : ''} for room on the nodes; Enter, then Enter on one: what it needs against what the nodes have`,
		);
	// the members that fail to pull are told above
	const failed = countIn(pool, 'Failed') - (pulls.most ? pulls.count : 0);
	if (failed > 0)
		causes.push(`${plural(failed, 'member')} Failed; Enter, then Enter on one for what to do`);
	const expired = pool.rows.filter((r) => r.claimExpired).length;
	if (expired > 0)
		causes.push(
			`${plural(expired, 'expired claim')}; * releases the expired claims after one confirmation`,
		);
	return causes.length > 0 ? `${pool.name}: ${causes.join(' · ')}` : null;
}
