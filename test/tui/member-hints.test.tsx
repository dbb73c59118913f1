/** "What to do now": the hints in the member details and under the pools table, at 80x24 and 120x40. */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import { nodeRooms, type PoolSpec, REPLACED_ANNOTATION } from '../../source/pool/index.js';
import { CONSOLE_STRING_BOUND } from '../../source/tui/model/bounded-object.js';
import type { HintInputs } from '../../source/tui/model/member-hint.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const SIZES = [
	[80, 24],
	[120, 40],
	[200, 50],
] as const;

type Obj = KubeObject & {
	spec?: Record<string, unknown>;
	status?: Record<string, unknown>;
	metadata: { annotations?: Record<string, string> };
};

/** The member's objects with a real CT container (image, requests) and, optionally, a waiting reason. */
function withContainer(
	objects: KubeObject[],
	s: PoolSpec,
	o: { waiting?: { reason: string; message: string }; restarts?: number; replaced?: string } = {},
): KubeObject[] {
	for (const obj of objects as Obj[]) {
		if (obj.kind === 'PersistentVolumeClaim' && o.replaced)
			obj.metadata.annotations = { ...obj.metadata.annotations, [REPLACED_ANNOTATION]: o.replaced };
		if (obj.kind !== 'Pod') continue;
		const resources = { cpu: s.cpu, memory: s.memory };
		obj.spec = {
			...obj.spec,
			containers: [
				{
					name: 'ct',
					image: s.image,
					command: ['sleep', 'infinity'],
					resources: { requests: resources, limits: resources },
				},
			],
		};
		const status = (obj.status ?? {}) as { containerStatuses?: Array<Record<string, unknown>> };
		if (o.waiting)
			status.containerStatuses = [
				{ name: 'ct', ready: false, restartCount: o.restarts ?? 0, state: { waiting: o.waiting } },
			];
		for (const cs of status.containerStatuses ?? []) {
			cs.image = s.image;
			if (!o.waiting || o.waiting.reason === 'CrashLoopBackOff')
				cs.imageID = 'ghcr.io/example/desktop@sha256:4c2a9f';
		}
		obj.status = status;
	}
	return objects;
}

/** The frame's text as one line: lines trimmed and joined (hint lines wrap at 80 columns). */
function flat(frame: string): string {
	return lines(frame)
		.map((l) => l.trim())
		.join(' ')
		.replace(/\s+/g, ' ');
}

/** The layout rules every frame keeps: no line wider than the terminal, help and quit in the footer. */
function expectLayout(frame: string, columns: number, rows: number): void {
	const all = lines(frame);
	expect(all.length).toBeLessThanOrEqual(rows);
	for (const l of all) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
	expect(all.at(-1)).toContain('? help');
	expect(all.at(-1)).toContain('q quit');
}

async function details(
	objects: KubeObject[],
	s: PoolSpec,
	columns: number,
	rows: number,
	facts?: HintInputs,
	status?: unknown,
): Promise<string> {
	const store = storeWith(objects, { spec: s, status });
	r = await renderConsole(store, { columns, rows });
	await r.press(KEY.enter);
	if (facts) store.getState().setHintInputs('desk-1', facts);
	await r.press();
	const frame = r.lastFrame();
	expectLayout(frame, columns, rows);
	return frame;
}

const GI = 2 ** 30;

