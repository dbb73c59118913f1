/** The pool status the reconciler records in the definition ConfigMap. */

import { RECONCILER_IDENTITY } from './errors.js';
import { MEMBER_STATES, type MemberState, type MemberView } from './member-state.js';
import type { RolloutProgress } from './rollout.js';

/** One member row of the status. */
export interface StatusMember {
	name: string;
	index: number;
	state: MemberState;
	holder: string;
	claimExpired: boolean;
	maintenance: boolean;
	drifted: boolean;
	aboveSize: boolean;
	node: string;
	message: string;
	/** What differs, for a drifted member (`image: pool desktop:2, pod other:9`); absent otherwise. */
	drift?: string;
}

/** The `status` key of the definition ConfigMap. */
export interface PoolStatus {
	observedAt: string;
	reconciler: string;
	desired: number;
	observed: number;
	ready: number;
	claimed: number;
	free: number;
	unschedulable: number;
	exhausted: boolean;
	/** An extension beside the seed's counts: free members that are Ready (claimable now). */
	claimableNow?: number;
	/** An extension: free members that are Starting or Stopped (claimable once they start). */
	claimableSoon?: number;
	members: StatusMember[];
	errors: string[];
	/** An extension, present only while a rollout runs: its progress (readers may ignore it). */
	rollout?: RolloutProgress;
}

/** The counts of a pool, from its member views. */
export interface PoolCounts {
	desired: number;
	observed: number;
	ready: number;
	claimed: number;
	free: number;
	unschedulable: number;
	/** Members in state Failed (a broken image, a crashing container, a failed pod). */
	failed: number;
	/** Members whose claim expired (held until released or renewed). */
	expired: number;
	drifted: number;
	exhausted: boolean;
	/** Free and Ready: a claim gets a desktop at once. */
	claimableNow: number;
	/** Free and Starting or Stopped: a claim gets one that is still starting. */
	claimableSoon: number;
}

/** Counts over member views (observed = members with a PVC or pod, above size included). */
export function countMembers(size: number, views: readonly MemberView[]): PoolCounts {
	let observed = 0;
	let ready = 0;
	let claimed = 0;
	let free = 0;
	let unschedulable = 0;
	let failed = 0;
	let expired = 0;
	let drifted = 0;
	let claimableNow = 0;
	for (const v of views) {
		if (v.state === 'Failed') failed++;
		if (v.claimExpired) expired++;
		if (v.free && v.state === 'Ready') claimableNow++;
		if (v.state !== 'Missing') observed++;
		if (v.state === 'Ready') ready++;
		if (v.holder || v.corralHolder) claimed++;
		if (v.free) free++;
		if (v.state === 'Unschedulable') unschedulable++;
		if (v.drifted) drifted++;
	}
	return {
		desired: size,
		observed,
		ready,
		claimed,
		free,
		unschedulable,
		failed,
		expired,
		drifted,
		exhausted: observed > 0 && free === 0,
		claimableNow,
		claimableSoon: free - claimableNow,
	};
}

/** The status object for a pool. */
export function buildStatus(
	size: number,
	views: readonly MemberView[],
	errors: readonly string[],
	now: number,
): PoolStatus {
	const c = countMembers(size, views);
	return {
		observedAt: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
		reconciler: RECONCILER_IDENTITY,
		desired: c.desired,
		observed: c.observed,
		ready: c.ready,
		claimed: c.claimed,
		free: c.free,
		unschedulable: c.unschedulable,
		exhausted: c.exhausted,
		claimableNow: c.claimableNow,
		claimableSoon: c.claimableSoon,
		members: views.map((v) => {
			const row: StatusMember = {
				name: v.name,
				index: v.index,
				state: v.state,
				holder: v.holder || v.corralHolder,
				claimExpired: v.claimExpired,
				maintenance: v.maintenance,
				drifted: v.drifted,
				aboveSize: v.aboveSize,
				node: v.node,
				message: v.message,
			};
			if (v.drifted && v.drift.length > 0) row.drift = v.drift.join('; ');
			return row;
		}),
		errors: [...errors],
	};
}

