/**
 * Issue 12, finding 5: no terminal input crashes the console. Ink 6.8's useInput throws on
 * some CSI sequences (ESC[31m, ESC[0m, ESC[5m, ESC[6n); the console guards its input events.
 * The issue's sequences, then random byte sequences (escape sequences, pastes, mouse
 * reports), typed into the table, the filter prompt and the claim prompt: the console keeps
 * running and still answers keys.
 */

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 2 });
const objects = () => [...member('desk', 1, s), ...member('desk', 2, s)];

const ISSUE_SEQUENCES = ['\u001b[31m', '\u001b[0m', '\u001b[5m', '\u001b[6n'];

/** Escape sequences of every shape a terminal or a paste sends, and raw bytes. */
const sequence = fc.oneof(
	fc.constantFrom(
		...ISSUE_SEQUENCES,
		'\u001b[200~',
		'\u001b[201~',
		'\u001b[<0;10;5M',
		'\u001b[M !!',
	),
	fc
		.tuple(
			fc.constantFrom('\u001b[', '\u001b\u001b[', '\u001bO', '\u009b', '\u001b[?'),
			fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 3 }),
			fc.constantFrom(...'ABCDEFGHJKPQRSTZmnhlrsu~@`cqtx'.split('')),
		)
		.map(([lead, params, final]) => `${lead}${params.join(';')}${final}`),
	fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b).toString('latin1')),
	fc.string({ maxLength: 6 }),
);

describe('terminal input', () => {
	it.each(ISSUE_SEQUENCES.map((q) => [JSON.stringify(q), q]))(
		'%s in the filter prompt does not end the console',
		async (_name, q) => {
			const store = storeWith(objects(), { spec: s });
			r = await renderConsole(store, { columns: 100, rows: 24 });
			await r.press('/', q, 'x');
			expect(store.getState().prompt?.kind).toBe('filter');
			await r.press(KEY.escape);
			expect(store.getState().prompt).toBeNull();
		},
	);

	it('random byte sequences in the table, the filter and the claim prompt never end it', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(sequence, { minLength: 1, maxLength: 6 }), async (seqs) => {
				const { ops } = recordingOps();
				const store = storeWith(objects(), { spec: s });
				const rc = await renderConsole(store, { columns: 100, rows: 24, ops });
				try {
					// A crash rejects; a quit (a pasted ESC[q reads as Alt-q) is a clean end.
					let crashed: unknown = null;
					let quit = false;
					void rc.exited().then(
						() => {
							quit = true;
						},
						(err: unknown) => {
							crashed = err ?? 'crashed';
						},
					);
					await rc.press(...seqs);
					await rc.press(KEY.escape, KEY.escape, '/', ...seqs, KEY.escape, KEY.escape);
					await rc.press('c', ...seqs, KEY.escape, KEY.escape);
					expect(crashed).toBeNull();
					// still answers keys (unless it was told to quit)
					await rc.press(KEY.escape, KEY.escape, '?');
					if (!quit) expect(store.getState().screen).toBe('help');
					expect(crashed).toBeNull();
				} finally {
					rc.unmount();
				}
			}),
			{ numRuns: 25 },
		);
	}, 120_000);
});