describe.each(SIZES)('member hints at %ix%i', (columns, rows) => {
	it('Unschedulable: what it requests against the roomiest node, and how many more fit on a node like the largest', async () => {
		const s = spec({ size: 1, cpu: '2', memory: '4Gi' });
		const rooms = nodeRooms(
			[
				{ metadata: { name: 'node-a' }, status: { allocatable: { cpu: '4', memory: '8Gi' } } },
				{ metadata: { name: 'node-b' }, status: { allocatable: { cpu: '8', memory: '32Gi' } } },
			],
			[
				{
					spec: {
						nodeName: 'node-a',
						containers: [{ resources: { requests: { cpu: '3', memory: '2Gi' } } }],
					},
				},
				{
					spec: {
						nodeName: 'node-b',
						containers: [{ resources: { requests: { cpu: '8', memory: `${GI}` } } }],
					},
				},
			],
		);
		const objects = withContainer(member('desk', 1, s, { state: 'Unschedulable' }), s);
		const frame = flat(await details(objects, s, columns, rows, { rooms: { value: rooms } }));
		expect(frame).toContain(
			'Do needs cpu 2, memory 4Gi; the roomiest node, node-a, has cpu 1, memory 6Gi free',
		);
		expect(frame).toContain(
			"4 more fit when a node like node-b (cpu 8, memory 32Gi) is added; or lower the pool's cpu/memory: ctpool apply desk --cpu <cores> --mem <memory> -n corral",
		);
	});

	it('Unschedulable without the node permissions: says what it cannot show and why', async () => {
		const s = spec({ size: 1, cpu: '2', memory: '4Gi' });
		const objects = withContainer(member('desk', 1, s, { state: 'Unschedulable' }), s);
		const denied = 'forbidden: cannot list nodes (ask for the "list" permission on nodes)';
		const frame = flat(
			await details(objects, s, columns, rows, { rooms: { unavailable: denied } }),
		);
		expect(frame).toContain(
			`needs cpu 2, memory 4Gi; the nodes' free room is not shown: ${denied} (it needs list on nodes, and on pods in all namespaces)`,
		);
	});

	it('an image pull error on most members: the pool image cannot be pulled, with the apply command', async () => {
		const s = spec({ size: 3, image: 'registry.invalid/desktop:1' });
		const pull = {
			reason: 'ImagePullBackOff',
			message: 'Back-off pulling image "registry.invalid/desktop:1"',
		};
		const objects = [1, 2, 3].flatMap((i) =>
			withContainer(member('desk', i, s, { state: 'Failed' }), s, { waiting: pull }),
		);
		const frame = flat(await details(objects, s, columns, rows));
		expect(frame).toContain(
			'the pool image registry.invalid/desktop:1 cannot be pulled (3 of 3 members): fix it in the registry, or change it with: ctpool apply desk --image <image> -n corral',
		);
		expect(frame).toContain('the next reconcile replaces it (r reconciles now)');
		// not pulled: the actual image is not known yet
		expect(frame).toContain('Image registry.invalid/desktop:1 · not pulled yet');
	});

	it('CrashLoopBackOff: the last log lines of the previous run, and the actual image', async () => {
		const s = spec({ size: 1 });
		const crash = {
			reason: 'CrashLoopBackOff',
			message: 'back-off 20s restarting failed container=ct',
		};
		const objects = withContainer(member('desk', 1, s, { state: 'Failed' }), s, {
			waiting: crash,
			restarts: 4,
		});
		const log = [
			'starting desktop',
			'reading /data/config',
			'fatal: /data/config: permission denied',
		];
		const frame = await details(objects, s, columns, rows, { log: { value: log } });
		const text = flat(frame);
		expect(text).toContain('the container keeps crashing (4 restarts)');
		for (const l of log) expect(text).toContain(l);
		expect(text).toContain(
			'Image ghcr.io/example/desktop:1 · running ghcr.io/example/desktop@sha256:4c2a9f',
		);
		// the log lines come in order, one line each
		const at = log.map((l) => lines(frame).findIndex((f) => f.includes(l)));
		expect(at).toEqual([...at].sort((a, b) => a - b));
	});

	it('a huge or hostile log line is cleaned and cut: the member fields stay on the screen', async () => {
		const s = spec({ size: 1 });
		const crash = { reason: 'CrashLoopBackOff', message: 'back-off 10s' };
		const objects = withContainer(member('desk', 1, s, { state: 'Failed' }), s, { waiting: crash });
		const huge = `\u001b[2J\u001b]0;owned\u0007${'word '.repeat(13_000)}`;
		const frame = await details(objects, s, columns, rows, { log: { value: [huge] } });
		expect(frame).not.toContain('\u001b]0;');
		expect(frame).not.toContain('\u0007');
		expect(frame).toMatch(/^Free /m);
		expect(frame).toMatch(/^Pod /m);
	});

	it('drifted: what differs; an expired claim: who, since when, and the release key', async () => {
		const s = spec({ size: 1 });
		const old = spec({ size: 1, image: 'ghcr.io/example/desktop:0' });
		const objects = member('desk', 1, s, {
			builtFrom: old,
			holder: 'alice@example.com',
			claimedAgo: 2 * 3600_000,
		});
		const frame = flat(await details(objects, s, columns, rows));
		expect(frame).toContain(
			'differs from the pool: image ghcr.io/example/desktop:0 -> ghcr.io/example/desktop:1; it is replaced once alice@example.com releases it (x force-releases it now)',
		);
		expect(frame).toMatch(
			/the claim of alice@example\.com expired 60m ago, claimed at \d\d:\d\d:\d\d \(120m ago\); it still protects the desktop: x force-releases it \(destroys its data\), or alice@example\.com renews it by claiming again/,
		);
	});

	it('a member that failed again after a replace: when the next replace comes', async () => {
		const s = spec({ size: 3 });
		const crash = { reason: 'CrashLoopBackOff', message: 'back-off 10s' };
		const replaced = JSON.stringify({ count: 2, at: new Date(NOW - 5000).toISOString() });
		const objects = withContainer(member('desk', 1, s, { state: 'Failed' }), s, {
			waiting: crash,
			replaced,
		});
		const frame = flat(await details(objects, s, columns, rows, { log: { value: [] } }));
		expect(frame).toMatch(
			/replaced 2 times after failures; the next replace waits until \d\d:\d\d:\d\d \(in 15s\)/,
		);
	});

	it('the pools screen: the selected troubled pool says what to do; a stopped replace is said', async () => {
		const s = spec({ size: 3, image: 'registry.invalid/desktop:1' });
		const pull = { reason: 'ErrImagePull', message: 'rpc error: code = NotFound' };
		const objects = [1, 2, 3].flatMap((i) =>
			withContainer(member('desk', i, s, { state: 'Failed' }), s, { waiting: pull }),
		);
		const storm =
			'pool desk: 3 of 3 members failed the same way (ImagePullBackOff) after 2 replaces; replacing is stopped until the definition changes or members recover: the pool image cannot be pulled; change it with: ctpool apply desk --image <image>';
		const status = {
			observedAt: new Date(NOW - 60_000).toISOString(),
			reconciler: 'corral-vdi/reconciler',
			desired: 3,
			observed: 3,
			ready: 0,
			claimed: 0,
			free: 0,
			unschedulable: 0,
			exhausted: true,
			// rows as reconcile records them: the status is longer than the console's string
			// bound, and must still be read whole
			members: [1, 2, 3].map((i) => ({
				name: `desk-${i}`,
				index: i,
				state: 'Failed',
				holder: '',
				claimExpired: false,
				maintenance: false,
				drifted: false,
				aboveSize: false,
				node: 'node-a',
				message: `ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "registry.invalid/desktop:1": not found`,
			})),
			errors: [storm],
		};
		expect(JSON.stringify(status).length).toBeGreaterThan(CONSOLE_STRING_BOUND);
		const store = storeWith(objects, { spec: s, status, pool: null });
		r = await renderConsole(store, { columns, rows });
		const frame = r.lastFrame();
		expectLayout(frame, columns, rows);
		expect(flat(frame)).toContain(
			'Do: desk: the pool image cannot be pulled; replacing stopped. Change the image: ctpool apply desk --image <image> -n corral',
		);
		// and in the details of a member
		await r.press(KEY.enter, KEY.enter);
		const inside = r.lastFrame();
		expectLayout(inside, columns, rows);
		// the header says it beside EXHAUSTED, neither cut
		expect(lines(inside)[2]).toMatch(/^EXHAUSTED {2}REPLACING STOPPED {2}des(ired)? 3/);
		expect(flat(inside)).toContain(
			'replacing is stopped (most of the pool fails the same way); it resumes once the definition changes or members recover',
		);
	});
});

