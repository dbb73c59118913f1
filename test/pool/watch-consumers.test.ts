/**
 * Issue 22, the property test over every watch consumer: arbitrary objects (pods, PVCs,
 * ConfigMaps with arbitrary definition and status JSON, Leases, Events) among good ones go
 * through the console's store, the reconciler's pool cache, the reconcile's planning and the
 * refusal tally. Nothing throws, no batch is dropped, the object at fault is named, and the
 * rest is shown (or reconciled) as if it were not there.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liveProblems } from '../../source/commands/status.js';
import { PoolCache } from '../../source/controller/pool-cache.js';
import { RefusalTally } from '../../source/controller/refusal-watch.js';
import { planStep } from '../../source/engine/member-step.js';
import { readListedObjects } from '../../source/engine/pool-objects.js';
import { snapshotOf } from '../../source/engine/read-pool.js';
import type { KubeObject } from '../../source/kube/objects.js';
import type { WatchChange } from '../../source/kube/pool-watch.js';
import { AUDIT_ANNOTATION, AUDIT_POOL_LABEL, auditEntry } from '../../source/pool/audit.js';
import { groupMembers, memberView, poolRuleInputs } from '../../source/pool/member-state.js';
import {
	CT_SPEC_ANNOTATION,
	MAINTENANCE_ANNOTATION,
	memberIndex,
	REPLACED_ANNOTATION,
} from '../../source/pool/names.js';
import { type ObjectKind, readObject } from '../../source/pool/object-shape.js';
import type { ConfigMapObject } from '../../source/pool/objects.js';
import { createConsoleStore } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, kindOf, member, NOW } from '../tui/fixtures.js';

const SIZE = 3;
const spec = poolSpec({ size: SIZE });
/** The good pool: its definition and three Ready members. */
const good = (): KubeObject[] => [
	configMap('desk', spec),
	...[1, 2, 3].flatMap((i) => member('desk', i, spec, i === 2 ? { holder: 'alice' } : {})),
];

const anything = fc.oneof(
	fc.jsonValue(),
	fc.string(),
	fc.constantFrom(null, Number.POSITIVE_INFINITY, Number.NaN, -1, -0, 'boom', [], {}, [1]),
);

/** Where a hostile value goes in an object of pool `bad` (paths the model reads). */
const PATHS: string[][] = [
	['status'],
	['status', 'phase'],
	['status', 'conditions'],
	['status', 'containerStatuses'],
	['spec'],
	['spec', 'containers'],
	['spec', 'nodeName'],
	['spec', 'holderIdentity'],
	['spec', 'leaseDurationSeconds'],
	['spec', 'renewTime'],
	['spec', 'acquireTime'],
	['metadata', 'name'],
	['metadata', 'annotations'],
	['metadata', 'annotations', CT_SPEC_ANNOTATION],
	['metadata', 'annotations', MAINTENANCE_ANNOTATION],
	['metadata', 'annotations', REPLACED_ANNOTATION],
	['metadata', 'creationTimestamp'],
	['metadata', 'deletionTimestamp'],
	['data'],
	['data', 'spec'],
	['data', 'status'],
];

/** A copy of o with value at path. */
function withValue(o: KubeObject, path: string[], value: unknown): KubeObject {
	const copy = structuredClone(o) as Record<string, unknown>;
	let at = copy;
	for (const key of path.slice(0, -1)) {
		const next = at[key];
		at[key] = next && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {};
		at = at[key] as Record<string, unknown>;
	}
	at[path.at(-1)!] = value;
	return copy as KubeObject;
}

/** The objects of pool `bad` with hostile values in them; some still read, most do not. */
const hostileObjects = fc
	.array(
		fc.record({
			of: fc.integer({ min: 0, max: 6 }),
			path: fc.constantFrom(...PATHS),
			value: fc.oneof(
				anything,
				fc.jsonValue().map((v) => JSON.stringify(v)),
				fc.constantFrom(
					'{"image":"x","cpu":1e309}',
					'{"count":1e309,"at":"2099-01-01T00:00:00Z"}',
					'{"members":[],"errors":"boom"}',
				),
			),
		}),
		{ minLength: 1, maxLength: 6 },
	)
	.map((edits) => {
		const base = [configMap('bad', spec), ...[1, 2].flatMap((i) => member('bad', i, spec))];
		base.push(...member('bad', 3, spec, { holder: 'bob' }));
		return edits.map((e) => withValue(base[e.of % base.length]!, e.path, e.value));
	});

/** Whether an object reads at the boundary. */
const reads = (o: KubeObject) => readObject(kindOf(o) as ObjectKind, o).ok;

