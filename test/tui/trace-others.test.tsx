/**
 * The trace screen (t) shows, after this console's own last plan, the passes of other
 * reconcilers (the CLI, the in-cluster controller) rebuilt from the audit Events the console
 * follows, newest first, each labelled "seen through Events" and saying what Events cannot
 * tell; this console's own passes are not shown again among them. A forged Event neither
 * breaks the screen nor misleads it: its strings are inert, a name that is no member of the
 * pool counts for nothing, a time beyond the Event's creation marks the pass as suspect.
 */

import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../source/engine/reconcile-plan.js';
import { AUDIT_ANNOTATION, type AuditEntry, auditEntry } from '../../source/pool/audit.js';
import { EVENTS_CANNOT_TELL, SEEN_DIRECTLY } from '../../source/tui/views/trace-lines.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const OWN = 'a1'.repeat(8);
const CLI = 'b2'.repeat(8);
const CONTROLLER = 'c3'.repeat(8);
let seq = 0;

/** An audit line as the console reads one (created when stated, unless created is given). */
function line(
	record: Record<string, unknown>,
	at: number,
	extra: { instance?: string; created?: number; stated?: string } = {},
): AuditEntry {
	const e = auditEntry(
		{
			metadata: {
				name: `ev-${seq++}`,
				namespace: 'corral',
				creationTimestamp: new Date(extra.created ?? at).toISOString(),
				annotations: { [AUDIT_ANNOTATION]: JSON.stringify({ v: 1, pool: 'desk', ...record }) },
			},
			lastTimestamp: extra.stated ?? new Date(at).toISOString(),
			reportingInstance: extra.instance ?? 'jumphost',
		},
		NOW,
	);
	if (!e) throw new Error('not an audit line');
	return e;
}

const PLAN: TraceEvent = {
	type: 'plan',
	time: NOW - 60_000,
	pool: 'desk',
	dryRun: false,
	pass: OWN,
	steps: [
		{ kind: 'create', members: [] },
		{ kind: 'start', members: [] },
		{ kind: 'replace', members: [{ member: 'desk-2', reason: 'drifted: image :1 → :2' }] },
		{ kind: 'delete', members: [] },
		{ kind: 'takeover', members: [] },
	],
	leftAlone: [{ member: 'desk-1', reason: 'claimed' }],
};

function deskStore() {
	const s = spec({ size: 4 });
	const store = storeWith(
		[1, 2, 3, 4].flatMap((i) => member('desk', i, s)),
		{ spec: s },
	);
	store.getState().setAuditStatus('live');
	return store;
}

/** Every frame line, trailing blanks dropped. */
const text = (frame: string) => lines(frame).join('\n');

