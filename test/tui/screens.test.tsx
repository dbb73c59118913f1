import chalk from 'chalk';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { Command, HELP_GROUPS, KEY_BINDINGS } from '../../source/tui/commands/keys.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, member, NOW, upserts } from './fixtures.js';
import { lines, lineWith, recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

describe('pools screen', () => {
	it('lists every pool with its counts and last reconcile; Enter opens one, Esc returns', async () => {
		const desk = poolSpec({ size: 2 });
		const lab = poolSpec({ size: 1, image: 'ghcr.io/example/lab:3' });
		const status = {
			observedAt: new Date(NOW - 120_000).toISOString(),
			reconciler: 'corral-vdi/reconciler',
			desired: 2,
			observed: 2,
			ready: 2,
			claimed: 1,
			free: 1,
			unschedulable: 0,
			exhausted: false,
			members: [],
			errors: [],
		};
		const store = storeWith(
			[...member('desk', 1, desk, { holder: 'alice@example.com' }), ...member('desk', 2, desk)],
			{ spec: desk, pool: null, status },
		);
		store
			.getState()
			.applyBatch(
				upserts([
					configMap('lab', lab, { ...status, errors: ['create lab-1: pods "lab-1" is forbidden'] }),
					...member('lab', 1, lab, { holder: 'bob@example.com' }),
				]),
			);
		r = await renderConsole(store, { columns: 180, rows: 24 });
		let frame = r.lastFrame();
		expect(frame).toContain('pools (2)');
		expect(lineWith(frame, 'POOL')).toMatch(
			/POOL\s+IMAGE\s+SIZE\/OBS\s+READY\s+CLAIMED\s+FREE NOW\s+SOON\s+REFUSED\/1H/,
		);
		expect(lineWith(frame, 'desk ')).toMatch(
			/desk\s+ghcr\.io\/example\/desktop:1\s+2\/2\s+2\s+1\s+1\s+0\s+…\s+0\s+0\s+0\s+0\s+no\s+2m ago: ok/,
		);
		expect(lineWith(frame, 'lab ')).toMatch(
			/lab\s+ghcr\.io\/example\/lab:3\s+1\/1\s+1\s+1\s+0\s+0\s+…\s+0\s+0\s+0\s+0\s+EXHAUSTED\s+2m ago: 1 error: create lab-1/,
		);
		await r.press('j', KEY.enter);
		frame = r.lastFrame();
		expect(frame).toContain('pool lab');
		expect(lineWith(frame, 'lab-1')).toContain('bob@example.com');
		await r.press(KEY.escape);
		expect(r.lastFrame()).toContain('pools (2)');
	});

	it('says when the namespace has no pools', async () => {
		const store = storeWith([], { pool: null });
		store.getState().applyBatch([{ kind: 'configmaps', op: 'reset', objects: [] }]);
		r = await renderConsole(store, { columns: 100, rows: 24 });
		expect(r.lastFrame()).toContain('no CT pools in namespace corral');
	});
});

describe('member details', () => {
	it('shows pod, PVC and Lease fields, the source hashes, why it is not free, and its events', async () => {
		const s = poolSpec({ size: 2 });
		const store = storeWith(
			[...member('desk', 1, s, { holder: 'alice@example.com', claimedAgo: 600_000 })],
			{ spec: s },
		);
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 220, rows: 30, ops });
		await r.press(KEY.enter);
		expect(calls).toEqual([['loadEvents', 'desk-1']]);
		store.getState().setDetails({
			member: 'desk-1',
			loading: false,
			error: null,
			events: [
				{
					time: NOW - 5000,
					type: 'Normal',
					reason: 'Claimed',
					object: 'persistentvolumeclaim/desk-1-data',
					message: 'desk-1 claimed by alice@example.com',
					count: 1,
				},
			],
		});
		await r.press();
		const frame = r.lastFrame();
		expect(lineWith(frame, 'Member')).toContain('desk-1 · index 1 · Ready');
		expect(lineWith(frame, 'Free')).toContain('no: claimed by alice@example.com');
		expect(lineWith(frame, 'Pod ')).toMatch(/desk-1 · phase Running · node node-a/);
		expect(lineWith(frame, 'PVC')).toContain(
			'desk-1-data · phase Bound · assigned-to alice@example.com',
		);
		expect(lineWith(frame, 'Lease')).toMatch(
			/corral-vdi-ct-desk-1 · holder alice@example\.com .* 3600s · expires in 50m/,
		);
		expect(lineWith(frame, 'Source')).toMatch(/member ([0-9a-f]{16}) · pool \1 · current/);
		expect(frame).toContain(
			'Claimed persistentvolumeclaim/desk-1-data: desk-1 claimed by alice@example.com',
		);
		await r.press(KEY.escape);
		expect(r.lastFrame()).toMatch(/^NAME\s+STATE/m);
	});

	it('says why a free member is free', async () => {
		const s = poolSpec({ size: 1 });
		const store = storeWith(member('desk', 1, s), { spec: s });
		r = await renderConsole(store, { columns: 120, rows: 30 });
		await r.press(KEY.enter);
		expect(lineWith(r.lastFrame(), 'Free')).toContain('yes: no Lease, within size');
	});
});

