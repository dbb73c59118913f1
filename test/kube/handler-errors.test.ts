/**
 * Issue 22, finding 1 (the controller side): an error a watch's sink throws is told in one
 * line naming the object, and is neither thrown back at the watch nor left to end the process.
 */

import { describe, expect, it } from 'vitest';
import {
	handlerErrorLine,
	objectName,
	setHandlerErrorSink,
} from '../../source/kube/handler-errors.js';
import type { KubeObject } from '../../source/kube/objects.js';
import { DeferredSink } from '../../source/kube/pool-watch.js';

const event = {
	kind: 'Event',
	apiVersion: 'v1',
	metadata: { name: 'desk.1\n\u001b[31mred', namespace: 'corral' },
} as KubeObject;

describe('handler errors', () => {
	it('are one inert line naming the object', () => {
		expect(objectName(event)).toBe('Event corral/desk.1 red');
		const line = handlerErrorLine(objectName(event), new Error('Value is not a valid\nnumber'));
		expect(line).toBe(
			'ctpool: handling Event corral/desk.1 red failed, skipped it: Error: Value is not a valid number',
		);
		expect(objectName(null)).toBe('an object with no name');
	});

	it('thrown by a sink handed held batches are told, not thrown', () => {
		const lines: string[] = [];
		const before = setHandlerErrorSink((l) => lines.push(l));
		try {
			const deferred = new DeferredSink();
			deferred.onBatch([{ kind: 'configmaps', op: 'upsert', object: event }]);
			const seen: string[] = [];
			expect(() =>
				deferred.attach({
					onBatch(changes) {
						if (changes.some((c) => c.op === 'upsert' && c.object === event))
							throw new TypeError('boom');
						seen.push('batch');
					},
					onConnection() {},
				}),
			).not.toThrow();
			deferred.onBatch([]);
			expect(seen).toEqual(['batch']);
			expect(lines).toEqual([
				'ctpool: handling a batch of 1 change (Event corral/desk.1 red) failed, skipped it: TypeError: boom',
			]);
		} finally {
			setHandlerErrorSink(before);
		}
	});
});