describe.each([
	[80, 24],
	[120, 40],
])('other reconcilers on the trace screen at %ix%i', (columns, rows) => {
	it('come after the own plan, newest first, seen through Events, and leave out this console’s own passes', async () => {
		const store = deskStore();
		store.getState().traceEvent('desk', PLAN);
		store.getState().auditChange({
			reset: [
				// this console's own pass: seen directly above, not again below
				line(
					{ action: 'replace', member: 'desk-2', actor: 'admin@example.com', pass: OWN },
					NOW - 55_000,
				),
				// the CLI's pass, ten minutes ago
				line(
					{
						action: 'replace',
						member: 'desk-3',
						actor: 'ops@example.com',
						pass: CLI,
						// long: its wrapped lines must not be cut
						detail: `drifted: image :1 -> :2; ${Array.from({ length: 40 }, (_, i) => `part${i}`).join(' ')}`,
					},
					NOW - 600_000,
					{ instance: 'laptop-7' },
				),
				// the in-cluster controller's pass, two minutes ago, with a failure
				line(
					{ action: 'delete', member: 'desk-4', actor: 'corral-vdi/reconciler', pass: CONTROLLER },
					NOW - 120_000,
					{ instance: 'ctpool-reconciler-0' },
				),
				line(
					{
						action: 'reconcile-failed',
						member: 'desk-1',
						actor: 'corral-vdi/reconciler',
						pass: CONTROLLER,
						detail: 'start: pods is forbidden',
					},
					NOW - 119_000,
					{ instance: 'ctpool-reconciler-0' },
				),
			],
		});
		r = await renderConsole(store, { columns, rows: 200 });
		await r.press('t');
		const all = text(r.lastFrame());
		const flat = all.replace(/\s+/g, ' ');
		// the header line says what is seen directly and what through Events
		expect(flat).toContain(SEEN_DIRECTLY.slice(0, 60));
		expect(flat).toContain('seen through their Events');
		const own = all.indexOf('pending replace');
		const heading = all.indexOf('Other reconcilers, seen through Events');
		const controller = all.indexOf(`pass ${CONTROLLER}`);
		const cli = all.indexOf(`pass ${CLI}`);
		expect(own).toBeGreaterThan(0);
		expect(heading).toBeGreaterThan(own);
		expect(controller).toBeGreaterThan(heading);
		expect(cli).toBeGreaterThan(controller);
		expect(all).not.toContain(`pass ${OWN}`);
		expect(flat).toMatch(/corral-vdi\/reconciler on ctpool-reconciler-0 · pass c3c3/);
		expect(flat).toMatch(/ops@example\.com on laptop-7 · pass b2b2/);
		expect(flat).toMatch(/done delete desk-4/);
		expect(flat).toMatch(/failed start desk-1: start: pods is forbidden/);
		expect(flat).toMatch(/done replace desk-3: drifted: image :1 -> :2/);
		// what Events cannot tell is said, for each pass, not guessed
		expect(flat.split(EVENTS_CANNOT_TELL.slice(0, 30)).length - 1).toBe(2);
		expect(flat).not.toMatch(/desk-3.*done in \d/);
		for (const l of lines(r.lastFrame())) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		// wrapped, never cut: no line of the trace (below its title) ends in an ellipsis
		const shown = lines(stripVTControlCharacters(r.lastFrame()));
		const body = shown.slice(shown.findIndex((l) => l.startsWith('Trace · pool desk')) + 1);
		expect(body.filter((l) => l.trimEnd().endsWith('…'))).toEqual([]);
		// the screen at its real size shows the own plan first (the others scroll into view)
		await r.resize(columns, rows);
		expect(r.lastFrame()).toMatch(/Trace · pool desk/);
	});

	it('say why none are shown: Events not readable, or none kept', async () => {
		const store = deskStore();
		r = await renderConsole(store, { columns, rows: 200 });
		await r.press('t');
		expect(text(r.lastFrame()).replace(/\s+/g, ' ')).toContain(
			"none: no other reconciler's act on pool desk in the Events kept",
		);
		store.getState().setAuditStatus('denied', 'events is forbidden');
		await r.press();
		expect(text(r.lastFrame()).replace(/\s+/g, ' ')).toContain(
			'none shown: Events cannot be read with these rights',
		);
	});

	it('are neither broken nor misled by a forged Event', async () => {
		const store = deskStore();
		store.getState().traceEvent('desk', PLAN);
		const evil = 'mallory\u001b[2J\u001b]0;pwned\u0007';
		store.getState().auditChange({
			reset: [
				// states a time far beyond its creation: the pass is marked suspect
				line(
					{
						action: 'replace',
						member: 'desk-3',
						actor: evil,
						pass: 'd4'.repeat(8),
						detail: `drifted\u001b[31m ${'x'.repeat(5000)}`,
					},
					NOW - 30_000,
					{ instance: evil, stated: '2099-01-01T00:00:00Z' },
				),
				// names no member of the pool: tells nothing
				line(
					{ action: 'delete', member: 'kube-system-1', actor: evil, pass: 'e5'.repeat(8) },
					NOW - 20_000,
				),
				line(
					{ action: 'delete', member: 'desk-99999', actor: evil, pass: 'e5'.repeat(8) },
					NOW - 20_000,
				),
				// claims this console's own pass id: never shown as another's, nor as this console's
				line({ action: 'delete', member: 'desk-1', actor: evil, pass: OWN }, NOW - 10_000),
			],
		});
		r = await renderConsole(store, { columns, rows: 300 });
		await r.press('t');
		const frame = r.lastFrame();
		// nothing of the escapes reaches the terminal
		expect(frame).not.toMatch(/\u001b\[2J|\u001b\]0;|\u0007|\u001b\[31m/);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		const flat = text(frame).replace(/\s+/g, ' ');
		expect(flat).toMatch(/⚠ an Event of this pass states a time beyond its creation/);
		expect(flat).not.toContain('kube-system-1');
		expect(flat).not.toContain('desk-99999');
		expect(flat).not.toContain(`pass ${'e5'.repeat(8)}`);
		// the own plan stays as traced: still pending, nothing of the forged delete of desk-1
		expect(flat).toMatch(/pending replace desk-2/);
		expect(flat).not.toMatch(/delete desk-1/);
	});
});