describe('help', () => {
	it('lists every key and which are disabled and why', async () => {
		const s = poolSpec({ size: 1 });
		const store = storeWith(member('desk', 1, s), { spec: s });
		store.getState().setDenied({
			[Command.Console]:
				'forbidden: cannot create pods/exec in namespace corral (ask for the "create" permission on pods/exec)',
		});
		r = await renderConsole(store, { columns: 140, rows: 50 });
		await r.press('?');
		const frame = r.lastFrame();
		expect(frame).toContain('pool desk · ns corral');
		for (const k of [
			'↑ k',
			'↓ j',
			'g ',
			'G ',
			'PgUp',
			'PgDn',
			'Enter',
			'Esc',
			'/ ',
			'c ',
			'x ',
			'r ',
			'a ',
			'm ',
			's ',
			'l ',
			'? ',
			'q Ctrl-C',
		])
			expect(frame).toContain(k);
		// a long reason wraps onto the key's next line
		expect(lineWith(frame, 'open a shell')).toMatch(/open a shell .*—/);
		expect(frame).toContain('disabled: forbidden: cannot create pods/exec');
		expect(frame).toContain('disabled: desk-1 has no claim');
		expect(lineWith(frame, 'claim a free member')).not.toContain('disabled');
		await r.press(KEY.escape);
		expect(r.lastFrame()).toMatch(/^NAME\s+STATE/m);
	});

	it('fits at 80x24 in groups, none scrolling; ←/→ and Tab go through every key (issue 24, finding 9)', async () => {
		const store = storeWith([], {});
		r = await renderConsole(store, { columns: 80, rows: 24 });
		await r.press('?');
		const seen = new Set<string>();
		for (const [i, g] of HELP_GROUPS.entries()) {
			const frame = r.lastFrame();
			expect(lines(frame).length).toBeLessThanOrEqual(23);
			expect(frame).toContain(`[${g.title}]`);
			// the whole group is shown: no position, no scrolling
			expect(frame).not.toMatch(/lines \d+-\d+ of|↑↓ scroll/);
			for (const b of KEY_BINDINGS)
				if (g.commands.includes(b.command)) {
					expect(frame).toContain(b.description.slice(0, 30));
					seen.add(b.command);
				}
			await r.press(i % 2 === 0 ? KEY.right : KEY.tab);
		}
		expect(seen.size).toBe(KEY_BINDINGS.length);
		expect(r.lastFrame()).toContain(`[${HELP_GROUPS[0]?.title}]`);
		await r.press(KEY.left);
		expect(r.lastFrame()).toContain(`[${HELP_GROUPS.at(-1)?.title}]`);
	});

	it('shows every group at once with its title when it fits', async () => {
		const store = storeWith([], {});
		r = await renderConsole(store, { columns: 120, rows: 60 });
		await r.press('?');
		const frame = r.lastFrame();
		for (const g of HELP_GROUPS) expect(frame).toMatch(new RegExp(`^${g.title}$`, 'm'));
		expect(frame).toContain('q Ctrl-C');
		expect(frame).not.toContain('←→ groups');
	});

	it('puts every key in exactly one group', () => {
		for (const b of KEY_BINDINGS)
			expect(HELP_GROUPS.filter((g) => g.commands.includes(b.command))).toHaveLength(1);
	});
});

