/**
 * Terminal safety: cluster objects whose holders, messages, waiting reasons, node names,
 * annotations, recorded errors and Events carry ANSI and OSC escape sequences, C0 and C1
 * control characters, bidirectional overrides, and very long and wide (CJK, emoji) strings.
 * The console (members screen and details, fed by the real pool watch) and `ctpool status`
 * must show them inert: no escape or control byte from the cluster reaches the terminal,
 * and rows with wide characters stay aligned.
 */

import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { type PoolWatch, startPoolWatch } from '../../source/kube/pool-watch.js';
import {
	ASSIGNED_TO_ANNOTATION,
	configMapName,
	MAINTENANCE_ANNOTATION,
	pvcName,
} from '../../source/pool/index.js';
import { createTheme } from '../../source/tui/render/theme.js';
import { createEngineOperations } from '../../source/tui/session/engine-operations.js';
import { type ConsoleStore, createConsoleStore } from '../../source/tui/store/store.js';
import { App } from '../../source/tui/views/App.js';
import { ctpool } from '../commands/capture.js';
import { putLease } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

/** Every byte no cluster string may bring to the terminal (newline aside). */
const FORBIDDEN =
	/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

const ESC = '\u001b';
/** Escape sequences and controls, none of them a colour code ctpool itself uses. */
const NASTY = [
	`${ESC}]0;pwned-title\u0007`, // OSC: window title
	`${ESC}]52;c;ZXZpbA==\u0007`, // OSC 52: write the clipboard
	`${ESC}]8;;http://evil.example/\u001b\\link${ESC}]8;;${ESC}\\`, // OSC 8 hyperlink
	`${ESC}[2J${ESC}[1;1H`, // clear screen, cursor home
	`${ESC}[38;5;196m`, // 256-colour SGR
	`${ESC}P1$qm${ESC}\\`, // DCS
	'\u009b31m', // C1 CSI
	'\u009d0;c1-title\u009c', // C1 OSC
	'\u0085\u0007\b\r\t\u007f', // NEL, BEL, BS, CR, TAB, DEL
	'\u202eevil\u202c', // bidi override
	'zero\u200bwidth\ufeff',
].join('');

const HOLDER = `mallory${NASTY}@example.com`;
const CJK_HOLDER = '山田太郎@例え.日本';
const EMOJI = '👩‍💻🚀🇯🇵';
const LONG = `${'長い説明'.repeat(60)}${EMOJI.repeat(20)}`;
const SCHED = `0/3 nodes are available: ${NASTY} 3 Insufficient memory ${EMOJI} ${LONG}`;
const WAITING = `back-off ${NASTY}restarting ${CJK_HOLDER}`;
const NODE = `node-${NASTY}`;
const REASON = `disk check ${NASTY} 検査中 ${EMOJI}`;
const RECORDED_ERROR = `create tty-3: ${NASTY}quota exceeded`;

let c: TestCluster;
let kube: Kube;

function update(resource: string, name: string, change: (o: Record<string, unknown>) => void) {
	const obj = structuredClone(c.sim.store.get(resource, 'corral', name)!) as Record<
		string,
		unknown
	>;
	change(obj);
	c.sim.store.update(resource, obj as never, { who: 'test' });
}

/** A Lease of the tty pool written straight into the store, as another client would. */
function lease(member: string, holder: string): void {
	putLease(c, 'tty', member, holder, Date.now(), 3600);
}

