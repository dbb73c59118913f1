/**
 * The simulated users of a chaos run: each claims a desktop through the engine, keeps it a
 * while, and releases it; now and then one double-clicks (two claims at once). Every call
 * is recorded on the timeline.
 */

import { claim, createEngineContext, type EngineContext, release } from '../source/engine/index.js';
import type { Random } from './random.js';
import { errorKind, errorText, pause, tallyFailure, type World } from './world.js';

/** How a user behaves. */
export interface UserBehaviour {
	/** Pause between two actions (ms). */
	thinkMs: [number, number];
	/** How long a desktop is kept (ms). */
	holdMs: [number, number];
	/** Chance that a claim is a double click. */
	doubleClaim: number;
}

/** The default behaviour: short thinks, a few seconds of use. */
export const DEFAULT_BEHAVIOUR: UserBehaviour = {
	thinkMs: [100, 1200],
	holdMs: [300, 3000],
	doubleClaim: 0.05,
};

/** One simulated user. */
export class ChaosUser {
	private held: string | null = null;
	private releaseAt = 0;
	private readonly ctx: EngineContext;

	constructor(
		readonly identity: string,
		private readonly world: World,
		private readonly rng: Random,
		private readonly behaviour: UserBehaviour = DEFAULT_BEHAVIOUR,
	) {
		this.ctx = createEngineContext(world.kube, {
			actor: identity,
			namespace: world.namespace,
			deleteTimeoutMs: 30_000,
		});
	}

	/** Claims and releases until the world stops. */
	async run(): Promise<void> {
		const w = this.world;
		while (!w.stopping()) {
			await pause(w, this.rng.int(...this.behaviour.thinkMs));
			if (w.stopping()) break;
			this.resync();
			if (!this.held) await this.claim();
			else if (Date.now() >= this.releaseAt) await this.release();
		}
	}

	/** Releases whatever the identity holds (faults off, at the end); resolves with failures. */
	async releaseAll(): Promise<string[]> {
		const failures: string[] = [];
		for (const member of this.world.truth.heldBy(this.identity)) {
			let done = false;
			for (let attempt = 1; attempt <= 3 && !done; attempt++)
				done = await this.releaseMember(member);
			if (!done) failures.push(`${this.identity} could not release ${member}`);
		}
		this.held = null;
		return failures;
	}

	/** What the cluster says the identity holds (a force-release, or a claim that failed late). */
	private resync(): void {
		const mine = this.world.truth.heldBy(this.identity);
		if (this.held && !mine.includes(this.held)) this.held = null;
		if (!this.held && mine.length > 0) {
			this.held = mine[0]!;
			this.releaseAt = Date.now() + this.rng.int(...this.behaviour.holdMs);
		}
	}

	private claimOnce(): Promise<string | null> {
		const w = this.world;
		return w.timeline
			.track(
				'claim',
				this.identity,
				'',
				() => claim(this.ctx, w.pool, this.identity),
				(r) => ({ member: r.member, existing: r.existing }),
			)
			.then(
				(r) => {
					w.counts.claims++;
					if (r.existing) w.counts.claimsExisting++;
					return r.member;
				},
				(err) => {
					if (errorKind(err) === 'no-free') w.counts.noFree++;
					else {
						w.counts.claimErrors++;
						tallyFailure(w.counts, 'claim', err);
					}
					return null;
				},
			);
	}

	private async claim(): Promise<void> {
		const double = this.rng.chance(this.behaviour.doubleClaim);
		if (double) this.world.counts.doubleClaims++;
		const got = await Promise.all(
			double ? [this.claimOnce(), this.claimOnce()] : [this.claimOnce()],
		);
		const member = got.find((m) => m !== null);
		if (member) {
			this.held = member;
			this.releaseAt = Date.now() + this.rng.int(...this.behaviour.holdMs);
		}
		// A double click may have given two members: the cluster says which.
		this.resync();
	}

	/** Releases the held member; a failed release is tried again a little later. */
	private async release(): Promise<void> {
		const member = this.held;
		if (!member) return;
		await this.releaseMember(member);
		this.resync();
		if (this.held === member) this.releaseAt = Date.now() + this.rng.int(200, 1000);
	}

	/** Releases one member; resolves true when the identity no longer holds it. */
	private async releaseMember(member: string): Promise<boolean> {
		const w = this.world;
		try {
			await w.timeline.track('release', this.identity, member, () =>
				release(this.ctx, w.pool, member, this.identity),
			);
			w.counts.releases++;
		} catch (err) {
			w.counts.releaseErrors++;
			tallyFailure(w.counts, 'release', err);
			if (errorText(err).includes('now in maintenance')) w.counts.quarantined++;
		}
		await w.sync();
		return w.truth.holder(member) !== this.identity;
	}
}