/** The name of an object, if it has one that reads. */
const nameOf = (o: KubeObject) =>
	typeof o.metadata?.name === 'string' ? (o.metadata.name as string) : null;

/** The good and hostile objects shuffled into one list. */
const mixed = fc.tuple(hostileObjects, fc.infiniteStream(fc.nat())).map(([bad, order]) => {
	const all = [...good(), ...bad];
	const it = order[Symbol.iterator]();
	return all
		.map((o) => ({ o, k: it.next().value as number }))
		.sort((a, b) => a.k - b.k)
		.map((x) => x.o);
});

const upsertsOf = (objects: KubeObject[]): WatchChange[] =>
	objects.map((object) => ({ kind: kindOf(object), op: 'upsert', object }));

/** A relist of every kind, as a watch delivers it after a 410. */
const resetsOf = (objects: KubeObject[]): WatchChange[] =>
	(['configmaps', 'persistentvolumeclaims', 'pods', 'leases'] as const).map((kind) => ({
		kind,
		op: 'reset',
		objects: objects.filter((o) => kindOf(o) === kind),
	}));

describe("the console's store", () => {
	it('a pod whose conditions are not a list is named, and its batch is applied without it', () => {
		const store = createConsoleStore({ session: { namespace: 'corral' }, pool: 'desk', now: NOW });
		const bad = withValue(member('desk', 3, spec)[1]!, ['status', 'conditions'], 'boom');
		const batch = upsertsOf([...good().filter((o) => o.metadata.name !== 'desk-3'), bad]);
		expect(() => store.getState().applyBatch(batch)).not.toThrow();
		const s = store.getState();
		expect(s.revision).toBe(1);
		expect(s.pools.desk?.rows.map((r) => [r.name, r.state])).toEqual([
			['desk-1', 'Ready'],
			['desk-2', 'Ready'],
			// its pod left out: the PVC alone
			['desk-3', 'Stopped'],
		]);
		expect(s.unreadable).toEqual([
			'Pod corral/desk-3: status.conditions is not a list; the console leaves it out until it reads',
		]);
		expect(s.log.at(-1)?.message).toBe(s.unreadable[0]);
		// once it reads again, the problem goes and the member is whole
		store.getState().applyBatch(upsertsOf([member('desk', 3, spec)[1]!]));
		expect(store.getState().unreadable).toEqual([]);
		expect(store.getState().pools.desk?.rows[2]?.state).toBe('Ready');
	});

	it('property: one batch of good and hostile objects: no throw, no dropped batch, each bad one named, the good pool whole', () => {
		fc.assert(
			fc.property(mixed, fc.boolean(), (objects, asReset) => {
				const store = createConsoleStore({
					session: { namespace: 'corral' },
					pool: 'desk',
					now: NOW,
				});
				const batch = asReset ? resetsOf(objects) : upsertsOf(objects);
				store.getState().applyBatch(batch);
				const s = store.getState();
				expect(s.revision).toBe(1);
				const desk = s.pools.desk;
				expect(desk?.spec?.size).toBe(SIZE);
				expect(desk?.rows.map((r) => `${r.name} ${r.state} ${r.holder}`)).toEqual([
					'desk-1 Ready ',
					'desk-2 Ready alice',
					'desk-3 Ready ',
				]);
				for (const o of objects.filter((x) => !reads(x))) {
					const name = nameOf(o);
					if (name && name.length <= 253)
						expect(
							s.unreadable.some((l) => l.includes(` ${name}: `) || l.includes(`/${name}: `)),
						).toBe(true);
				}
				if (objects.every(reads)) expect(s.unreadable).toEqual([]);
				// every pool shown derives (the bad one's rows are typed)
				for (const p of Object.values(s.pools))
					for (const r of p.rows) {
						expect(typeof r.holder).toBe('string');
						expect(typeof r.message).toBe('string');
					}
			}),
			{ numRuns: 300 },
		);
	});
});

/** An object's name as the watch boundary keeps it: text cut at 253 characters, else ''. */
const textName = (name: unknown): string => (typeof name === 'string' ? name.slice(0, 253) : '');