beforeAll(async () => {
	c = await startTestCluster();
	const made = await ctpool([
		'apply',
		'tty',
		'--image',
		'ghcr.io/example/desktop:1',
		'--size',
		'6',
		'--cpu',
		'1',
		...c.kc,
	]);
	expect(made.code).toBe(0);
	await c.running('tty');
	// From here the cluster holds still: nothing overwrites what the test writes.
	c.sim.controllers.stop();

	lease('tty-1', HOLDER);
	lease('tty-2', CJK_HOLDER);
	update('persistentvolumeclaims', pvcName('tty-1'), (o) => {
		(o.metadata as { annotations: Record<string, string> }).annotations[ASSIGNED_TO_ANNOTATION] =
			HOLDER;
	});
	update('persistentvolumeclaims', pvcName('tty-2'), (o) => {
		(o.metadata as { annotations: Record<string, string> }).annotations[ASSIGNED_TO_ANNOTATION] =
			CJK_HOLDER;
	});
	update('pods', 'tty-3', (o) => {
		o.status = {
			phase: 'Pending',
			conditions: [
				{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: SCHED },
			],
		};
	});
	update('pods', 'tty-4', (o) => {
		const status = o.status as { containerStatuses: Array<Record<string, unknown>> };
		status.containerStatuses = [
			{
				name: 'ct',
				ready: false,
				restartCount: 7,
				image: 'ghcr.io/example/desktop:1',
				imageID: '',
				state: { waiting: { reason: 'CrashLoopBackOff', message: WAITING } },
			},
		];
	});
	update('persistentvolumeclaims', pvcName('tty-5'), (o) => {
		(o.metadata as { annotations: Record<string, string> }).annotations[MAINTENANCE_ANNOTATION] =
			REASON;
	});
	update('pods', 'tty-6', (o) => {
		(o.spec as { nodeName: string }).nodeName = NODE;
	});
	lease('tty-9', `${HOLDER}${LONG}`); // above size, a Lease only
	update('configmaps', configMapName('tty'), (o) => {
		const data = o.data as Record<string, string>;
		const status = JSON.parse(data.status ?? '{}');
		data.status = JSON.stringify({ ...status, errors: [RECORDED_ERROR, LONG] });
	});
	c.sim.store.create(
		'events',
		{
			apiVersion: 'v1',
			kind: 'Event',
			metadata: { name: 'tty-1-data.hostile', namespace: 'corral' },
			involvedObject: {
				kind: 'PersistentVolumeClaim',
				name: pvcName('tty-1'),
				namespace: 'corral',
			},
			reason: `Claimed${NASTY}`,
			message: `tty-1 claimed by ${HOLDER} ${EMOJI}`,
			type: `Warning${ESC}[5m`,
			count: 1,
			lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
			source: { component: 'ctpool' },
		},
		{ who: 'test' },
	);
	kube = await loadKube({ kubeconfig: c.kubeconfigPath });
}, 60_000);
afterAll(() => c?.close());

/** The lines of output that carry a given member's row. */
function rowOf(lines: string[], member: string): string {
	const line = lines.find((l) => new RegExp(`(^|\\s)${member}\\s`).test(l));
	if (!line) throw new Error(`no row for ${member} in:\n${lines.join('\n')}`);
	return line;
}

/**
 * The rest of a line from a display column on, or null when that column falls inside a wide
 * character (the cells before it are misaligned).
 */
function cellAt(line: string, column: number): string | null {
	const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
	let used = 0;
	let index = 0;
	for (const { segment } of segmenter.segment(line)) {
		if (used === column) return line.slice(index);
		if (used > column) return null;
		used += stringWidth(segment);
		index += segment.length;
	}
	return used === column ? '' : null;
}

/** The display column where a text starts in a line (wide characters count two). */
function columnOf(line: string, text: string): number {
	const at = line.indexOf(text);
	return at < 0 ? -1 : stringWidth(line.slice(0, at));
}

describe('the checks of this file', () => {
	it('catch raw escapes, controls and misaligned wide cells', () => {
		expect(NASTY).toMatch(FORBIDDEN);
		for (const ch of ['\u001b', '\u0007', '\u009b', '\u0085', '\r', '\b', '\u202e', '\u200b'])
			expect(`ok${ch}`).toMatch(FORBIDDEN);
		expect(`ok\n${CJK_HOLDER}🚀🇯🇵`).not.toMatch(FORBIDDEN);
		expect(cellAt('山田 x', 1)).toBeNull(); // column 1 is inside 山
		expect(cellAt('山田 x', 5)).toBe('x');
		expect(columnOf('山田 x', 'x')).toBe(5);
	});
});