/** True when two statuses say the same, observedAt aside. */
export function sameStatus(a: PoolStatus, b: PoolStatus): boolean {
	return JSON.stringify({ ...a, observedAt: '' }) === JSON.stringify({ ...b, observedAt: '' });
}

/** The most members, errors and characters of a string a recorded status is read with. */
export const STATUS_BOUNDS = {
	members: 10_000,
	errors: 1_000,
	/** The largest count a status may hold (a pool has at most MAX_SIZE members). */
	count: 1_000_000,
	/** Characters of one string; longer ones are cut with `...`. */
	chars: 4_000,
} as const;

/**
 * A recorded status read: the status, or the problem that makes it unreadable (named for
 * the reader: `status: errors is not a list of strings`); both null when there is none.
 */
export type StatusRead =
	| { status: PoolStatus; problem: null }
	| { status: null; problem: string | null };

/** Thrown inside readStatus only, for the one problem it reports. */
class StatusProblem {
	constructor(readonly text: string) {}
}

function fail(text: string): never {
	throw new StatusProblem(`status: ${text}`);
}

type Fields = Record<string, unknown>;

function text(o: Fields, key: string, where: string, max: number = STATUS_BOUNDS.chars): string {
	const v = o[key];
	if (v === undefined || v === null) return '';
	if (typeof v !== 'string') fail(`${where}${key} is not a string`);
	return v.length > max ? `${v.slice(0, max - 3)}...` : v;
}

function whole(o: Fields, key: string, where: string): number {
	const v = o[key];
	if (v === undefined || v === null) return 0;
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > STATUS_BOUNDS.count)
		fail(`${where}${key} is not a whole number 0..${STATUS_BOUNDS.count}`);
	return v;
}

function flag(o: Fields, key: string, where: string): boolean {
	const v = o[key];
	if (v === undefined || v === null) return false;
	if (typeof v !== 'boolean') fail(`${where}${key} is not true or false`);
	return v;
}

function object(v: unknown, what: string): Fields {
	if (!v || typeof v !== 'object' || Array.isArray(v)) fail(`${what} is not an object`);
	return v as Fields;
}

const STATES: ReadonlySet<string> = new Set<string>(MEMBER_STATES);

function member(v: unknown, i: number): StatusMember {
	const where = `members[${i}].`;
	const o = object(v, `members[${i}]`);
	const name = text(o, 'name', where, 253);
	if (!name) fail(`${where}name is missing`);
	const state = o.state === undefined ? 'Missing' : o.state;
	if (typeof state !== 'string' || !STATES.has(state))
		fail(`${where}state is not one of ${MEMBER_STATES.join(', ')}`);
	const row: StatusMember = {
		name,
		index: whole(o, 'index', where),
		state: state as MemberState,
		holder: text(o, 'holder', where),
		claimExpired: flag(o, 'claimExpired', where),
		maintenance: flag(o, 'maintenance', where),
		drifted: flag(o, 'drifted', where),
		aboveSize: flag(o, 'aboveSize', where),
		node: text(o, 'node', where, 253),
		message: text(o, 'message', where),
	};
	if (o.drift !== undefined && o.drift !== null) row.drift = text(o, 'drift', where);
	return row;
}

function list(v: unknown, key: string, max: number): unknown[] {
	if (v === undefined || v === null) return [];
	if (!Array.isArray(v)) fail(`${key} is not a list`);
	if (v.length > max) fail(`${key} has ${v.length} entries, more than ${max}`);
	return v;
}

/**
 * Reads a recorded status, every field checked: counts are whole numbers 0..1e6, flags
 * booleans, member states known ones, strings cut at 4,000 characters, at most 10,000
 * members and 1,000 errors. An absent field reads as empty (0, false, ''); a field of the
 * wrong shape makes the whole status unreadable, with the problem named. Never throws.
 */
