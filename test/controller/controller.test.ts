/** The reconcile controller on a fake clock: backoff, requeue-after, terminal errors, bursts. */

import { describe, expect, it } from 'vitest';
import {
	Controller,
	type Disposition,
	type ReconcileOutcome,
} from '../../source/controller/controller.js';
import { setHandlerErrorSink } from '../../source/kube/handler-errors.js';
import { FakeClock } from '../support/fake-clock.js';

class Broken extends Error {}

/** A controller over a scripted reconcile that records when each key was reconciled. */
function harness(opts: {
	reconcile(key: string): ReconcileOutcome | undefined;
	resyncMs?: number;
	settleMs?: number;
	backoff?: { initialMs: number; maxMs: number };
	version?: (key: string) => string | undefined;
}) {
	const clock = new FakeClock();
	const start = clock.now();
	const calls: Array<{ key: string; at: number }> = [];
	const done: Array<{ key: string; d: Disposition }> = [];
	const controller = new Controller({
		clock,
		resyncMs: opts.resyncMs ?? 60_000,
		settleMs: opts.settleMs ?? 1000,
		backoff: opts.backoff ?? { initialMs: 1000, maxMs: 16_000 },
		isTerminal: (err) => err instanceof Broken,
		...(opts.version ? { version: opts.version } : {}),
		async reconcile(key) {
			calls.push({ key, at: clock.now() - start });
			return opts.reconcile(key);
		},
		onDone: (key, d) => done.push({ key, d }),
	});
	const settle = () => controller.idle();
	return {
		clock,
		controller,
		calls,
		done,
		/** When key was reconciled (ms after the start). */
		times: (key: string) => calls.filter((c) => c.key === key).map((c) => c.at),
		advance: (ms: number) => clock.advance(ms, settle),
		settle,
	};
}

