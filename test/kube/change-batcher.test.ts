import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState } from '../../source/kube/connection-state.js';
import type { KubeObject } from '../../source/kube/objects.js';
import {
	ChangeBatcher,
	DeferredSink,
	firstListsUrgency,
	type WatchChange,
	type WatchKind,
} from '../../source/kube/pool-watch.js';

const lease = (name: string, holder: string): KubeObject => ({
	metadata: { name },
	spec: { holderIdentity: holder },
});
const upsert = (name: string, holder = 'a'): WatchChange => ({
	kind: 'leases',
	op: 'upsert',
	object: lease(name, holder),
});

describe('ChangeBatcher', () => {
	beforeEach(() => {
		vi.useFakeTimers({
			toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
		});
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it('hands over the first change after a quiet spell at once, then at most one batch per batchMs', () => {
		const batches: WatchChange[][] = [];
		const b = new ChangeBatcher(100, (batch) => batches.push(batch));
		b.push(upsert('a'));
		vi.advanceTimersByTime(0);
		expect(batches).toHaveLength(1);
		// within batchMs of that batch: gathered until 100 ms after it
		vi.advanceTimersByTime(10);
		b.push(upsert('b'));
		vi.advanceTimersByTime(60);
		b.push(upsert('c'));
		vi.advanceTimersByTime(20);
		expect(batches).toHaveLength(1);
		vi.advanceTimersByTime(10);
		expect(batches).toHaveLength(2);
		expect(batches[1]?.map((c) => (c.op === 'reset' ? '' : c.object.metadata.name))).toEqual([
			'b',
			'c',
		]);
		// quiet again for batchMs: the next change goes at once
		vi.advanceTimersByTime(150);
		b.push(upsert('d'));
		vi.advanceTimersByTime(0);
		expect(batches).toHaveLength(3);
	});

	it('keeps only the latest change of an object, and a reset drops what of its kind waits', () => {
		const batches: WatchChange[][] = [];
		const b = new ChangeBatcher(100, (batch) => batches.push(batch));
		b.push(upsert('x'));
		vi.advanceTimersByTime(0);
		b.push(upsert('a', 'one'));
		b.push(upsert('a', 'two'));
		b.push({ kind: 'pods', op: 'upsert', object: { metadata: { name: 'a' } } });
		vi.advanceTimersByTime(100);
		const second = batches[1] ?? [];
		expect(second).toHaveLength(2);
		expect(second[0]?.op === 'upsert' && second[0].object.spec).toEqual({ holderIdentity: 'two' });
		b.push(upsert('b'));
		b.push({ kind: 'leases', op: 'reset', objects: [] });
		vi.advanceTimersByTime(100);
		expect(batches[2]?.map((c) => c.op)).toEqual(['reset']);
	});

	it('hands over nothing after stop', () => {
		const batches: WatchChange[][] = [];
		const b = new ChangeBatcher(100, (batch) => batches.push(batch));
		b.push(upsert('a'));
		b.stop();
		b.push(upsert('b'));
		vi.advanceTimersByTime(500);
		b.flush();
		expect(batches).toHaveLength(0);
	});

	it('brings a batch forward to urgentMs after the last once an urgent change waits, never back', () => {
		const batches: WatchChange[][] = [];
		const urgent = (c: WatchChange) => c.op !== 'reset' && c.object.metadata.name === 'on-screen';
		const b = new ChangeBatcher(100, (batch) => batches.push(batch), { urgent, urgentMs: 16 });
		b.push(upsert('a'));
		vi.advanceTimersByTime(0);
		expect(batches).toHaveLength(1);
		// an ordinary change waits for batchMs
		vi.advanceTimersByTime(5);
		b.push(upsert('off-screen'));
		vi.advanceTimersByTime(20);
		expect(batches).toHaveLength(1);
		// an urgent one goes at once when urgentMs have passed, with what was waiting
		b.push(upsert('on-screen'));
		vi.advanceTimersByTime(0);
		expect(batches).toHaveLength(2);
		expect(batches[1]?.map((c) => (c.op === 'reset' ? '' : c.object.metadata.name))).toEqual([
			'off-screen',
			'on-screen',
		]);
		// within urgentMs of that batch: it waits for the rest of them, not for batchMs
		vi.advanceTimersByTime(4);
		b.push(upsert('on-screen', 'b'));
		vi.advanceTimersByTime(11);
		expect(batches).toHaveLength(2);
		vi.advanceTimersByTime(1);
		expect(batches).toHaveLength(3);
		// after an urgent batch, ordinary changes wait for batchMs again
		b.push(upsert('off-screen', 'b'));
		vi.advanceTimersByTime(99);
		expect(batches).toHaveLength(3);
		vi.advanceTimersByTime(1);
		expect(batches).toHaveLength(4);
	});
});

describe('DeferredSink', () => {
	it('keeps batches and the latest connection state until attached, then hands them over in order and forwards', () => {
		const heard: string[] = [];
		const sink = new DeferredSink();
		const state = (phase: 'listing' | 'synced') => ({ phase, since: 0 }) as ConnectionState;
		const byKind = {} as Record<WatchKind, ConnectionState>;
		sink.onBatch([upsert('a')]);
		sink.onConnection(state('listing'), byKind);
		sink.onBatch([upsert('b')]);
		sink.onConnection(state('synced'), byKind);
		expect(heard).toEqual([]);
		const target = {
			onBatch: (changes: WatchChange[]) =>
				heard.push(
					...changes.map((c) => (c.op === 'reset' ? 'reset' : (c.object.metadata.name ?? ''))),
				),
			onConnection: (overall: ConnectionState) => heard.push(overall.phase),
		};
		sink.attach(target);
		expect(heard).toEqual(['a', 'b', 'synced']);
		sink.onBatch([upsert('c')]);
		expect(heard).toEqual(['a', 'b', 'synced', 'c']);
	});

	it('hands what it kept over as one batch, so the lists that came meanwhile are derived once', () => {
		const sink = new DeferredSink();
		const reset = (kind: WatchKind): WatchChange => ({ kind, op: 'reset', objects: [] });
		sink.onBatch([reset('configmaps')]);
		sink.onBatch([reset('leases'), upsert('a')]);
		sink.onBatch([reset('pods')]);
		const batches: string[][] = [];
		sink.attach({
			onBatch: (changes) =>
				batches.push(
					changes.map((c) => (c.op === 'reset' ? c.kind : (c.object.metadata.name ?? ''))),
				),
			onConnection: () => {},
		});
		expect(batches).toEqual([['configmaps', 'leases', 'a', 'pods']]);
		sink.onBatch([upsert('b')]);
		expect(batches).toEqual([['configmaps', 'leases', 'a', 'pods'], ['b']]);
	});
});

describe('firstListsUrgency', () => {
	it('hurries the first list and the one that completes the picture, not those between; then asks the console', () => {
		const reset = (kind: WatchKind): WatchChange => ({ kind, op: 'reset', objects: [] });
		const urgent = firstListsUrgency(
			['configmaps', 'pods', 'persistentvolumeclaims', 'leases'],
			(c) => c.op === 'reset' || c.kind === 'leases',
		);
		expect(urgent(reset('configmaps'))).toBe(true);
		expect(urgent(reset('pods'))).toBe(false);
		expect(urgent(upsert('a'))).toBe(true); // a Lease change: the console's answer
		expect(urgent({ kind: 'pods', op: 'upsert', object: { metadata: { name: 'x' } } })).toBe(false);
		expect(urgent(reset('persistentvolumeclaims'))).toBe(false);
		expect(urgent(reset('leases'))).toBe(true);
		// a relist later: the console's answer
		expect(urgent(reset('pods'))).toBe(true);
	});
});
