/**
 * A rollout under way shows in the console: the member screens' header leads its spec line
 * with `rolling 2/4 to <image>` and what the members on the old image wait for (the figures
 * below stay where they are), and the pools screen leads a pool's last-reconcile cell with it
 * where the column fits. In a rollout in waves (maxUnavailable) the members waiting for their
 * wave stay claimable: idle desktops on the old image are no exhaustion (issue 24, finding 2).
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const OLD = spec({ size: 5, image: 'ghcr.io/example/desktop:1' });
const NEW = spec({ size: 5, image: 'ghcr.io/example/desktop:2' });
/** The image the rollout goes to, with or without its registry and path as the width allows. */
const TO_NEW = 'rolling 2/4 to (ghcr\\.io/example/)?desktop:2';

/**
 * desk moving from :1 to :2: desk-1 claimed on the old source (it stays), desk-2 and desk-3
 * already replaced, desk-4 and desk-5 still on the old one: 2 of the 4 unclaimed updated.
 */
function rollingDesk(pool: string | null = 'desk') {
	return storeWith(
		[
			...member('desk', 1, NEW, { builtFrom: OLD, holder: 'alice@example.com' }),
			...member('desk', 2, NEW),
			...member('desk', 3, NEW),
			...member('desk', 4, NEW, { builtFrom: OLD }),
			...member('desk', 5, NEW, { builtFrom: OLD }),
		],
		{ spec: NEW, pool },
	);
}

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('rollout progress at %ix%i', (columns, rows) => {
	it('leads the header spec line, and the counts line stays whole', async () => {
		r = await renderConsole(rollingDesk(), { columns, rows });
		const frame = r.lastFrame();
		const line = lineWith(frame, 'rolling');
		// the image, never the source hash; the claimed member waits for its release
		expect(line).toMatch(
			new RegExp(`^${TO_NEW} · 1 (claimed on the )?old image, replaced after release`),
		);
		if (columns >= 200)
			expect(line).toMatch(
				/^rolling 2\/4 to ghcr\.io\/example\/desktop:2 · 1 claimed on the old image, replaced after release · size 5 · ephemeral/,
			);
		// whole at every size: the labels shorten where the full ones do not fit
		expect(lineWith(frame, 'desired')).toMatch(
			columns >= 120
				? /^desired 5 observed 5 ready 5 claimed 1 claimable now 2 soon 0 refused\/1h … unschedulable 0 drifted 3$/
				: /^desired 5 obs 5 ready 5 claimed 1 free 2\+0 refused … unsched 0 drift 3$/,
		);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
	});

	it('is not shown once every unclaimed member runs the new source', async () => {
		const store = storeWith(
			[
				...member('desk', 1, NEW, { builtFrom: OLD, holder: 'alice@example.com' }),
				...[2, 3, 4, 5].flatMap((i) => member('desk', i, NEW)),
			],
			{ spec: NEW },
		);
		r = await renderConsole(store, { columns, rows });
		expect(r.lastFrame()).not.toContain('rolling');
		// the claimed member on the old source is still drifted: the count says so
		expect(lineWith(r.lastFrame(), 'desired')).toMatch(/ drift(ed)? 1$/);
	});
});

describe('rollout progress on the pools screen', () => {
	it('leads the last-reconcile cell where the column fits', async () => {
		r = await renderConsole(rollingDesk(null), { columns: 180, rows: 40 });
		const row = lineWith(r.lastFrame(), 'desktop:2');
		expect(row).toContain('rolling 2/4 to ghcr.io/example/desktop:2');
	});
});

/** desk in waves of 1, size 8: four claimed and four idle desktops, all on the old image. */
function waitingDesk() {
	const waves = spec({ size: 8, image: 'ghcr.io/example/desktop:2', maxUnavailable: 1 });
	const users = ['alice', 'bob', 'carol', 'dave'];
	return storeWith(
		[1, 2, 3, 4, 5, 6, 7, 8].flatMap((i) =>
			member('desk', i, waves, {
				builtFrom: OLD,
				...(i <= 4 ? { holder: `${users[i - 1]}@example.com` } : {}),
			}),
		),
		{ spec: waves },
	);
}

describe.each([
	[80, 24],
	[120, 40],
])('a rollout in waves at %ix%i', (columns, rows) => {
	it('keeps the idle desktops on the old image claimable: no EXHAUSTED, and the header and rows say what they wait for', async () => {
		const store = waitingDesk();
		r = await renderConsole(store, { columns, rows });
		const frame = r.lastFrame();
		expect(frame).not.toContain('EXHAUSTED');
		expect(lineWith(frame, 'desired')).toMatch(
			columns >= 120 ? /claimable now 4 soon 0 / : /free 4\+0 /,
		);
		expect(lineWith(frame, 'rolling')).toMatch(
			/^rolling 0\/4 to (ghcr\.io\/example\/)?desktop:2 · 8 (on the )?old image, replaced after release or in its wave/,
		);
		const pool = store.getState().pools.desk!;
		expect(pool.counts).toMatchObject({ free: 4, exhausted: false, drifted: 8 });
		for (const row of pool.rows)
			expect(row.message).toBe('old image, replaced after release or in its wave');
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
	});
});

describe('a rollout in waves, wide', () => {
	it('says on each row that the member is on the old image, replaced after release or in its wave', async () => {
		r = await renderConsole(waitingDesk(), { columns: 200, rows: 40 });
		for (const m of ['desk-1', 'desk-5'])
			expect(lineWith(r.lastFrame(), m)).toContain(
				'old image, replaced after release or in its wave',
			);
	});
});