describe("the reconciler's pool cache", () => {
	it('property: no throw; the bad pool has its problems, the good pool its figures', () => {
		fc.assert(
			fc.property(mixed, fc.boolean(), (objects, asReset) => {
				const cache = new PoolCache();
				const delta = cache.apply(asReset ? resetsOf(objects) : upsertsOf(objects));
				expect(delta.added).toContain('corral/desk');
				for (const key of cache.keys()) expect(() => cache.figures(key, NOW)).not.toThrow();
				const desk = cache.figures('corral/desk', NOW);
				expect(desk?.counts).toMatchObject({ desired: SIZE, ready: SIZE, claimed: 1 });
				expect(cache.problems('corral/desk')).toEqual([]);
				const named = objects.filter(
					(o) =>
						!reads(o) &&
						(o.metadata?.labels as Record<string, unknown> | undefined)?.[
							'corral.dev/vdi-ct-pool'
						] === 'bad',
				);
				expect(cache.problems('corral/bad').length).toBe(
					// as the boundary names them: a name that is not text is '' (never String()ed: it may throw)
					new Set(named.map((o) => `${kindOf(o)} ${textName(o.metadata?.name)}`)).size,
				);
			}),
			{ numRuns: 300 },
		);
	});
});

describe("the reconcile's planning", () => {
	it('property: no throw; a member with an unreadable object gets no step, and ctpool status names the problem', () => {
		fc.assert(
			fc.property(mixed, (objects) => {
				for (const pool of ['desk', 'bad']) {
					const listed = readListedObjects(
						{
							pods: objects.filter((o) => kindOf(o) === 'pods'),
							pvcs: objects.filter((o) => kindOf(o) === 'persistentvolumeclaims'),
							leases: objects.filter((o) => kindOf(o) === 'leases'),
						},
						pool,
					);
					const facts = poolRuleInputs(SIZE, spec);
					const views = groupMembers(pool, SIZE, listed).map((m) => memberView(m, facts, NOW));
					const steps = views.map((v) => planStep(v, NOW));
					for (const f of listed.foreign ?? []) {
						const v = views.find((x) => x.name === f.member);
						if (v) expect(steps[views.indexOf(v)]).toBeNull();
					}
					expect((listed.problems ?? []).length).toBe(
						objects.filter((o) => kindOf(o) !== 'configmaps' && !reads(o)).length,
					);
					// ctpool status names each, and not as a stranger's object
					const snap = snapshotOf(pool, configMap(pool, spec) as ConfigMapObject, listed, NOW);
					const problems = liveProblems(snap);
					for (const u of listed.unreadable ?? [])
						if (memberIndex(pool, u.member) !== null) expect(problems).toContain(u.problem);
					if (pool === 'desk') {
						// the good pool is in line: nothing to do
						expect(steps).toEqual([null, null, null]);
						expect(views.map((v) => v.state)).toEqual(['Ready', 'Ready', 'Ready']);
					}
				}
			}),
			{ numRuns: 300 },
		);
	});
});

describe('Events through the audit feed and the refusal tally', () => {
	const event = fc.record(
		{
			metadata: fc.oneof(
				anything,
				fc.record(
					{
						name: fc.oneof(fc.constantFrom('e1', 'e2'), anything),
						namespace: anything,
						labels: fc.oneof(fc.constant({ [AUDIT_POOL_LABEL]: 'desk' }), anything),
						annotations: fc.oneof(
							fc.record({
								[AUDIT_ANNOTATION]: fc.oneof(
									fc.constantFrom(
										'{"action":"claim-refused","pool":"desk","actor":"x","count":3}',
										'{"action":"claim-refused","pool":"desk","actor":"x","count":1e309}',
										'{"action":"claim-refused","pool":"x$(id)","actor":"x"}',
									),
									anything,
								),
							}),
							anything,
						),
						creationTimestamp: anything,
					},
					{ requiredKeys: [] },
				),
			),
			type: anything,
			reason: anything,
			message: anything,
			count: anything,
			lastTimestamp: fc.oneof(fc.constant('2099-01-01T00:00:00Z'), anything),
			series: anything,
		},
		{ requiredKeys: [] },
	);

	it('property: no throw; lines are bounded, counts finite, times within the allowance', () => {
		fc.assert(
			fc.property(fc.array(event, { maxLength: 8 }), (events) => {
				let refused = 0;
				const tally = new RefusalTally({
					refused: (_key, n) => {
						refused += n;
					},
				});
				tally.reset([]);
				for (const e of events) {
					tally.upsert(e as unknown as KubeObject);
					const line = auditEntry(e as never, NOW);
					if (line) {
						expect(Number.isFinite(line.count)).toBe(true);
						expect(line.time).toBeLessThanOrEqual(NOW + 5 * 60_000);
						expect(line.message.length).toBeLessThanOrEqual(2000);
					}
				}
				tally.reset(events as unknown as KubeObject[]);
				expect(Number.isFinite(refused)).toBe(true);
			}),
			{ numRuns: 1000 },
		);
	});
});
