/**
 * Issue 14 in the console: pools of every namespace (-A) with a NAMESPACE column, the find on
 * the pools screen (`/bob`, Enter opens bob's member), and the picture of a pool (sparklines
 * of claimed and claimable members, the exhaustion banner) at 80x24 and 120x40.
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../source/pool/audit.js';
import { findMembers } from '../../source/pool/find.js';
import {
	claimedBefore,
	exhaustionBanner,
	HISTORY_SAMPLES,
	recordHistory,
	SAMPLE_MS,
	sparkline,
	totalExhaustions,
} from '../../source/tui/model/pool-history.js';
import { PoolIndex, poolKey, splitPoolKey } from '../../source/tui/model/pool-index.js';
import { picture } from '../../source/tui/views/pool-picture.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { configMap, deletes, inNamespace, member, NOW, upserts } from './fixtures.js';
import { lines, lineWith, recordingOps, storeAcross, storeWith } from './helpers.js';
import { flush, KEY, type RenderedConsole, renderConsole } from './render-console.js';

/** An audit line of pool desk, at seconds before NOW. */
function act(action: AuditEntry['action'], secondsAgo: number, over: Partial<AuditEntry> = {}) {
	return {
		time: NOW - secondsAgo * 1000,
		namespace: 'corral',
		pool: 'desk',
		member: 'desk-1',
		action,
		reason: action,
		type: 'Normal',
		holder: 'u@example.com',
		identity: '',
		actor: 'u@example.com',
		user: '',
		force: false,
		clamped: false,
		count: 1,
		target: '',
		detail: '',
		message: `${action} desk-1`,
		name: `ev-${action}-${secondsAgo}-${over.pool ?? 'desk'}`,
		instance: '',
		...over,
	} satisfies AuditEntry;
}

/** Two minutes of Events before NOW: claims and releases of desk, a renewal, another pool. */
function trailBefore(): AuditEntry[] {
	return [
		act('claim', 15, { pool: 'lab' }),
		act('claim', 25, { member: 'desk-2' }),
		act('renew', 40),
		act('claim', 55),
		act('release', 75, { force: true }),
		act('claim', 95),
		act('renew', 120, { member: 'desk-2' }),
	];
}

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

/** Three pools in two namespaces (desk in both); bob holds team-a's desk-2, alice team-b's desk-1. */
function acrossNamespaces() {
	const two = spec({ size: 2 });
	const one = spec({ size: 1 });
	return storeAcross([
		...inNamespace('team-a', [
			configMap('desk', two),
			...member('desk', 1, two),
			...member('desk', 2, two, { holder: 'bob@example.com', claimedAgo: 90_000 }),
			configMap('lab', one),
			...member('lab', 1, one),
		]),
		...inNamespace('team-b', [
			configMap('desk', one),
			...member('desk', 1, one, { holder: 'alice@example.com' }),
		]),
	]);
}

