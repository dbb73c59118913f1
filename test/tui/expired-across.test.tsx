/**
 * Issue 24 in the console, across namespaces (-A): `*` on the pools screen and in the find's
 * hits asks once for every expired claim shown, listing namespace/pool, member and holder
 * (finding 7); the audit screen has a NAMESPACE column and a pool's scope is its namespace's
 * (finding 1); a confirmation names the pool with its namespace where `desk` alone is two.
 */

import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../source/pool/audit.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { configMap, inNamespace, member, NOW } from './fixtures.js';
import { lines, lineWith, recordingOps, storeAcross } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const TWO_HOURS = 2 * 3_600_000;

/** The frame as one line of words (wrapped text joined). */
function flat(frame: string): string {
	return lines(frame)
		.map((l) => l.trim())
		.join(' ')
		.replace(/\s+/g, ' ');
}

/** desk in team-a and team-b, each with an expired claim; team-a's lab with a live one. */
function twoDesks() {
	const two = spec({ size: 2 });
	const one = spec({ size: 1 });
	return storeAcross([
		...inNamespace('team-a', [
			configMap('desk', two),
			...member('desk', 1, two),
			...member('desk', 2, two, { holder: 'bob@example.com', claimedAgo: TWO_HOURS }),
			configMap('lab', one),
			...member('lab', 1, one, { holder: 'carol@example.com' }),
		]),
		...inNamespace('team-b', [
			configMap('desk', two),
			...member('desk', 1, two, { holder: 'alice@example.com', claimedAgo: TWO_HOURS }),
			...member('desk', 2, two),
		]),
	]);
}

/** An audit line of desk-1 in a namespace. */
function line(namespace: string, holder: string, name: string): AuditEntry {
	return {
		time: NOW - 60_000,
		namespace,
		pool: 'desk',
		member: 'desk-1',
		action: 'claim',
		reason: 'Claimed',
		type: 'Normal',
		holder,
		identity: '',
		actor: holder,
		user: '',
		force: false,
		count: 1,
		target: '',
		detail: '',
		message: `claim desk-1 for ${holder}`,
		name,
		instance: '',
		clamped: false,
	};
}

describe.each([
	[80, 24],
	[120, 40],
])('across namespaces at %ix%i', (columns, rows) => {
	it('* on the pools screen lists every expired claim of every shown pool, with namespace/pool, then releases them on y (finding 7)', async () => {
		const store = twoDesks();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('*');
		const frame = r.lastFrame();
		for (const l of lines(frame)) expect(l.length).toBeLessThanOrEqual(columns);
		expect(flat(frame)).toContain('Force-release 2 expired claims in 2 pools?');
		expect(frame).toMatch(/^ {2}team-a\/desk {2}desk-2 {2}held by bob@example\.com$/m);
		expect(frame).toMatch(/^ {2}team-b\/desk {2}desk-1 {2}held by alice@example\.com$/m);
		expect(frame).not.toContain('carol@example.com');
		await r.press('y');
		expect(calls).toEqual([
			[
				'releaseExpired',
				[
					{
						namespace: 'team-a',
						pool: 'desk',
						member: 'desk-2',
						holder: 'bob@example.com',
						expiredAt: expect.any(Number),
					},
					{
						namespace: 'team-b',
						pool: 'desk',
						member: 'desk-1',
						holder: 'alice@example.com',
						expiredAt: expect.any(Number),
					},
				],
			],
		]);
	});

	it('* in the find results takes only the hits; n cancels, nothing released (finding 7)', async () => {
		const store = twoDesks();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('/', ...'bob', KEY.tab, '*');
		const frame = r.lastFrame();
		expect(flat(frame)).toContain('Force-release 1 expired claim in 1 pool?');
		expect(frame).toMatch(/^ {2}team-a\/desk {2}desk-2 {2}held by bob@example\.com$/m);
		expect(frame).not.toMatch(/team-b\/desk {2}desk-1/);
		await r.press('n');
		expect(calls).toEqual([]);
		expect(r.lastFrame()).toContain('cancelled');
	});

	it('the audit screen has a NAMESPACE column, and a pool opened shows only its namespace (finding 1)', async () => {
		const store = twoDesks();
		store.getState().setAuditStatus('live');
		store.getState().auditChange({
			reset: [line('team-a', 'ann@example.com', 'ev-a'), line('team-b', 'ben@example.com', 'ev-b')],
		});
		r = await renderConsole(store, { columns, rows });
		await r.press('e');
		let frame = r.lastFrame();
		expect(lineWith(frame, 'ACTION')).toMatch(/^AGE\s+NAMESPACE\s+POOL\s/);
		expect(lineWith(frame, 'ben@example.com')).toMatch(/team-b\s+desk\s/);
		expect(lineWith(frame, 'ann@example.com')).toMatch(/team-a\s+desk\s/);
		// team-b's desk: its own line only
		await r.press(KEY.escape, 'G', KEY.enter, 'e');
		frame = r.lastFrame();
		expect(frame).toContain('audit · pool team-b/desk · 1 line');
		expect(frame).toContain('ben@example.com');
		expect(frame).not.toContain('ann@example.com');
	});

	it('the release confirmation names the pool with its namespace (finding 1)', async () => {
		const store = twoDesks();
		r = await renderConsole(store, { columns, rows });
		await r.press(KEY.enter, 'j', 'x');
		expect(flat(r.lastFrame())).toContain(
			'Release desk-2 of team-a/desk (held by bob@example.com) with --force?',
		);
	});
});
