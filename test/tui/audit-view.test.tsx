/**
 * The audit screen (key e) at 80x24 and 120x40: scoped to what the screen showed, newest
 * first, filtered with `/`, the selected line whole; the pools and members headers count the
 * claims refused over the last hour and split free into claimable now and soon.
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../source/pool/audit.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

let n = 0;
function entry(over: Partial<AuditEntry>): AuditEntry {
	n++;
	return {
		time: NOW - 60_000 * n,
		namespace: 'corral',
		pool: 'desk',
		member: 'desk-1',
		action: 'claim',
		reason: 'Claimed',
		type: 'Normal',
		holder: 'alice@example.com',
		identity: '',
		actor: 'alice@example.com',
		user: '',
		force: false,
		clamped: false,
		count: 1,
		target: '',
		detail: '',
		message: 'claimed desk-1 for alice@example.com by alice@example.com',
		name: `ev-${n}`,
		instance: 'host-a',
		...over,
	};
}

const LONG = 'x'.repeat(150);

function trail(): AuditEntry[] {
	n = 0;
	return [
		entry({
			action: 'release',
			reason: 'Released',
			force: true,
			holder: 'bob@example.com',
			actor: 'root@admin-host',
			identity: 'nightshift@example.com',
			message: `released desk-1 from bob@example.com by root@admin-host (--force, as nightshift@example.com) ${LONG} END`,
		}),
		entry({
			action: 'claim-refused',
			reason: 'ClaimRefused',
			type: 'Warning',
			member: '',
			holder: 'erin@example.com',
			actor: 'broker@example.com',
			count: 3,
			detail: 'pool has no free members (desired 2, claimed 2, unschedulable 0)',
			message: 'refused a claim in pool desk for erin@example.com by broker@example.com (3 times)',
		}),
		entry({ member: 'desk-2', holder: 'bob@example.com', actor: 'bob@example.com' }),
		entry({ pool: 'lab', member: 'lab-1', holder: 'carl@example.com', actor: 'carl@example.com' }),
		// older than an hour: not in the refused count
		entry({
			time: NOW - 2 * 3_600_000,
			action: 'claim-refused',
			reason: 'ClaimRefused',
			type: 'Warning',
			member: '',
			holder: 'old@example.com',
			name: 'ev-old',
		}),
	];
}

function deskStore() {
	const s = spec({ size: 3 });
	const store = storeWith(
		[
			...member('desk', 1, s, { holder: 'bob@example.com' }),
			...member('desk', 2, s, { holder: 'bob2@example.com' }),
			...member('desk', 3, s, { state: 'Starting' }),
		],
		{ spec: s },
	);
	store.getState().auditChange({ reset: trail() });
	store.getState().setAuditStatus('live');
	return store;
}

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('the audit screen at %ix%i', (columns, rows) => {
	it('opens on the pool from the members screen, newest first, the selected line whole; Esc goes back', async () => {
		const store = deskStore();
		r = await renderConsole(store, { columns, rows });
		let frame = r.lastFrame();
		// the members header: free split into claimable now and soon, refused claims over 1h
		expect(lineWith(frame, 'desired')).toMatch(
			columns >= 120
				? /claimed 2 claimable now 0 soon 1 refused\/1h 3/
				: /claimed 2 free 0\+1 refused 3/,
		);
		await r.press('e');
		frame = r.lastFrame();
		expect(frame).toMatch(/audit · pool desk · 4 lines/);
		expect(frame).toContain('Events kept ~1h by the cluster');
		const table = lines(frame);
		const release = table.findIndex((l) => /release --force/.test(l));
		const refused = table.findIndex((l) => /claim-refused x3/.test(l));
		expect(release).toBeGreaterThan(0);
		expect(refused).toBeGreaterThan(release);
		expect(frame).not.toContain('lab-1');
		// the selected (first) line whole below the table, wrapped, its end included
		expect(frame).toContain('END');
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		const footer = lines(frame)
			.filter((l) => l.trim() !== '')
			.at(-1);
		expect(footer).toContain('? help');
		expect(footer).toContain('q quit');
		expect(footer).not.toContain('claim');
		// moving down shows that line whole instead
		await r.press('j');
		expect(r.lastFrame()).not.toContain('END');
		expect(r.lastFrame()).toContain('refused a claim in pool desk for erin@example.com');
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
	});

	it('filters by identity with /, and from the pools screen covers every pool', async () => {
		const store = deskStore();
		store.getState().setScreen('pools');
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), 'POOL')).toMatch(/FREE NOW/);
		await r.press('e');
		expect(r.lastFrame()).toMatch(/audit · all pools · 5 lines/);
		expect(r.lastFrame()).toContain('lab-1');
		await r.press('/', ...'identity:root@admin-host');
		await r.press(KEY.enter);
		const frame = r.lastFrame();
		expect(frame).toMatch(/audit · all pools · 1 line matching identity:root@admin-host/);
		expect(frame).toContain('release --force');
		expect(frame).not.toContain('lab-1');
		await r.press('/', ' ', ...'since:yesterday', KEY.enter);
		expect(r.lastFrame()).toContain('since:yesterday is not a duration');
		// Esc clears the filter first, then goes back
		await r.press(KEY.escape);
		expect(store.getState().auditView.filter).toBe('');
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('pools');
	});

	it('says when Events cannot be read, and the counts show ?', async () => {
		const store = deskStore();
		store.getState().setAuditStatus('denied', 'events is forbidden: cannot list events');
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), 'desired')).toMatch(/refused(\/1h)? \?/);
		await r.press('e');
		expect(r.lastFrame()).toContain('cannot read Events');
	});
});

describe('the pools screen', () => {
	it('shows claims refused over the last hour per pool, and claimable now and soon', async () => {
		const store = deskStore();
		store.getState().setScreen('pools');
		r = await renderConsole(store, { columns: 160, rows: 30 });
		const frame = r.lastFrame();
		expect(lineWith(frame, 'POOL')).toMatch(/FREE NOW\s+SOON\s+REFUSED\/1H/);
		expect(lineWith(frame, 'desk ')).toMatch(/desk\s+\S+\s+3\/3\s+2\s+2\s+0\s+1\s+3\s/);
	});
});