describe('pools screen hints', () => {
	it('the Do line lists every cause, the most urgent first: room, Failed, expired claims (issue 24, finding 6)', async () => {
		const s = spec({ size: 3 });
		const objects = [
			...member('desk', 1, s, { state: 'Unschedulable' }),
			...member('desk', 2, s, { state: 'Failed' }),
			...member('desk', 3, s, { holder: 'alice@example.com', claimedAgo: 2 * 3600_000 }),
		];
		const store = storeWith(objects, { spec: s, pool: null });
		r = await renderConsole(store, { columns: 80, rows: 24 });
		const text = flat(r.lastFrame());
		const room = text.indexOf('Do: desk: 1 member waits for room on the nodes');
		const failed = text.indexOf('1 member Failed');
		const expired = text.indexOf('1 expired claim; * releases the expired claims');
		expect(room).toBeGreaterThanOrEqual(0);
		expect(failed).toBeGreaterThan(room);
		expect(expired).toBeGreaterThan(failed);
	});

	it('says nothing for a healthy pool, and how many pools need attention when the selected one is fine', async () => {
		const ok = spec({ size: 1 });
		const store = storeWith(member('desk', 1, ok), { spec: ok, pool: null });
		r = await renderConsole(store, { columns: 80, rows: 24 });
		expect(r.lastFrame()).not.toContain('Do:');
		expect(r.lastFrame()).not.toContain('need attention');
	});
});
