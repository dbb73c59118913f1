import { afterEach, describe, expect, it } from 'vitest';
import type { WatchChange } from '../../source/kube/pool-watch.js';
import { OnScreen } from '../../source/tui/session/on-screen.js';
import { sameLine } from '../../source/tui/views/table-line.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { member } from './fixtures.js';
import { storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

const change = (kind: WatchChange['kind'], name: string): WatchChange => ({
	kind,
	op: 'upsert',
	object: { metadata: { name } },
});

describe('OnScreen', () => {
	it('calls urgent a relist, any Lease or definition, and the objects of a member shown', () => {
		const on = new OnScreen();
		on.show(['desk-1']);
		expect(on.urgent(change('pods', 'desk-1'))).toBe(true);
		expect(on.urgent(change('persistentvolumeclaims', 'desk-1-data'))).toBe(true);
		expect(on.urgent(change('pods', 'desk-2'))).toBe(false);
		expect(on.urgent(change('persistentvolumeclaims', 'desk-2-data'))).toBe(false);
		// claims are what an admin watches: on every screen
		expect(on.urgent(change('leases', 'corral-vdi-ct-desk-2'))).toBe(true);
		expect(on.urgent(change('configmaps', 'corral-vdi-ctpool-desk'))).toBe(true);
		expect(on.urgent({ kind: 'pods', op: 'reset', objects: [] })).toBe(true);
		on.show([]);
		expect(on.urgent(change('pods', 'desk-1'))).toBe(false);
	});
});

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

describe('what the screens say is on screen', () => {
	it('is the rows of the members table that fit, then the member on the details screen, then none', async () => {
		const s = poolSpec({ size: 40 });
		const objects = Array.from({ length: 40 }, (_, i) => member('desk', i + 1, s)).flat();
		const store = storeWith(objects, { spec: s });
		const { onScreen } = store.getState();
		r = await renderConsole(store, { columns: 120, rows: 20 });
		await waitFor(() => onScreen.shows('desk-1'));
		expect(onScreen.shows('desk-40')).toBe(false);
		// the selection at the end: the window moves, and so does what is on screen
		store.getState().moveTo('bottom');
		await waitFor(() => onScreen.shows('desk-40'));
		expect(onScreen.shows('desk-1')).toBe(false);
		store.getState().setScreen('details');
		await waitFor(() => !onScreen.shows('desk-39'));
		expect(onScreen.shows('desk-40')).toBe(true);
		store.getState().setScreen('pools');
		await waitFor(() => !onScreen.shows('desk-40'));
	});
});

describe('sameLine (a table line is drawn again only when it changed)', () => {
	const columns = [
		{ key: 'name', title: 'NAME', min: 4, max: 10, priority: 0, width: 8 },
		{ key: 'state', title: 'STATE', min: 5, max: 12, priority: 0, width: 10 },
	];
	const line = (state: string, tone?: 'state' | 'warn') => ({
		columns,
		cells: [{ text: 'desk-1' }, { text: state, tone }],
	});

	it('is true for the same cells in new arrays, false when a text, a tone or a width differs', () => {
		expect(sameLine(line('Ready', 'state'), line('Ready', 'state'))).toBe(true);
		expect(sameLine(line('Ready', 'state'), line('Failed', 'state'))).toBe(false);
		expect(sameLine(line('Ready', 'state'), line('Ready', 'warn'))).toBe(false);
		const wider = { ...line('Ready'), columns: [columns[0], { ...columns[1], width: 11 }] };
		expect(sameLine(line('Ready'), wider as never)).toBe(false);
		expect(sameLine(line('Ready'), { ...line('Ready'), selected: true })).toBe(false);
	});
});