describe('ctpool status', () => {
	it('prints the table with every cluster string inert, and wide rows aligned', async () => {
		const r = await ctpool(['status', 'tty', ...c.kc], {
			env: { NO_COLOR: '1', CORRAL_NAMESPACE: 'corral' },
		});
		expect(r.code).toBe(0);
		expect(r.stderr).toBe('');
		expect(r.stdout).not.toMatch(FORBIDDEN);
		expect(r.stdout).toContain('mallory');
		expect(r.stdout).toContain(CJK_HOLDER);
		const lines = r.stdout.split('\n');
		const header = lines.find((l) => l.startsWith('NAME'))!;
		const stateCol = columnOf(header, 'STATE');
		const holderCol = columnOf(header, 'HOLDER');
		const flagsCol = columnOf(header, 'FLAGS');
		const nodeCol = columnOf(header, 'NODE');
		const ageCol = columnOf(header, 'AGE');
		const expected: Array<[string, string]> = [
			['tty-1', 'Ready'],
			['tty-2', 'Ready'],
			['tty-3', 'Unschedulable'],
			['tty-4', 'Failed'],
			['tty-5', 'Ready'],
			['tty-6', 'Ready'],
		];
		for (const [member, state] of expected) {
			const row = rowOf(lines, member);
			expect({
				member,
				state: cellAt(row, stateCol)?.split(' ')[0],
				node: cellAt(row, nodeCol)?.startsWith('node-'),
				age: /^\d+[smhd]/.test(cellAt(row, ageCol) ?? ''),
			}).toEqual({ member, state, node: true, age: true });
		}
		expect(cellAt(rowOf(lines, 'tty-9'), stateCol)?.startsWith('Missing')).toBe(true);
		expect(cellAt(rowOf(lines, 'tty-2'), holderCol)?.startsWith(CJK_HOLDER)).toBe(true);
		expect(cellAt(rowOf(lines, 'tty-5'), flagsCol)?.startsWith('maintenance')).toBe(true);
		expect(r.stdout).toContain('errors of the last reconcile');
	});

	it('with colour on, adds only its own colour codes', async () => {
		const r = await ctpool(['status', 'tty', ...c.kc], {
			env: { FORCE_COLOR: '1', CORRAL_NAMESPACE: 'corral' },
		});
		expect(r.code).toBe(0);
		expect(r.stdout).toContain(`${ESC}[32m`); // Ready in green: colour is on
		const withoutOwnColours = r.stdout.replace(/\u001b\[(0|3[0-7]|90)m/g, '');
		expect(withoutOwnColours).not.toMatch(FORBIDDEN);
	});

	it('prints JSON and YAML with every cluster string inert', async () => {
		for (const format of ['json', 'yaml']) {
			const r = await ctpool(['status', 'tty', '-o', format, ...c.kc]);
			expect(r.code).toBe(0);
			expect(r.stdout).not.toMatch(FORBIDDEN);
			expect(r.stdout).not.toContain('\\u001b');
			expect(r.stdout).not.toContain('\\e');
			expect(r.stdout).toContain('mallory');
		}
		const json = JSON.parse((await ctpool(['status', 'tty', '-o', 'json', ...c.kc])).stdout);
		expect(json.members.find((m: { name: string }) => m.name === 'tty-2').holder).toBe(CJK_HOLDER);
	});
});

describe('the console', () => {
	let store: ConsoleStore;
	let watch: PoolWatch;

	beforeAll(async () => {
		store = createConsoleStore({ session: { namespace: 'corral', context: 'sim' }, pool: 'tty' });
		watch = startPoolWatch(
			kube,
			{ namespace: 'corral' },
			{
				onBatch: (changes) => store.getState().applyBatch(changes),
				onConnection: (overall, byKind) => store.getState().setConnection(overall, byKind),
			},
		);
		await waitFor(
			() =>
				store.getState().connection.phase === 'synced' &&
				(store.getState().pools.tty?.rows.length ?? 0) >= 7,
			{ what: 'the console store synced with pool tty' },
		);
	});
	afterAll(() => watch?.stop());

	function app(ops = createEngineOperations({ store, kube, namespace: 'corral', actor: 'test' })) {
		return { r: render(<App store={store} ops={ops} theme={createTheme(true)} />), ops };
	}

	const flush = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

	it('shows the members screen with every cluster string inert, and wide rows aligned', async () => {
		const { r, ops } = app();
		try {
			await flush();
			const frame = r.lastFrame() ?? '';
			expect(r.frames.join('')).not.toMatch(FORBIDDEN);
			expect(frame).toContain('tty-1');
			expect(frame).toContain('mallory');
			expect(frame).toContain(CJK_HOLDER);
			const lines = frame.split('\n');
			for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(100);
			const header = lines.find((l) => /\bNAME\s+STATE\b/.test(l))!;
			const expected: Array<[string, string]> = [
				['tty-1', 'Ready'],
				['tty-2', 'Ready'],
				['tty-3', 'Unschedulable'],
				['tty-4', 'Failed'],
				['tty-5', 'Ready'],
				['tty-6', 'Ready'],
			];
			// Every column starts at the header's display column on every row: wide characters
			// count two columns, and nothing a cluster string holds shifts the cells after it.
			for (const [member, state] of expected) {
				const row = rowOf(lines, member);
				expect({
					member,
					state: cellAt(row, columnOf(header, 'STATE'))?.split(' ')[0],
					node: cellAt(row, columnOf(header, 'NODE'))?.startsWith('node-'),
					age: /^\d+[smhd]/.test(cellAt(row, columnOf(header, 'AGE')) ?? ''),
				}).toEqual({ member, state, node: true, age: true });
			}
		} finally {
			r.unmount();
			ops.close();
		}
	});

	it('shows the details and Events of a member with every cluster string inert', async () => {
		const { r, ops } = app();
		try {
			await flush();
			store.getState().selectMember('tty-1');
			await flush();
			r.stdin.write('\r');
			await waitFor(() => (store.getState().details?.events.length ?? 0) > 0, {
				what: 'the Events of tty-1 loaded',
			});
			await flush(50);
			const frame = r.lastFrame() ?? '';
			expect(store.getState().screen).toBe('details');
			expect(r.frames.join('')).not.toMatch(FORBIDDEN);
			expect(frame).toContain('mallory');
			// the Events are at the end of the details: scroll there (G) to see the claim's
			r.stdin.write('G');
			await flush(50);
			expect(r.lastFrame() ?? '').toContain('Claimed');
			expect(r.frames.join('')).not.toMatch(FORBIDDEN);
			for (const line of frame.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(100);
			for (const member of ['tty-3', 'tty-4', 'tty-5', 'tty-6']) {
				store.getState().selectMember(member);
				await flush();
				const f = r.lastFrame() ?? '';
				expect({ member, bad: FORBIDDEN.test(f) }).toEqual({ member, bad: false });
			}
		} finally {
			r.unmount();
			ops.close();
		}
	});

	it('shows activity log entries that quote cluster strings inert', async () => {
		const { r, ops } = app();
		try {
			// An entry that quotes cluster strings raw, as a careless event sink might pass them.
			store.getState().logEvent({
				time: Date.now(),
				actor: HOLDER,
				pool: 'tty',
				member: 'tty-1',
				action: `release${NASTY}`,
				outcome: 'error',
				message: `tty-1 is claimed by ${HOLDER}; ${LONG}`,
			});
			store.getState().toggleLog();
			await flush(50);
			const frame = r.lastFrame() ?? '';
			expect(frame).toContain('mallory');
			expect(frame).not.toMatch(FORBIDDEN);
			for (const line of frame.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(100);
		} finally {
			store.getState().toggleLog();
			r.unmount();
			ops.close();
		}
	});
});