export function readStatus(raw: unknown): StatusRead {
	if (raw === undefined || raw === null || raw === '') return { status: null, problem: null };
	try {
		if (typeof raw !== 'string') fail('is not text');
		let parsed: unknown;
		try {
			parsed = JSON.parse(raw);
		} catch {
			fail('is not JSON');
		}
		const o = object(parsed, 'the status');
		if (!Array.isArray(o.members)) fail('members is not a list');
		const members = list(o.members, 'members', STATUS_BOUNDS.members).map(member);
		const errors = list(o.errors, 'errors', STATUS_BOUNDS.errors).map((e, i) => {
			if (typeof e !== 'string') fail(`errors[${i}] is not a string`);
			return e.length > STATUS_BOUNDS.chars ? `${e.slice(0, STATUS_BOUNDS.chars - 3)}...` : e;
		});
		const status: PoolStatus = {
			observedAt: text(o, 'observedAt', '', 64),
			reconciler: text(o, 'reconciler', '', 253),
			desired: whole(o, 'desired', ''),
			observed: whole(o, 'observed', ''),
			ready: whole(o, 'ready', ''),
			claimed: whole(o, 'claimed', ''),
			free: whole(o, 'free', ''),
			unschedulable: whole(o, 'unschedulable', ''),
			exhausted: flag(o, 'exhausted', ''),
			// in buildStatus's order: sameStatus compares the JSON
			...(o.claimableNow !== undefined ? { claimableNow: whole(o, 'claimableNow', '') } : {}),
			...(o.claimableSoon !== undefined ? { claimableSoon: whole(o, 'claimableSoon', '') } : {}),
			members,
			errors,
		};
		if (o.rollout !== undefined && o.rollout !== null) {
			const r = object(o.rollout, 'rollout');
			const image = text(r, 'image', 'rollout.', 512);
			status.rollout = {
				target: text(r, 'target', 'rollout.', 64),
				...(image ? { image } : {}),
				updated: whole(r, 'updated', 'rollout.'),
				total: whole(r, 'total', 'rollout.'),
			};
		}
		return { status, problem: null };
	} catch (err) {
		if (err instanceof StatusProblem) return { status: null, problem: err.text };
		return { status: null, problem: 'status: unreadable' };
	}
}

/** A recorded status, checked (see readStatus); null when absent or unreadable. Never throws. */
export function parseStatus(text: unknown): PoolStatus | null {
	return readStatus(text).status;
}

/**
 * Why a pool's desired members are not free, each member counted once, in this order:
 * claimed, blocked by a stranger's object under its name, being rebuilt (missing, terminating, or the reconciler holds its Lease), in
 * maintenance, failed, unschedulable, drifted; free is what is left. The parts add up to
 * desired.
 */
export interface Shortfall {
	desired: number;
	claimed: number;
	/** Blocked by an object under the member's name that is not the pool's (a stranger's). */
	foreign: number;
	rebuilding: number;
	maintenance: number;
	failed: number;
	unschedulable: number;
	drifted: number;
	free: number;
}

/** The shortfall of a pool from its member views (members above size are not desired). */
export function shortfall(size: number, views: readonly MemberView[]): Shortfall {
	const s: Shortfall = {
		desired: size,
		claimed: 0,
		foreign: 0,
		rebuilding: 0,
		maintenance: 0,
		failed: 0,
		unschedulable: 0,
		drifted: 0,
		free: 0,
	};
	for (const v of views) {
		if (v.index > size) continue;
		if (v.holder || v.corralHolder) s.claimed++;
		else if (v.foreign.length > 0) s.foreign++;
		else if (v.reconciling || v.state === 'Missing' || v.state === 'Terminating') s.rebuilding++;
		else if (v.maintenance) s.maintenance++;
		else if (v.state === 'Failed') s.failed++;
		else if (v.state === 'Unschedulable') s.unschedulable++;
		else if (v.free) s.free++;
		else if (v.drifted) s.drifted++;
		// a Lease with no holder: nobody can claim it until --force; counted as claimed
		else s.claimed++;
	}
	return s;
}
