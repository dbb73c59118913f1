/**
 * Issue 15, layout rules: at every size down to 80x24 the footer keeps `? help` and `q quit`
 * (other hints give way first), and the header never cuts its alarm words (EXHAUSTED,
 * read-only) nor the connection.
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { fitHints } from '../../source/tui/views/key-hints.js';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const LONG_CONTEXT = 'arn:aws:eks:eu-west-1:123456789012:cluster/corral-production-desktops';

/** Pool desk, size 1, its one member claimed: exhausted. */
function exhaustedDesk(readOnly: boolean) {
	const s = poolSpec({ size: 1 });
	const store = storeWith(member('desk', 1, s, { holder: 'alice@example.com' }), {
		spec: s,
		session: { context: LONG_CONTEXT, readOnly },
	});
	store.getState().setLoop({ on: true, pool: 'desk' });
	return store;
}

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('layout rules at %ix%i', (columns, rows) => {
	it('the footer keeps ? help and q quit; the header keeps its alarm words whole', async () => {
		const store = exhaustedDesk(false);
		r = await renderConsole(store, { columns, rows });
		const frame = r.lastFrame();
		const footer =
			lines(frame)
				.filter((l) => l.trim() !== '')
				.at(-1) ?? '';
		expect(footer).toContain('? help');
		expect(footer).toContain('q quit');
		expect(footer).toContain('⏎ open');
		const top = lineWith(frame, 'ctpool');
		expect(top).toContain('● live');
		expect(top).toContain('⟳ loop on');
		// the counts line stays whole: full labels where they fit, short ones beside EXHAUSTED at 80
		expect(lineWith(frame, 'EXHAUSTED')).toMatch(
			columns >= 120
				? /^EXHAUSTED\s+desired 1 observed 1 ready 1 claimed 1 claimable now 0 soon 0 refused\/1h … unschedulable 0 drifted 0$/
				: /^EXHAUSTED\s+des 1 obs 1 rdy 1 clm 1 free 0\+0 ref … unsch 0 drift 0$/,
		);
		// a wide terminal has room for the whole context
		if (columns >= 200) expect(top).toContain(`ctx ${LONG_CONTEXT}`);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
	});

	it('read-only and the connection are never cut by a long context', async () => {
		const store = exhaustedDesk(true);
		r = await renderConsole(store, { columns, rows });
		const top = lineWith(r.lastFrame(), 'ctpool');
		expect(top).toMatch(/● live\s+⟳ loop on\s+read-only$/);
		expect(stringWidth(top)).toBeLessThanOrEqual(columns);
	});
});

describe('fitHints', () => {
	const hints = ['open', 'back', 'filter', 'claim', 'log', 'help', 'quit'].map((hint) => ({
		keys: hint[0] ?? '',
		hint,
	}));
	it('drops the hints that give way first, never help or quit', () => {
		expect(fitHints(hints, 200).map((h) => h.hint)).toEqual(hints.map((h) => h.hint));
		expect(fitHints(hints, 30).map((h) => h.hint)).toEqual(['open', 'back', 'help', 'quit']);
		expect(fitHints(hints, 5).map((h) => h.hint)).toEqual(['help', 'quit']);
	});
});
