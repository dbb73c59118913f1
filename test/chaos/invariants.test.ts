import { describe, expect, it } from 'vitest';
import { checkTimeline } from '../../chaos/invariants.js';
import { type MemberEvent, type Operation, Timeline } from '../../chaos/timeline.js';
import type { SimEvent } from '../../source/sim/store-api.js';

const R = 'corral-vdi/reconciler';

/** A hand-written timeline: events with explicit revisions, operations with windows. */
class Script {
	readonly events: MemberEvent[] = [];
	readonly operations: Operation[] = [];
	private rev = 0;
	private uid = 0;
	private readonly uids = new Map<string, string>();

	private ev(
		type: MemberEvent['type'],
		kind: MemberEvent['kind'],
		member: string,
		over: Partial<MemberEvent> = {},
	): number {
		const key = `${kind}/${member}`;
		if (type === 'ADDED') this.uids.set(key, `u${++this.uid}`);
		this.events.push({
			revision: ++this.rev,
			type,
			kind,
			member,
			uid: this.uids.get(key) ?? '',
			deleting: false,
			holder: '',
			source: 'h1',
			time: 0,
			...over,
		});
		return this.rev;
	}
	lease(type: MemberEvent['type'], member: string, holder: string): number {
		return this.ev(type, 'lease', member, { holder });
	}
	create(member: string): void {
		this.ev('ADDED', 'pvc', member);
		this.ev('ADDED', 'pod', member);
	}
	/** A graceful delete: deletionTimestamp first, then gone. */
	destroy(member: string): void {
		this.ev('MODIFIED', 'pod', member, { deleting: true });
		this.ev('DELETED', 'pod', member, { deleting: true });
		this.ev('MODIFIED', 'pvc', member, { deleting: true });
		this.ev('DELETED', 'pvc', member, { deleting: true });
	}
	/** Runs body inside an operation window. */
	op(
		kind: Operation['kind'],
		identity: string,
		member: string,
		body: () => void,
		extra: Partial<Operation> = {},
	): void {
		const op: Operation = {
			id: this.operations.length + 1,
			kind,
			identity,
			member,
			startRev: this.rev,
			endRev: null,
			startedAt: 0,
			endedAt: 0,
			outcome: 'ok',
			...extra,
		};
		this.operations.push(op);
		body();
		op.endRev = this.rev;
	}
	/** A reconciler replace of an unclaimed member, by the book. */
	replace(member: string): void {
		this.lease('ADDED', member, R);
		this.destroy(member);
		this.create(member);
		this.lease('DELETED', member, R);
	}
	/** A claim of member by identity, by the book. */
	claim(identity: string, member: string): void {
		this.op('claim', identity, member, () => this.lease('ADDED', member, identity), {
			existing: false,
		});
	}
	/** A release of member by identity (force by the admin when force). */
	release(identity: string, member: string, holder = identity, force = false): void {
		this.op(force ? 'force-release' : 'release', identity, member, () => {
			this.lease('MODIFIED', member, R);
			this.destroy(member);
			this.create(member);
			this.lease('DELETED', member, R);
		});
		void holder;
	}
	check() {
		return checkTimeline({ pool: 'desk', events: this.events, operations: this.operations });
	}
}

const rules = (s: Script) => s.check().violations.map((v) => v.rule);

