/**
 * Issue 23, point 4, in the console: a member an older Corral broker claimed shows that
 * holder as Corral's, is not free, and says why; the Lease (not watched: it lacks the pool's
 * label) is known from the status the last reconcile recorded.
 */

import { describe, expect, it } from 'vitest';
import { memberCell } from '../../source/tui/model/member-columns.js';
import { memberRow } from '../../source/tui/model/member-row.js';
import { NOW, pod, pvc } from '../pool/fixtures.js';

const pool = { spec: null, sourceHash: null };

describe('the members screen and an older Corral claim', () => {
	it("the PVC's corral.dev/vdi-assigned-to label: the holder is shown as Corral's", () => {
		const claimed = pvc('desk-1');
		claimed.metadata.labels = { ...claimed.metadata.labels, 'corral.dev/vdi-assigned-to': 'dave' };
		const row = memberRow(
			{ name: 'desk-1', index: 1, pod: pod('desk-1'), pvc: claimed },
			pool,
			NOW,
		);
		expect(row.free).toBe(false);
		expect(memberCell('holder', row, NOW).text).toBe('dave (Corral)');
		expect(row.message).toContain(
			"desk-1: claimed by dave through an older Corral broker's claim (label corral.dev/vdi-assigned-to on PVC desk-1-data)",
		);
	});

	it('the Lease corral-vdi-<member>, named by the recorded status', () => {
		const recorded = {
			errors: [
				"desk-2: claimed by carol@example.com through an older Corral broker's claim (Lease corral-vdi-desk-2); ctpool does not hand it out, replace it or change that claim: release it with the Corral tools that made it",
			],
		} as unknown as NonNullable<Parameters<typeof memberRow>[1]['recorded']>;
		const row = memberRow(
			{ name: 'desk-2', index: 2, pod: pod('desk-2'), pvc: pvc('desk-2') },
			{ ...pool, recorded },
			NOW,
		);
		expect(row.free).toBe(false);
		expect(row.corralClaim).toBe('Lease corral-vdi-desk-2');
		expect(memberCell('holder', row, NOW).text).toBe('carol@example.com (Corral)');
		const free = memberRow(
			{ name: 'desk-3', index: 3, pod: pod('desk-3'), pvc: pvc('desk-3') },
			{ ...pool, recorded },
			NOW,
		);
		expect(free.free).toBe(true);
		expect(memberCell('holder', free, NOW).text).toBe('-');
	});
});
