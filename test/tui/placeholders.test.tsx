/**
 * Issue 15, placeholders: while connecting, a figure whose list has not arrived yet shows `…`,
 * never a zero (the pools screen used to say `6/0 0 0 0 … no`).
 */

import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState, WatchKind } from '../../source/kube/pool-watch.js';
import { createConsoleStore } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, member, NOW, upserts } from './fixtures.js';
import { lineWith } from './helpers.js';
import { flush, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 6 });

/** A store still connecting, on the pools screen or pool desk. */
function connecting(pool: string | null) {
	return createConsoleStore({
		session: { namespace: 'corral', context: 'sim' },
		pool,
		now: NOW,
	});
}

/** Reports the kinds given as synced, the others as still connecting. */
function syncedKinds(store: ReturnType<typeof connecting>, kinds: WatchKind[]) {
	const all: WatchKind[] = ['configmaps', 'persistentvolumeclaims', 'pods', 'leases'];
	const byKind = Object.fromEntries(
		all.map((k): [WatchKind, ConnectionState] => [
			k,
			{ phase: kinds.includes(k) ? 'synced' : 'connecting', since: NOW },
		]),
	) as Record<WatchKind, ConnectionState>;
	const overall: ConnectionState =
		kinds.length === all.length
			? { phase: 'synced', since: NOW }
			: { phase: 'connecting', since: NOW };
	store.getState().setConnection(overall, byKind);
}

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('placeholders while connecting at %ix%i', (columns, rows) => {
	it('the pools screen shows … for every count until the members are listed', async () => {
		const store = connecting(null);
		r = await renderConsole(store, { columns, rows });
		expect(r.lastFrame()).toContain('… reading the pools of namespace corral');
		expect(r.lastFrame()).not.toContain('no CT pools');
		store.getState().applyBatch(upserts([configMap('desk', s)]));
		syncedKinds(store, ['configmaps']);
		await flush();
		let row = lineWith(r.lastFrame(), 'desk ');
		expect(row).toMatch(/^desk\s+.*6\/…\s+…/);
		expect(row).not.toMatch(/\s0\s/);
		expect(row).not.toContain(' no');
		store.getState().applyBatch(upserts([...member('desk', 1, s), ...member('desk', 2, s)]));
		syncedKinds(store, ['configmaps', 'persistentvolumeclaims', 'pods', 'leases']);
		await flush();
		row = lineWith(r.lastFrame(), 'desk ');
		expect(row).toMatch(/6\/2\s+2\s+0\s+2/);
		expect(row).not.toContain('…/');
	});

	it('the members header shows … until the definition and the members are listed', async () => {
		const store = connecting('desk');
		r = await renderConsole(store, { columns, rows });
		let frame = r.lastFrame();
		expect(frame).toContain('pool desk: … reading its definition');
		expect(frame).toMatch(
			columns >= 120
				? /desired … observed … ready … claimed … claimable now … soon … refused\/1h … unschedulable … drifted …/
				: /desired … obs … ready … claimed … free …\+… refused … unsched … drift …/,
		);
		expect(frame).not.toContain('no definition');
		expect(frame).toContain('… reading the members of pool desk');
		store.getState().applyBatch(upserts([configMap('desk', s)]));
		syncedKinds(store, ['configmaps', 'pods']);
		await flush();
		frame = r.lastFrame();
		expect(frame).toContain('size 6');
		expect(frame).toMatch(
			columns >= 120
				? /desired 6 observed … ready … claimed … claimable now … soon …/
				: /desired 6 obs … ready … claimed … free …\+…/,
		);
		store.getState().applyBatch(upserts(member('desk', 1, s)));
		syncedKinds(store, ['configmaps', 'persistentvolumeclaims', 'pods', 'leases']);
		await flush();
		expect(r.lastFrame()).toMatch(
			columns >= 120
				? /desired 6 observed 1 ready 1 claimed 0 claimable now 1 soon 0/
				: /desired 6 obs 1 ready 1 claimed 0 free 1\+0/,
		);
	});
});