describe('read-only', () => {
	it('removes every mutating key from the hints and refuses them', async () => {
		const s = poolSpec({ size: 2 });
		const store = storeWith([...member('desk', 1, s, { holder: 'alice@example.com' })], {
			spec: s,
			session: { readOnly: true },
		});
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 140, rows: 24, ops });
		const hints = lines(r.lastFrame()).at(-1) ?? '';
		expect(hints).toContain('filter');
		for (const h of ['claim', 'release', 'reconcile', 'loop', 'maint', 'console'])
			expect(hints).not.toContain(h);
		expect(r.lastFrame()).toContain('read-only');
		await r.press('c', 'x', 'r', 'a', 'm', 's');
		expect(calls).toEqual([]);
		expect(store.getState().prompt).toBeNull();
		expect(store.getState().request).toBeNull();
		expect(r.lastFrame()).toContain('read-only mode (--read-only)');
		// the keys that act on the cluster are help's third group
		await r.press('?', '3');
		const line = lineWith(r.lastFrame(), 'reconcile the pool now');
		expect(line).toContain('disabled: read-only mode');
	});
});

describe('staleness', () => {
	it('shows a stale banner with since, retries and the last error, dims the table, and clears on recovery', async () => {
		const s = poolSpec({ size: 1 });
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		const level = chalk.level;
		chalk.level = 1; // styles on, as on a terminal
		onTestFinished(() => {
			chalk.level = level;
		});
		r = await renderConsole(store, { columns: 120, rows: 24, noColor: false });
		store.getState().setConnection({
			phase: 'reconnecting',
			since: NOW - 4000,
			attempts: 3,
			lastError: 'connect ECONNREFUSED 127.0.0.1:6443',
		});
		await r.press();
		let frame = r.lastFrame();
		expect(frame).toContain('STALE');
		expect(frame).toMatch(
			/stale since \d\d:\d\d:\d\d · retry 3 · last error: connect ECONNREFUSED 127\.0\.0\.1:6443/,
		);
		expect(frame).toContain('◌ reconnecting (retry 3)');
		expect(lineWith(frame, 'desk-2')).toContain('\u001b[2m');
		store.getState().setConnection({ phase: 'synced', since: NOW });
		await r.press();
		frame = r.lastFrame();
		expect(frame).not.toContain('STALE');
		expect(frame).toContain('● live');
		expect(lineWith(frame, 'desk-2')).not.toContain('\u001b[2m');
	});

	it('at 80 columns the stale banner and an error message keep their cause and drop the request text (issue 24, finding 6)', async () => {
		const store = storeWith([], {});
		r = await renderConsole(store, { columns: 80, rows: 24 });
		const error =
			'watch pods in namespace corral-vms-team-b: GET https://10.96.0.1:6443/api/v1/namespaces/corral-vms-team-b/pods?watch=true&resourceVersion=123: cannot reach the cluster: connection refused (10.96.0.1:6443)';
		store
			.getState()
			.setConnection({ phase: 'reconnecting', since: NOW - 4000, attempts: 3, lastError: error });
		await r.press();
		const banner = lineWith(r.lastFrame(), 'STALE');
		expect(banner).toMatch(
			/stale since \d\d:\d\d:\d\d · retry 3 · last error: .*connection refused$/,
		);
		expect(banner).not.toContain('https://');
		expect(stringWidth(banner)).toBeLessThanOrEqual(80);
		store.getState().setStatus(`reconcile desk: ${error}`, 'error');
		await r.press();
		const status = lineWith(r.lastFrame(), '✗');
		expect(status).toMatch(/connection refused$/);
		expect(status).not.toContain('https://');
	});

	it('does not cry stale for a blip shorter than a moment', async () => {
		const store = storeWith([], {});
		r = await renderConsole(store, { columns: 100, rows: 24 });
		store
			.getState()
			.setConnection({ phase: 'reconnecting', since: NOW - 500, attempts: 1, lastError: 'EOF' });
		await r.press();
		expect(r.lastFrame()).not.toContain('STALE');
		store.getState().tick(NOW + 3000);
		await r.press();
		expect(r.lastFrame()).toContain('STALE');
	});

	it('names the missing permission of a 403', async () => {
		const store = storeWith([], {});
		r = await renderConsole(store, { columns: 160, rows: 24 });
		store.getState().setConnection({
			phase: 'failed',
			since: NOW - 10_000,
			attempts: 4,
			reason:
				'forbidden: cannot list pods in namespace corral (ask for the "list" permission on pods)',
		});
		await r.press();
		expect(r.lastFrame()).toContain('cannot list pods in namespace corral');
	});
});

