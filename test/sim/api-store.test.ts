import { describe, expect, it } from 'vitest';
import { isSimApiError } from '../../source/sim/errors.js';
import { parseFieldSelector, parseLabelSelector } from '../../source/sim/selectors.js';
import { Store } from '../../source/sim/store.js';
import type { SimEvent, SimObject } from '../../source/sim/store-api.js';

function newStore(opts: ConstructorParameters<typeof Store>[0] = {}): Store {
	const s = new Store(opts);
	s.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'corral' } });
	return s;
}

function cm(
	name: string,
	labels?: Record<string, string>,
	data?: Record<string, string>,
): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name, namespace: 'corral', ...(labels ? { labels } : {}) },
		data: data ?? { a: '1' },
	};
}

function pod(name: string, nodeName?: string): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name, namespace: 'corral' },
		spec: { containers: [{ name: 'ct', image: 'busybox:1' }], ...(nodeName ? { nodeName } : {}) },
	};
}

function catchErr(fn: () => unknown): { code: number; reason: string; message: string } {
	try {
		fn();
	} catch (e) {
		if (isSimApiError(e)) return { code: e.code, reason: e.status.reason, message: e.message };
		throw e;
	}
	throw new Error('expected an error');
}

describe('Store writes', () => {
	it('sets uid, creationTimestamp, resourceVersion and namespace on create', () => {
		const s = newStore();
		const before = s.revision();
		const o = s.create('configmaps', cm('one'));
		expect(o.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
		expect(o.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
		expect(o.metadata.resourceVersion).toBe(String(before + 1));
		expect(s.revision()).toBe(before + 1);
		expect(s.get('configmaps', 'corral', 'one')?.data).toEqual({ a: '1' });
	});

	it('returns copies: changing a read object does not change the store', () => {
		const s = newStore();
		s.create('configmaps', cm('one'));
		const got = s.get('configmaps', 'corral', 'one')!;
		(got.data as Record<string, string>).a = 'changed';
		expect(s.get('configmaps', 'corral', 'one')?.data).toEqual({ a: '1' });
	});

	it('answers 409 AlreadyExists, 404 NotFound and 404 for a missing namespace', () => {
		const s = newStore();
		s.create('configmaps', cm('one'));
		expect(catchErr(() => s.create('configmaps', cm('one')))).toEqual({
			code: 409,
			reason: 'AlreadyExists',
			message: 'configmaps "one" already exists',
		});
		expect(catchErr(() => s.delete('leases', 'corral', 'x')).message).toBe(
			'leases.coordination.k8s.io "x" not found',
		);
		const other = { ...cm('two'), metadata: { name: 'two', namespace: 'nope' } };
		expect(catchErr(() => s.create('configmaps', other)).message).toBe(
			'namespaces "nope" not found',
		);
	});

	it('rejects invalid objects with 422 and every cause', () => {
		const s = newStore();
		const bad = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'corral' } };
		expect(catchErr(() => s.create('pods', bad))).toEqual({
			code: 422,
			reason: 'Invalid',
			message: 'Pod "p" is invalid: spec.containers: Required value',
		});
		const e = catchErr(() => s.create('configmaps', cm('Bad_Name')));
		expect(e.code).toBe(422);
		expect(e.message).toContain('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value');
	});

	it('conflicts on a stale resourceVersion and updates unconditionally without one', () => {
		const s = newStore();
		const a = s.create('configmaps', cm('one'));
		const b = s.update('configmaps', { ...a, data: { a: '2' } });
		expect(Number(b.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
		const err = catchErr(() => s.update('configmaps', { ...a, data: { a: '3' } }));
		expect(err.code).toBe(409);
		expect(err.message).toBe(
			'Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again',
		);
		const unconditional = structuredClone(a);
		delete unconditional.metadata.resourceVersion;
		unconditional.data = { a: '4' };
		expect(s.update('configmaps', unconditional).data).toEqual({ a: '4' });
	});

	it('keeps the RV and emits nothing on a no-op update', () => {
		const s = newStore();
		const a = s.create('configmaps', cm('one'));
		const seen: SimEvent[] = [];
		s.onChange((e) => seen.push(e));
		const again = s.update('configmaps', s.get('configmaps', 'corral', 'one')!);
		expect(again.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
		expect(seen).toEqual([]);
	});

	it('checks delete preconditions', () => {
		const s = newStore();
		const a = s.create('configmaps', cm('one'));
		const e1 = catchErr(() =>
			s.delete('configmaps', 'corral', 'one', { preconditions: { uid: 'other' } }),
		);
		expect(e1.code).toBe(409);
		expect(e1.message).toBe(
			`Operation cannot be fulfilled on ConfigMap "one": the UID in the precondition (other) does not match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`,
		);
		const e2 = catchErr(() =>
			s.delete('configmaps', 'corral', 'one', { preconditions: { resourceVersion: '1' } }),
		);
		expect(e2.code).toBe(409);
		expect(e2.message).toContain('the ResourceVersion in the precondition (1)');
		s.delete('configmaps', 'corral', 'one', {
			preconditions: { uid: a.metadata.uid!, resourceVersion: a.metadata.resourceVersion! },
		});
		expect(s.get('configmaps', 'corral', 'one')).toBeUndefined();
	});

	it('keeps an object with finalizers until the last one goes', () => {
		const s = newStore();
		const a = s.create('configmaps', {
			...cm('one'),
			metadata: { ...cm('one').metadata, finalizers: ['x/y'] },
		});
		const types: string[] = [];
		s.onChange((e) => types.push(e.type));
		const marked = s.delete('configmaps', 'corral', 'one');
		expect(marked.metadata.deletionTimestamp).toBeDefined();
		expect(s.get('configmaps', 'corral', 'one')).toBeDefined();
		const cur = s.get('configmaps', 'corral', 'one')!;
		const addFin = catchErr(() =>
			s.update('configmaps', { ...cur, metadata: { ...cur.metadata, finalizers: ['x/y', 'z/w'] } }),
		);
		expect(addFin.code).toBe(422);
		s.update('configmaps', { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
		expect(s.get('configmaps', 'corral', 'one')).toBeUndefined();
		expect(types).toEqual(['MODIFIED', 'DELETED']);
		expect(a.metadata.uid).toBeDefined();
	});

	it('adds pvc-protection to every PVC', () => {
		const s = newStore();
		const pvc = s.create('persistentvolumeclaims', {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: { name: 'desk-1-data', namespace: 'corral' },
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
		});
		expect(pvc.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
		s.delete('persistentvolumeclaims', 'corral', 'desk-1-data');
		expect(
			s.get('persistentvolumeclaims', 'corral', 'desk-1-data')?.metadata.deletionTimestamp,
		).toBeDefined();
	});

	it('deletes pods gracefully only when they are on a node', () => {
		const s = newStore({ defaultGraceSeconds: 5 });
		s.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
		s.create('pods', pod('unscheduled'));
		s.delete('pods', 'corral', 'unscheduled');
		expect(s.get('pods', 'corral', 'unscheduled')).toBeUndefined();

		s.create('pods', pod('running', 'node-a'));
		const marked = s.delete('pods', 'corral', 'running');
		expect(marked.metadata.deletionGracePeriodSeconds).toBe(5);
		expect(s.get('pods', 'corral', 'running')?.metadata.deletionTimestamp).toBeDefined();
		// a second delete with a longer grace changes nothing
		const rv = s.get('pods', 'corral', 'running')!.metadata.resourceVersion;
		s.delete('pods', 'corral', 'running', { gracePeriodSeconds: 30 });
		expect(s.get('pods', 'corral', 'running')!.metadata.resourceVersion).toBe(rv);
		// the kubelet finishes with grace 0
		s.delete('pods', 'corral', 'running', { gracePeriodSeconds: 0 });
		expect(s.get('pods', 'corral', 'running')).toBeUndefined();
	});
});

describe('Store namespaces', () => {
	it('deletes a namespace after its contents; finalizers keep it Terminating', () => {
		const s = newStore();
		s.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } });
		const inGone = (o: SimObject) => ({ ...o, metadata: { ...o.metadata, namespace: 'gone' } });
		s.create('configmaps', inGone(cm('a')));
		s.create(
			'configmaps',
			inGone({ ...cm('held'), metadata: { ...cm('held').metadata, finalizers: ['x/y'] } }),
		);
		s.create('pods', inGone(pod('p')));
		s.delete('namespaces', undefined, 'gone');
		const ns = s.get('namespaces', undefined, 'gone');
		expect((ns?.status as { phase?: string } | undefined)?.phase).toBe('Terminating');
		expect(s.get('configmaps', 'gone', 'a')).toBeUndefined();
		expect(s.get('pods', 'gone', 'p')).toBeUndefined();
		const e = catchErr(() => s.create('configmaps', inGone(cm('late'))));
		expect(e.code).toBe(403);
		expect(e.message).toContain('because it is being terminated');
		const held = s.get('configmaps', 'gone', 'held')!;
		s.update('configmaps', { ...held, metadata: { ...held.metadata, finalizers: [] } });
		expect(s.get('namespaces', undefined, 'gone')).toBeUndefined();
	});
});

describe('Store watches', () => {
	it('replays from an RV, then follows live changes', () => {
		const s = newStore();
		const a = s.create('configmaps', cm('one'));
		s.create('configmaps', cm('two'));
		s.delete('configmaps', 'corral', 'one');
		const got: string[] = [];
		const stop = s.watch('configmaps', { fromRevision: Number(a.metadata.resourceVersion) }, (e) =>
			got.push(`${e.type} ${e.object.metadata.name} ${e.revision}`),
		);
		s.create('configmaps', cm('three'));
		stop();
		s.create('configmaps', cm('four'));
		const r = Number(a.metadata.resourceVersion);
		expect(got).toEqual([`ADDED two ${r + 1}`, `DELETED one ${r + 2}`, `ADDED three ${r + 3}`]);
	});

	it('throws 410 Expired once the history no longer reaches back', () => {
		const s = newStore({ historySize: 3 });
		const first = s.create('configmaps', cm('c0'));
		for (let i = 1; i < 6; i++) s.create('configmaps', cm(`c${i}`));
		const e = catchErr(() =>
			s.watch('configmaps', { fromRevision: Number(first.metadata.resourceVersion) }, () => {}),
		);
		expect(e.code).toBe(410);
		expect(e.reason).toBe('Expired');
		expect(e.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
		// a recent RV still replays
		const got: string[] = [];
		s.watch('configmaps', { fromRevision: s.revision() - 1 }, (ev) =>
			got.push(ev.object.metadata.name),
		);
		expect(got).toEqual(['c5']);
	});

	it('compacts the history by time: 5 minutes by default, then 410 Expired', () => {
		let now = Date.UTC(2026, 10, 30, 12);
		const s = newStore({ now: () => now });
		const old = s.create('configmaps', cm('old'));
		now += 4 * 60_000;
		const recent = s.create('configmaps', cm('recent'));
		now += 60_000 + 1;
		// Still within 5 minutes of the second write: a watch from the first replays it.
		const got: string[] = [];
		s.watch('configmaps', { fromRevision: Number(old.metadata.resourceVersion) }, (ev) =>
			got.push(ev.object.metadata.name),
		);
		expect(got).toEqual(['recent']);
		now += 4 * 60_000;
		// Nothing was written meanwhile; the second write is now more than 5 minutes old.
		const e = catchErr(() =>
			s.watch('configmaps', { fromRevision: Number(old.metadata.resourceVersion) }, () => {}),
		);
		expect(e.code).toBe(410);
		expect(e.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
		// A watch from the newest revision needs no history and still works.
		expect(() =>
			s.watch('configmaps', { fromRevision: Number(recent.metadata.resourceVersion) }, () => {}),
		).not.toThrow();
		// A shorter window, as tests and `ctpool sim --compaction` set it.
		const short = newStore({ now: () => now, compactionMs: 1000 });
		const a = short.create('configmaps', cm('a'));
		short.create('configmaps', cm('b'));
		now += 1001;
		expect(
			catchErr(() =>
				short.watch('configmaps', { fromRevision: Number(a.metadata.resourceVersion) }, () => {}),
			).code,
		).toBe(410);
	});

	it('turns label changes into ADDED and DELETED for a filtered watch', () => {
		const s = newStore();
		const a = s.create('configmaps', cm('one', { pool: 'desk' }));
		const got: string[] = [];
		s.watch('configmaps', { labels: parseLabelSelector('pool=desk') }, (e) => got.push(e.type));
		s.update('configmaps', { ...a, metadata: { ...a.metadata, labels: { pool: 'other' } } });
		const b = s.get('configmaps', 'corral', 'one')!;
		s.update('configmaps', { ...b, metadata: { ...b.metadata, labels: { pool: 'desk' } } });
		expect(got).toEqual(['DELETED', 'ADDED']);
	});

	it('delivers events in revision order even when a listener writes', () => {
		const s = newStore();
		const revs: number[] = [];
		s.onChange((e) => {
			if (e.object.metadata.name === 'one') s.create('configmaps', cm('echo'));
		});
		s.watch('configmaps', {}, (e) => revs.push(e.revision));
		s.create('configmaps', cm('one'));
		expect(revs.length).toBe(2);
		expect(revs[1]).toBeGreaterThan(revs[0]!);
	});

	it('rebuilds a snapshot at an older revision from the history', () => {
		const s = newStore();
		s.create('configmaps', cm('a'));
		s.create('configmaps', cm('b'));
		const at = s.revision();
		s.delete('configmaps', 'corral', 'a');
		s.create('configmaps', cm('c'));
		const b = s.get('configmaps', 'corral', 'b')!;
		s.update('configmaps', { ...b, data: { a: 'new' } });
		const snap = s.snapshotEntries('configmaps', at, { namespace: 'corral' });
		expect(snap.map((e) => e.obj.metadata.name)).toEqual(['a', 'b']);
		expect(snap[1]!.obj.data).toEqual({ a: '1' });
	});
});

describe('selectors', () => {
	it('match every label operator', () => {
		const cases: [string, Record<string, string>, boolean][] = [
			['a=1', { a: '1' }, true],
			['a==1', { a: '2' }, false],
			['a!=1', {}, true],
			['a!=1', { a: '1' }, false],
			['a in (1, 2)', { a: '2' }, true],
			['a in (1,2)', {}, false],
			['a notin (1,2)', {}, true],
			['a notin (1,2)', { a: '1' }, false],
			['a', { a: '' }, true],
			['!a', { a: '' }, false],
			['!a', { b: '1' }, true],
			['a=1,b in (x,y),!c', { a: '1', b: 'y' }, true],
			['a=1,b in (x,y),!c', { a: '1', b: 'y', c: '' }, false],
		];
		for (const [sel, labels, want] of cases) {
			expect([sel, parseLabelSelector(sel)!(labels)]).toEqual([sel, want]);
		}
	});

	it('reject unsupported field labels with 400', () => {
		expect(catchErr(() => parseFieldSelector('pods', 'spec.foo=bar'))).toEqual({
			code: 400,
			reason: 'BadRequest',
			message: 'field label not supported: spec.foo',
		});
		const m = parseFieldSelector('pods', 'spec.nodeName=node-a,status.phase!=Failed')!;
		expect(m(pod('x', 'node-a'))).toBe(true);
		expect(m(pod('x'))).toBe(false);
	});
});