describe('the pool index across namespaces', () => {
	it('keys pools namespace/pool and keeps same-named objects of two namespaces apart', () => {
		const store = acrossNamespaces();
		const s = store.getState();
		expect(s.poolNames).toEqual(['team-a/desk', 'team-a/lab', 'team-b/desk']);
		expect(s.pools['team-a/desk']?.counts.claimed).toBe(1);
		expect(s.pools['team-b/desk']?.counts.exhausted).toBe(true);
		expect(s.pools['team-b/desk']?.rows.map((m) => m.holder)).toEqual(['alice@example.com']);
		expect(splitPoolKey('team-a/desk')).toEqual({ namespace: 'team-a', pool: 'desk' });
		expect(splitPoolKey('desk')).toEqual({ namespace: null, pool: 'desk' });
		expect(poolKey(null, 'desk')).toBe('desk');
	});

	it('a relist of a kind empties that kind in the namespaces it no longer names', () => {
		const one = spec({ size: 1 });
		const index = new PoolIndex(true);
		const a = inNamespace('a', member('desk', 1, one));
		const b = inNamespace('b', member('desk', 1, one));
		index.apply(upserts([...a, ...b]));
		const pods = [...a, ...b].filter((o) => o.kind === 'Pod');
		expect(index.resolve('b/desk').index.memberObjects('desk-1').pod).not.toBeNull();
		const dirty = index.apply([
			{ kind: 'pods', op: 'reset', objects: pods.filter((p) => p.metadata.namespace === 'a') },
		]);
		expect(index.resolve('b/desk').index.memberObjects('desk-1').pod).toBeNull();
		expect(index.resolve('a/desk').index.memberObjects('desk-1').pod).not.toBeNull();
		expect([...dirty.keys()].sort()).toEqual(['a/desk', 'b/desk']);
		index.apply(deletes(inNamespace('a', member('desk', 1, one))));
		expect(index.poolKeys()).toEqual(['b/desk']);
	});
});

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('across pools at %ix%i', (columns, rows) => {
	const fits = (frame: string) => {
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		expect(lines(frame).length).toBeLessThanOrEqual(rows - 1);
	};

	it('the pools screen of -A has a NAMESPACE column and says all namespaces', async () => {
		r = await renderConsole(acrossNamespaces(), { columns, rows });
		const frame = r.lastFrame();
		fits(frame);
		expect(lineWith(frame, 'ctpool')).toContain('pools (3) · all namespaces');
		expect(lineWith(frame, 'POOL')).toMatch(/^NAMESPACE\s+POOL\s+.*SIZE\/OBS/);
		expect(lines(frame).filter((l) => /^team-[ab]\s+(desk|lab)\s/.test(l))).toHaveLength(3);
		// opening a pool shows its members in its namespace
		await r.press(KEY.down, KEY.down, KEY.enter);
		const members = r.lastFrame();
		expect(lineWith(members, 'ctpool')).toContain('pool desk · ns team-b');
		expect(members).toMatch(/^desk-1\s+Ready\s+alice@example\.com/m);
		fits(members);
	});

	it('/bob lists the hit with its namespace; Enter opens bob’s member in its pool', async () => {
		const store = acrossNamespaces();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('/', 'b', 'o', 'b');
		const frame = r.lastFrame();
		fits(frame);
		expect(frame).toContain('find bob: 1 hit in 3 pools');
		expect(lineWith(frame, 'MEMBER')).toMatch(/^NAMESPACE\s+POOL\s+MEMBER\s+STATE\s+HOLDER/);
		expect(frame).toMatch(/^team-a\s+desk\s+desk-2\s+Ready\s+bob@example\.com\s+90s$/m);
		expect(lineWith(frame, '/ bob')).toContain('Enter opens');
		await r.press(KEY.enter);
		const s = store.getState();
		expect(s.screen).toBe('details');
		expect(s.pool).toBe('team-a/desk');
		expect(s.selected).toBe('desk-2');
		expect(calls).toContainEqual(['loadEvents', 'desk-2']);
		expect(lineWith(r.lastFrame(), 'ctpool')).toContain('pool desk · ns team-a');
		// back to its members, then to the pools screen, where the find is kept until Esc
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
		await r.press(KEY.escape);
		expect(r.lastFrame()).toContain('find bob: 1 hit');
		await r.press(KEY.escape);
		expect(r.lastFrame()).not.toContain('find bob');
		expect(lineWith(r.lastFrame(), 'POOL')).toMatch(/^NAMESPACE\s+POOL/);
	});

	it('a find picks among several hits with the arrows, and says when nothing matches', async () => {
		const store = acrossNamespaces();
		r = await renderConsole(store, { columns, rows });
		await r.press('/', 'd', 'e', 's', 'k');
		expect(r.lastFrame()).toContain('find desk: 3 hits');
		await r.press(KEY.down, KEY.down, KEY.enter);
		expect(store.getState().pool).toBe('team-b/desk');
		expect(store.getState().selected).toBe('desk-1');
		await r.press(KEY.escape, KEY.escape, KEY.escape, '/', 'z', 'z');
		expect(r.lastFrame()).toContain('no pool, member or holder matches "zz"');
		await r.press(KEY.enter);
		expect(r.lastFrame()).toContain('nothing matches "zz"');
		expect(store.getState().screen).toBe('pools');
	});

	it('one namespace: no NAMESPACE column, and the find works the same', async () => {
		const s = spec({ size: 2 });
		const store = storeWith([...member('desk', 1, s, { holder: 'bob@example.com' })], {
			spec: s,
			pool: null,
		});
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), 'POOL')).toMatch(/^POOL\s+.*SIZE\/OBS/);
		await r.press('/', 'b', 'o', 'b');
		expect(lineWith(r.lastFrame(), 'MEMBER')).toMatch(/^POOL\s+MEMBER\s+STATE\s+HOLDER/);
		await r.press(KEY.enter);
		expect(store.getState().pool).toBe('desk');
		expect(store.getState().selected).toBe('desk-1');
	});

	it('the picture: sparklines over the watched time and EXHAUSTED since when, never cut', async () => {
		const s = spec({ size: 2 });
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], {
			spec: s,
			session: { context: 'arn:aws:eks:eu-west-1:123456789012:cluster/corral-production' },
		});
		store.getState().tick(NOW);
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), ' · claimable')).toMatch(/^claimed 0 \S* · claimable 2 \S+$/);
		// a minute: one member claimed, then the other
		const claim = (i: number, at: number) => {
			store
				.getState()
				.applyBatch(
					upserts(member('desk', i, s, { holder: `u${i}@example.com`, claimedAgo: NOW - at })),
				);
		};
		let t = NOW;
		for (let k = 1; k <= 6; k++) {
			t += SAMPLE_MS;
			if (k === 2) claim(1, t);
			if (k === 4) claim(2, t);
			store.getState().tick(t);
		}
		t += 12 * 60_000;
		store.getState().tick(t);
		await flush();
		const frame = r.lastFrame();
		fits(frame);
		const picture = lineWith(frame, ' · claimable');
		// the second claim arrived while the clock said NOW + 3 samples
		const when = new Date(NOW + 3 * SAMPLE_MS);
		const hhmm = `${String(when.getHours()).padStart(2, '0')}:${String(when.getMinutes()).padStart(2, '0')}`;
		expect(picture).toMatch(new RegExp(`EXHAUSTED since ${hhmm} \\(12m\\)$`));
		expect(picture).toMatch(/^claimed 2 [▁-█]+ · claimable 0 [▁-█]+ {2}EXHAUSTED/);
		// the claimed line rises, the claimable line falls
		const [claimed, claimable] = picture.match(/[▁-█]+/g) ?? [];
		expect(claimed?.at(0)).toBe('▁');
		expect(claimed?.at(-1)).toBe('█');
		expect(claimable?.at(0)).toBe('█');
		expect(claimable?.at(-1)).toBe('▁');
		// the header keeps its alarm word too
		expect(lines(frame)[2]).toMatch(/^EXHAUSTED\s+des(ired)? 2/);
		expect(store.getState().history.desk?.exhaustions).toBe(1);
	});

	it('the picture reaches back before the console started, dim, as far as Events allow', async () => {
		const s = spec({ size: 2 });
		const store = storeWith(
			[
				...member('desk', 1, s, { holder: 'u1@example.com' }),
				...member('desk', 2, s, { holder: 'u2@example.com' }),
			],
			{ spec: s },
		);
		store.getState().auditChange({ reset: trailBefore() });
		store.getState().setAuditStatus('live');
		store.getState().tick(NOW);
		r = await renderConsole(store, { columns, rows });
		const frame = r.lastFrame();
		fits(frame);
		const line = lineWith(frame, ' · claimable');
		expect(line).toMatch(
			/^claimed 2 [▁-█]+ · claimable 0 [▁-█]+ {2}EXHAUSTED since ≤\d\d:\d\d \(0s\)$/,
		);
		const [claimed, claimable] = line.match(/[▁-█]+/g) ?? [];
		// watched: the first sample and now; before them the rebuilt claims (0, 1, 0, 1, 2)
		expect(claimable).toBe('▁▁');
		expect(claimed?.length).toBeGreaterThan(10);
		expect(claimed).toMatch(/▁▁▅▅▅████$/);
	});
});

