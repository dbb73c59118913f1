/** What the console keeps of a watched object: no managedFields, strings cut to the bound. */

import { describe, expect, it } from 'vitest';
import { readAhead, readBatch } from '../../source/kube/watch-boundary.js';
import {
	CONSOLE_STRING_BOUND,
	consoleObject,
	consoleObjectsAhead,
} from '../../source/tui/model/bounded-object.js';
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

describe("the boundary and the bounding made ahead of a list's batch, page by page", () => {
	const managed = () =>
		pod({ managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: {} }] });

	it('the batch takes the read made ahead, once; a later batch reads the object again', () => {
		const good = pod();
		const bad = { ...pod(), status: { conditions: 'not a list' } };
		expect(readAhead('pods', [good, bad, 'not an object'])).toEqual([good]);
		// the objects must not change after they are listed; were one to, the batch would
		// still hold the read made ahead (so the read is not made twice)
		(good.status as Record<string, unknown>).conditions = 'changed';
		const first = readBatch([{ kind: 'pods', op: 'reset', objects: [good, bad] as never }]);
		expect(first.changes).toEqual([{ kind: 'pods', op: 'reset', objects: [good] }]);
		expect(first.problems.map((p) => p.problem)).toEqual([
			'Pod desk-1: status.conditions is not a list',
		]);
		// taken: the next batch reads it as it is now
		const again = readBatch([{ kind: 'pods', op: 'reset', objects: [good] as never }]);
		expect(again.changes).toEqual([{ kind: 'pods', op: 'reset', objects: [] }]);
		expect(again.problems).toHaveLength(1);
	});

	it('a read made ahead for another kind is not taken', () => {
		const lease = { ...pod(), kind: 'Lease', spec: { holderIdentity: 7 } };
		// as a pod it reads (a pod has no spec.holderIdentity); as a Lease it does not
		expect(readAhead('pods', [lease])).toEqual([lease]);
		const read = readBatch([{ kind: 'leases', op: 'reset', objects: [lease] as never }]);
		expect(read.problems.map((p) => p.problem)).toEqual([
			'Lease desk-1: spec.holderIdentity is not text',
		]);
	});

	it('the batch keeps the object made ahead, once, and only for its kind', () => {
		const raw: Record<string, unknown> & ReturnType<typeof managed> = managed();
		consoleObjectsAhead('pods', [raw]);
		// (listed objects never change; this one does, to tell which copy the batch keeps)
		raw.spec = { nodeName: 'node-9' };
		const kept = consoleObject('pods', raw);
		expect(kept.metadata).not.toHaveProperty('managedFields');
		expect(kept).not.toHaveProperty('spec');
		// made again after it was taken: an equal copy, not the same one
		const again = consoleObject('pods', raw);
		expect(again).toEqual({ ...kept, spec: { nodeName: 'node-9' } });
		const other = managed();
		consoleObjectsAhead('leases', [other]);
		expect(consoleObject('pods', other)).toEqual(kept);
	});

	it('an index fed a list made ahead holds what it holds without', () => {
		const long = 'x'.repeat(CONSOLE_STRING_BOUND + 10);
		const listed = () => [
			managed(),
			{ ...pod({ name: 'desk-2' }), status: { phase: 'Running', message: long } },
		];
		const plain = new ObjectIndex();
		plain.apply([{ kind: 'pods', op: 'reset', objects: listed() as never }]);
		const ahead = new ObjectIndex();
		const objects = listed();
		consoleObjectsAhead('pods', readAhead('pods', objects));
		ahead.apply([{ kind: 'pods', op: 'reset', objects: objects as never }]);
		for (const name of ['desk-1', 'desk-2'])
			expect(ahead.get('pods', name)).toEqual(plain.get('pods', name));
		expect(
			(ahead.get('pods', 'desk-2') as unknown as { status: { message: string } }).status.message,
		).toHaveLength(CONSOLE_STRING_BOUND + 1);
	});
});