describe('the reconcile controller', () => {
	it('backs off per pool on failure, doubling up to the cap, while a healthy pool keeps its resync', async () => {
		const h = harness({
			reconcile(key) {
				if (key === 'ns/bad') throw new Error('the API server said 500');
				return undefined;
			},
		});
		h.controller.enqueue('ns/bad');
		h.controller.enqueue('ns/good');
		await h.settle();
		await h.advance(70_000);
		expect(h.times('ns/bad')).toEqual([0, 1000, 3000, 7000, 15_000, 31_000, 47_000, 63_000]);
		expect(h.times('ns/good')).toEqual([0, 60_000]);
		const retries = h.done.filter((d) => d.key === 'ns/bad').map((d) => d.d);
		expect(retries.map((d) => (d.kind === 'retry' ? d.failures : 0))).toEqual([
			1, 2, 3, 4, 5, 6, 7, 8,
		]);
		await h.controller.stop();
	});

	it('forgets the failures of a pool once it succeeds', async () => {
		let failing = 3;
		const h = harness({
			reconcile() {
				if (failing-- > 0) return { failed: true };
				return undefined;
			},
		});
		h.controller.enqueue('ns/p');
		await h.settle();
		await h.advance(100_000);
		// 1 s, 2 s, 4 s of backoff, then the resync interval
		expect(h.times('ns/p')).toEqual([0, 1000, 3000, 7000, 67_000]);
		await h.controller.stop();
	});

	it('looks at a pool again after the requeue-after its reconcile asked for, not later', async () => {
		let n = 0;
		const h = harness({
			reconcile() {
				n++;
				return n <= 3 ? { requeueAfterMs: 5000 } : undefined;
			},
		});
		h.controller.enqueue('ns/p');
		await h.settle();
		await h.advance(80_000);
		expect(h.times('ns/p')).toEqual([0, 5000, 10_000, 15_000, 75_000]);
		await h.controller.stop();
	});

	it('reports a terminal error once and does not retry it until the definition changes', async () => {
		let spec = 'v1';
		const h = harness({
			version: () => spec,
			reconcile() {
				if (spec === 'v1') throw new Broken('pool p: the definition is invalid');
				return undefined;
			},
		});
		h.controller.enqueue('ns/p');
		await h.settle();
		await h.advance(30 * 60_000);
		// watch events of the pool's members change nothing either
		for (let i = 0; i < 5; i++) h.controller.notify('ns/p');
		await h.advance(5000);
		expect(h.times('ns/p')).toEqual([0]);
		expect(h.done.map((d) => d.d.kind)).toEqual(['terminal']);
		expect(h.controller.isStopped('ns/p')).toBe(true);
		expect(h.clock.pending()).toBe(0);

		spec = 'v2';
		h.controller.notify('ns/p');
		await h.advance(1000);
		expect(h.times('ns/p')).toEqual([0, 30 * 60_000 + 5000 + 1000]);
		expect(h.controller.isStopped('ns/p')).toBe(false);
		expect(h.done.map((d) => d.d.kind)).toEqual(['terminal', 'ok']);
		await h.controller.stop();
	});

	it('keeps a failing pool backing off however many watch events arrive (issue 22, finding 3)', async () => {
		const h = harness({
			backoff: { initialMs: 5, maxMs: 300_000 },
			settleMs: 20,
			reconcile: () => ({ failed: true }),
		});
		h.controller.enqueue('ns/p');
		await h.settle();
		// a busy pool: an event every 10 ms for a minute (its own failed writes among them)
		for (let t = 0; t < 60_000; t += 10) {
			h.controller.notify('ns/p');
			await h.advance(10);
		}
		// 5 ms doubling, as if no event had come: 14 passes in a minute, not one per settle
		expect(h.times('ns/p')).toEqual([
			0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115, 10_235, 20_475, 40_955,
		]);
		await h.controller.stop();
	});

	it('ends a backoff when the definition changes or a pass succeeds, and events count again', async () => {
		let spec = 'v1';
		let failing = true;
		const h = harness({
			backoff: { initialMs: 1000, maxMs: 300_000 },
			settleMs: 100,
			version: () => spec,
			reconcile: () => (failing ? { failed: true } : undefined),
		});
		h.controller.enqueue('ns/p');
		await h.settle();
		await h.advance(15_500); // passes at 0, 1 s, 3 s, 7 s, 15 s; the next at 31 s
		expect(h.times('ns/p')).toEqual([0, 1000, 3000, 7000, 15_000]);
		h.controller.notify('ns/p');
		await h.advance(1000);
		expect(h.times('ns/p')).toHaveLength(5); // an event of the same definition waits for the retry
		spec = 'v2'; // the definition changed: the backoff starts again, the event counts
		h.controller.notify('ns/p');
		await h.advance(100);
		expect(h.times('ns/p').at(-1)).toBe(16_600);
		expect(h.controller.backingOff('ns/p')).toBe(true);
		failing = false;
		await h.advance(1000); // the first retry of the new definition (1 s) succeeds
		expect(h.times('ns/p').at(-1)).toBe(17_600);
		expect(h.controller.backingOff('ns/p')).toBe(false);
		h.controller.notify('ns/p');
		await h.advance(100);
		expect(h.times('ns/p').at(-1)).toBe(17_700);
		await h.controller.stop();
	});

	it('does not let a pass its own events ran into come before its retry', {
		timeout: 5000,
	}, async () => {
		const clock = new FakeClock();
		const start = clock.now();
		const at: number[] = [];
		let controller: Controller | null = null;
		controller = new Controller({
			clock,
			resyncMs: 60_000,
			settleMs: 0,
			backoff: { initialMs: 1000, maxMs: 60_000 },
			async reconcile(key) {
				at.push(clock.now() - start);
				controller?.notify(key); // its own writes, seen by the watch during the pass
				controller?.enqueue(key);
				return { failed: true };
			},
		});
		controller.enqueue('ns/p');
		await controller.idle();
		await clock.advance(10_000, () => controller.idle());
		expect(at).toEqual([0, 1000, 3000, 7000]);
		await controller.stop();
	});

	it('tells a throwing listener in one line naming the pool, and goes on', async () => {
		const lines: string[] = [];
		const before = setHandlerErrorSink((line) => lines.push(line));
		try {
			const clock = new FakeClock();
			const at: number[] = [];
			const controller = new Controller({
				clock,
				resyncMs: 1000,
				async reconcile() {
					at.push(clock.now());
					return undefined;
				},
				onDone() {
					throw new TypeError('the listener broke');
				},
			});
			controller.enqueue('ns/p');
			await controller.idle();
			await clock.advance(2000, () => controller.idle());
			expect(at).toHaveLength(3);
			expect(lines[0]).toBe(
				"ctpool: handling the report of ns/p's reconcile failed, skipped it: TypeError: the listener broke",
			);
			expect(lines).toHaveLength(3);
			await controller.stop();
		} finally {
			setHandlerErrorSink(before);
		}
	});

	it('turns a burst of 100 watch events into one reconcile', async () => {
		const h = harness({ reconcile: () => undefined });
		for (let i = 0; i < 100; i++) {
			h.controller.notify('ns/p');
			await h.advance(5); // the burst spreads over half a second
		}
		expect(h.times('ns/p')).toEqual([]);
		await h.advance(1000);
		expect(h.times('ns/p')).toEqual([1000]);
		await h.advance(50_000);
		expect(h.times('ns/p')).toHaveLength(1);
		await h.controller.stop();
	});

	it('never reconciles one pool twice at once: events during a reconcile bring one more afterwards', async () => {
		let release: () => void = () => {};
		let running = 0;
		let most = 0;
		const clock = new FakeClock();
		const controller = new Controller({
			clock,
			resyncMs: 60_000,
			settleMs: 0,
			async reconcile() {
				running++;
				most = Math.max(most, running);
				await new Promise<void>((r) => {
					release = r;
				});
				running--;
				return undefined;
			},
		});
		controller.enqueue('ns/p');
		await new Promise((r) => setImmediate(r));
		expect(running).toBe(1);
		for (let i = 0; i < 100; i++) controller.enqueue('ns/p');
		await new Promise((r) => setImmediate(r));
		expect(running).toBe(1);
		release();
		await new Promise((r) => setImmediate(r));
		await new Promise((r) => setImmediate(r));
		expect(running).toBe(1); // the one reconcile the burst asked for
		release();
		await controller.idle();
		expect(most).toBe(1);
		await controller.stop();
	});

	it('drops a removed pool: no more resyncs or retries', async () => {
		const h = harness({ reconcile: () => ({ failed: true }) });
		h.controller.enqueue('ns/p');
		await h.settle();
		h.controller.remove('ns/p');
		await h.advance(600_000);
		expect(h.times('ns/p')).toEqual([0]);
		await h.controller.stop();
	});
});