describe('pool history', () => {
	const one = spec({ size: 1 });
	const pools = (exhausted: boolean) => {
		const store = storeWith(
			member('desk', 1, one, exhausted ? { holder: 'bob@example.com' } : {}),
			{ spec: one },
		);
		return store.getState().pools;
	};

	it('samples every SAMPLE_MS into a bounded ring, and counts each exhaustion once', () => {
		const free = pools(false);
		const full = pools(true);
		let h = recordHistory({}, free, NOW, true);
		expect(h.desk?.samples).toHaveLength(1);
		expect(recordHistory(h, free, NOW + SAMPLE_MS - 1, true)).toBe(h);
		h = recordHistory(h, full, NOW + 1000, true);
		expect(h.desk?.exhaustedSince).toBe(NOW + 1000);
		expect(h.desk?.samples).toHaveLength(1);
		expect(totalExhaustions(h)).toBe(1);
		// staying exhausted is no new exhaustion
		h = recordHistory(h, full, NOW + 2000, true);
		expect(totalExhaustions(h)).toBe(1);
		for (let i = 1; i <= HISTORY_SAMPLES + 20; i++)
			h = recordHistory(h, i % 2 ? free : full, NOW + i * SAMPLE_MS, true);
		expect(h.desk?.samples).toHaveLength(HISTORY_SAMPLES);
		expect(totalExhaustions(h)).toBe(1 + Math.floor((HISTORY_SAMPLES + 20) / 2));
	});

	it('a pool exhausted when first seen is no transition, and its banner says ≤', () => {
		const h = recordHistory({}, pools(true), NOW, true);
		expect(totalExhaustions(h)).toBe(0);
		expect(exhaustionBanner(h.desk, NOW + 5 * 60_000)).toMatch(
			/^EXHAUSTED since ≤\d\d:\d\d \(5m\)$/,
		);
		expect(recordHistory({}, pools(true), NOW, false)).toEqual({});
	});

	it('rebuilds claimed before the first sample from claims and releases, clamped', () => {
		const live = { status: 'live', entries: trailBefore(), oldest: NOW - 120_000 };
		const desk = (e: AuditEntry) => e.pool === 'desk';
		const first = { time: NOW, claimed: 2, desired: 3 };
		// oldest first, one per SAMPLE_MS, the last SAMPLE_MS before the first sample
		expect(claimedBefore(live, desk, first, NOW)).toEqual([0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 2, 2]);
		// only as far back as the oldest Event, and no further than the kept hour
		expect(claimedBefore({ ...live, oldest: NOW - 50_000 }, desk, first, NOW)).toEqual([
			1, 1, 1, 2, 2,
		]);
		expect(claimedBefore(live, desk, first, NOW + HISTORY_SAMPLES * SAMPLE_MS - 30_000)).toEqual([
			1, 2, 2,
		]);
		// clamped to 0..desired: undoing more claims than were made stays at 0, releases at desired
		expect(claimedBefore(live, desk, { time: NOW, claimed: 0, desired: 3 }, NOW)).toEqual([
			0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0,
		]);
		// (unclamped, the claim at -25 s would leave 4 of 2 claimed)
		const releases = {
			status: 'live',
			entries: [act('release', 5), act('release', 15, { count: 3 }), act('claim', 25)],
			oldest: NOW - 30_000,
		};
		expect(claimedBefore(releases, desk, { time: NOW, claimed: 1, desired: 2 }, NOW)).toEqual([
			1, 2, 2,
		]);
		// no Events of the pool: flat at the first count; no Events at all, denied, off: nothing
		expect(claimedBefore({ ...live, entries: [] }, desk, { ...first, claimed: 1 }, NOW)).toEqual(
			Array(12).fill(1),
		);
		expect(claimedBefore({ status: 'live', entries: [], oldest: null }, desk, first, NOW)).toEqual(
			[],
		);
		expect(claimedBefore({ ...live, status: 'denied' }, desk, first, NOW)).toEqual([]);
		expect(claimedBefore({ ...live, status: 'off' }, desk, first, NOW)).toEqual([]);
	});

	it('the picture draws the rebuilt part apart and keeps claimable to the watched time', () => {
		const samples = [{ claimed: 2, claimable: 1, desired: 3 }];
		const p = picture(samples, null, 80, [0, 1, 2]);
		expect(p.rebuilt).toBe('▁▃▆');
		expect(p.claimed).toBe('▆');
		expect(p.claimable).toBe('▃');
		// narrow: the oldest rebuilt values give way first
		const q = picture(samples, 'EXHAUSTED since 10:00 (1m)', 58, [0, 1, 2]);
		expect([q.rebuilt, q.claimed, q.claimable]).toEqual(['▆', '▆', '▃']);
		expect(picture(samples, null, 80).rebuilt).toBe('');
	});

	it('sparkline scales to the maximum and keeps the newest values', () => {
		expect(sparkline([0, 1, 2, 3, 4], 4, 10)).toBe('▁▃▅▆█');
		expect(sparkline([0, 1, 2, 3, 4], 4, 2)).toBe('▆█');
		expect(sparkline([5], 0, 3)).toBe('█');
		expect(sparkline([1], 4, 0)).toBe('');
	});
});

describe('findMembers', () => {
	const pool = (key: string, members: Array<[string, string]>) => ({
		key,
		namespace: key.split('/')[0] ?? '',
		pool: key.split('/')[1] ?? '',
		members: members.map(([name, holder]) => ({
			name,
			holder,
			state: 'Ready' as const,
			claimedAt: holder ? NOW : null,
		})),
	});

	it('matches holders, members and pool names, case-insensitively', () => {
		const pools = [
			pool('a/desk', [
				['desk-1', 'Bob@Example.com'],
				['desk-2', ''],
			]),
			pool('a/bobs', []),
			pool('b/lab', [['lab-1', 'alice@example.com']]),
		];
		expect(findMembers('bob', pools).map((h) => [h.key, h.member, h.matched])).toEqual([
			['a/desk', 'desk-1', ['holder']],
			['a/bobs', '', ['pool']],
		]);
		expect(findMembers('DESK-2', pools).map((h) => h.member)).toEqual(['desk-2']);
		expect(findMembers('  ', pools)).toEqual([]);
		expect(findMembers('desk-2', pools)[0]?.claimedAt).toBeNull();
		expect(findMembers('ALICE', pools).map((h) => h.key)).toEqual(['b/lab']);
	});
});