describe('size', () => {
	it('windows a long table at 80x24: never more lines than fit, the selection always visible', async () => {
		const s = poolSpec({ size: 200 });
		const objects = [];
		for (let i = 1; i <= 200; i++)
			objects.push(...member('desk', i, s, i % 7 === 0 ? { holder: `user${i}@example.com` } : {}));
		const store = storeWith(objects, { spec: s });
		r = await renderConsole(store, { columns: 80, rows: 24 });
		const check = () => {
			const frame = r!.lastFrame();
			const ls = lines(frame);
			expect(ls.length).toBeLessThanOrEqual(23);
			for (const l of ls) expect(stringWidth(l)).toBeLessThanOrEqual(80);
			return frame;
		};
		let frame = check();
		const shown = lines(frame).filter((l) => /^desk-\d+ /.test(l));
		// 24 rows: the header (3 lines and the picture), titles, status and hints leave 16
		expect(shown.length).toBe(16);
		expect(shown[0]).toMatch(/^desk-1 /);
		await r.press(KEY.pageDown);
		frame = check();
		// a page is the 16 rows on screen
		expect(store.getState().selected).toBe('desk-17');
		expect(frame).toMatch(/^desk-17 /m);
		await r.press('G');
		frame = check();
		expect(frame).toMatch(/^desk-200 /m);
		expect(frame).not.toMatch(/^desk-1 /m);
		await r.press(KEY.pageUp);
		expect(store.getState().selected).toBe('desk-184');
		expect(check()).toMatch(/^desk-184 /m);
		await r.press('l');
		check();
	});

	it('redraws on resize, and shows a clear message below the minimum size', async () => {
		const s = poolSpec({ size: 3 });
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 30 });
		await r.resize(50, 10);
		expect(r.lastFrame()).toContain('Terminal too small: 50x10.');
		expect(r.lastFrame()).toMatch(/needs at least\s+60x15/);
		await r.resize(80, 24);
		const frame = r.lastFrame();
		expect(frame).not.toContain('too small');
		expect(frame).toMatch(/^desk-2 /m);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(80);
	});
});

describe('no colour', () => {
	it('honours NO_COLOR and --no-color, and marks the selection without styles', async () => {
		const { colourDisabled } = await import('../../source/tui/render/theme.js');
		expect(colourDisabled(false, { NO_COLOR: '1' })).toBe(true);
		expect(colourDisabled(false, { NO_COLOR: '' })).toBe(false);
		expect(colourDisabled(true, {})).toBe(true);
		expect(colourDisabled(false, {})).toBe(false);
		const s = poolSpec({ size: 2 });
		const store = storeWith(
			[...member('desk', 1, s), ...member('desk', 2, s, { state: 'Failed' })],
			{ spec: s },
		);
		const level = chalk.level;
		chalk.level = 1;
		onTestFinished(() => {
			chalk.level = level;
		});
		r = await renderConsole(store, { columns: 100, rows: 24, noColor: true });
		await r.press('j');
		const frame = r.lastFrame();
		const plain = frame.replace(/\u001b\[[0-9;]*m/g, '');
		expect(plain).toMatch(/^› desk-2\s/m);
		expect(plain).toMatch(/^ {2}desk-1\s/m);
		// styles (bold, inverse) but no colour: no foreground or background colour codes
		expect(frame).not.toMatch(/\u001b\[(3[0-7]|9[0-7]|4[0-7]|10[0-7]|38;|48;)/);
	});
});

describe('sanitising', () => {
	it('never lets an escape sequence from the cluster reach the screen', async () => {
		const s = poolSpec({ size: 2 });
		const evil = 'mallory\u001b]0;pwned\u0007\u001b[31m\u001b[2J\u009b31m@example.com';
		const store = storeWith(
			[
				...member('desk', 1, s, { holder: evil }),
				...member('desk', 2, s, {
					state: 'Failed',
					message: 'boom\u001b[1;1H\u001b]8;;http://x\u0007click\u001b]8;;\u0007',
				}),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 160, rows: 24 });
		await r.press('l');
		let frame = r.lastFrame();
		expect(frame).toContain('mallory');
		expect(frame).not.toContain('\u001b');
		expect(frame).not.toContain('\u0007');
		expect(frame).not.toContain('\u009b');
		expect(frame).not.toContain('pwned');
		await r.press(KEY.enter);
		frame = r.lastFrame();
		expect(frame).toContain('mallory');
		expect(frame).not.toContain('\u001b');
		await r.press(KEY.escape, 'j', KEY.enter);
		frame = r.lastFrame();
		expect(frame).toContain('boom');
		expect(frame).not.toContain('\u001b');
		expect(frame).not.toContain('\u0007');
	});
});