describe('the chaos invariant checks', () => {
	it('accept the lawful life of a pool: create, claim, release, force-release, replace', () => {
		const s = new Script();
		s.replace('desk-1');
		s.replace('desk-2');
		s.claim('alice', 'desk-1');
		s.claim('bob', 'desk-2');
		s.release('alice', 'desk-1');
		s.release('admin', 'desk-2', 'bob', true);
		s.claim('carol', 'desk-1');
		const r = s.check();
		expect(r.violations).toEqual([]);
		expect(r.warnings).toEqual([]);
		expect(r.checks).toBeGreaterThan(15);
		expect(r.seen).toMatchObject({ userLeases: 3, handOvers: 2, claimsChecked: 3 });
	});

	it('catch a pod deleted while a user holds the Lease', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		s.destroy('desk-1');
		expect(rules(s)).toContain('delete-under-claim');
	});

	it('catch a delete without any Lease, but allow an admin recovery of an unclaimed member', () => {
		const bad = new Script();
		bad.replace('desk-1');
		bad.destroy('desk-1');
		expect(rules(bad)).toEqual(['delete-without-lease', 'delete-without-lease']);

		const recovery = new Script();
		recovery.replace('desk-1');
		recovery.op('recovery', 'admin', 'desk-1', () => recovery.destroy('desk-1'));
		expect(rules(recovery)).toEqual([]);
	});

	it('catch a claim handed to the reconciler outside a release by its holder or a force-release', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		// bob's release of alice's member without force
		s.op('release', 'bob', 'desk-1', () => s.lease('MODIFIED', 'desk-1', R));
		expect(rules(s)).toEqual(['claim-taken']);
	});

	it('catch a Lease passing from one user to another, and from the reconciler to a user', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		s.lease('MODIFIED', 'desk-1', 'bob');
		s.replace('desk-2');
		s.lease('ADDED', 'desk-2', R);
		s.lease('MODIFIED', 'desk-2', 'carol');
		expect(rules(s)).toEqual(['two-holders', 'reconciler-to-user']);
	});

	it('catch a claim deleted without a release, and a user Lease made outside a claim', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		s.lease('DELETED', 'desk-1', 'alice');
		s.lease('ADDED', 'desk-1', 'mallory');
		expect(rules(s)).toEqual(['claim-removed', 'claim-outside-claim', 'clean-desktop']);
	});

	it("catch the next user getting the previous user's desktop", () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		// a release that handed over and gave back without destroying anything
		s.op('release', 'alice', 'desk-1', () => {
			s.lease('MODIFIED', 'desk-1', R);
			s.lease('DELETED', 'desk-1', R);
		});
		s.claim('bob', 'desk-1');
		expect(rules(s)).toEqual(['clean-desktop']);
	});

	it('catch a claim result that the timeline does not bear out', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		s.op('claim', 'bob', 'desk-1', () => {}, { existing: false });
		s.op('claim', 'carol', 'desk-1', () => {}, { existing: true });
		expect(rules(s)).toEqual(['claim-result', 'claim-result']);
	});

	it('warn about one identity holding two members and a claim given a member with no desktop', () => {
		const s = new Script();
		s.replace('desk-1');
		s.claim('alice', 'desk-1');
		s.claim('alice', 'desk-2');
		const r = s.check();
		expect(r.violations).toEqual([]);
		expect(r.warnings.map((w) => w.rule).sort()).toEqual([
			'claim-without-desktop',
			'one-member-per-identity',
		]);
	});
});

describe('the chaos timeline', () => {
	it("records only the pool's member objects in its namespace, in order, and brackets operations", async () => {
		let rev = 10;
		let listener: ((e: SimEvent) => void) | null = null;
		const store = {
			revision: () => rev,
			onChange(l: (e: SimEvent) => void) {
				listener = l;
				return () => {
					listener = null;
				};
			},
		};
		const tl = new Timeline('desk', 'corral', store);
		tl.follow();
		const emit = (resource: string, name: string, namespace = 'corral', spec?: unknown) =>
			listener?.({
				type: 'ADDED',
				resource,
				revision: ++rev,
				object: {
					apiVersion: 'v1',
					kind: 'X',
					metadata: { name, namespace, uid: `uid-${name}` },
					...(spec ? { spec } : {}),
				},
			});
		const op = tl.begin('claim', 'alice');
		emit('pods', 'desk-1');
		emit('persistentvolumeclaims', 'desk-1-data');
		emit('leases', 'corral-vdi-ct-desk-1', 'corral', { holderIdentity: 'alice' });
		emit('pods', 'other-1');
		emit('pods', 'desk-2', 'elsewhere');
		emit('configmaps', 'corral-vdi-ctpool-desk');
		emit('pods', 'desk-01');
		tl.end(op, 'ok', { member: 'desk-1', existing: false });
		tl.stop();
		emit('pods', 'desk-3');
		expect(tl.events.map((e) => `${e.revision} ${e.kind} ${e.member} ${e.holder}`)).toEqual([
			'11 pod desk-1 ',
			'12 pvc desk-1 ',
			'13 lease desk-1 alice',
		]);
		expect(tl.operations).toMatchObject([
			{ kind: 'claim', startRev: 10, endRev: 17, outcome: 'ok', member: 'desk-1' },
		]);
		await expect(
			tl.track('release', 'alice', 'desk-1', async () => {
				throw Object.assign(new Error('nope'), { kind: 'busy' });
			}),
		).rejects.toThrow('nope');
		expect(tl.operations[1]).toMatchObject({ outcome: 'error', error: 'nope', errorKind: 'busy' });
	});
});
