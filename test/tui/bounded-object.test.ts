/** What the console keeps of a watched object: no managedFields, strings cut to the bound. */

import { describe, expect, it } from 'vitest';
import { CONSOLE_STRING_BOUND, consoleObject } from '../../source/tui/model/bounded-object.js';
import { ObjectIndex } from '../../source/tui/model/object-index.js';

const pod = (extra: Record<string, unknown> = {}) => ({
	apiVersion: 'v1',
	kind: 'Pod',
	metadata: {
		name: 'desk-1',
		labels: { 'corral.dev/vdi-ct-pool': 'desk' },
		resourceVersion: '7',
		...extra,
	},
	status: { phase: 'Running' },
});

describe('consoleObject', () => {
	it('drops metadata.managedFields and keeps everything else', () => {
		const raw = pod({
			managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': {} } }],
		});
		const kept = consoleObject('pods', raw);
		expect(kept.metadata).not.toHaveProperty('managedFields');
		expect(kept).toEqual(pod());
		// the object it was given is left as it was
		expect(raw.metadata).toHaveProperty('managedFields');
	});

	it('returns the object itself when there is nothing to drop or cut', () => {
		const raw = pod();
		expect(consoleObject('pods', raw)).toBe(raw);
	});

	it('still cuts a long string, with or without managedFields', () => {
		const long = 'x'.repeat(CONSOLE_STRING_BOUND + 50);
		for (const extra of [{}, { managedFields: [] }]) {
			const kept = consoleObject('pods', { ...pod(extra), status: { message: long } });
			expect(kept.status.message).toHaveLength(CONSOLE_STRING_BOUND + 1);
			expect(kept.metadata).not.toHaveProperty('managedFields');
		}
	});

	it('is what the console index keeps, for lists and watch events alike', () => {
		const index = new ObjectIndex();
		const withFields = pod({ managedFields: [{ manager: 'kubectl' }] });
		index.apply([{ kind: 'pods', op: 'reset', objects: [withFields as never] }]);
		expect(index.get('pods', 'desk-1')?.metadata).not.toHaveProperty('managedFields');
		index.apply([{ kind: 'pods', op: 'upsert', object: withFields as never }]);
		expect(index.get('pods', 'desk-1')?.metadata).not.toHaveProperty('managedFields');
	});
});
