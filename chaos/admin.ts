/**
 * The administrator of a chaos run: force-releases claims, changes the image and the size,
 * and recovers quarantined members by the book. The cluster's own mishaps (member pods that
 * crash or fail) are played from here too.
 */

import {
	apply,
	createEngineContext,
	type EngineContext,
	release,
	writeDefinition,
} from '../source/engine/index.js';
import { isNotFound } from '../source/kube/errors.js';
import { pvcName } from '../source/pool/names.js';
import type { PoolSpec } from '../source/pool/spec.js';
import type { Random } from './random.js';
import { errorText, pause, tallyFailure, type World } from './world.js';

/** The identity the administrator acts as. */
export const ADMIN_IDENTITY = 'admin@example.com';

/** The image of version n of the chaos desktop. */
export function chaosImage(version: number): string {
	return `ghcr.io/example/desktop:${version}`;
}

/** The administrator. */
export class ChaosAdmin {
	readonly ctx: EngineContext;
	private version = 1;

	constructor(
		private readonly world: World,
		private readonly rng: Random,
	) {
		this.ctx = createEngineContext(world.kube, {
			actor: ADMIN_IDENTITY,
			namespace: world.namespace,
			deleteTimeoutMs: 30_000,
		});
	}

	/** Acts every few seconds until the world stops. */
	async run(): Promise<void> {
		const w = this.world;
		while (!w.stopping()) {
			await pause(w, this.rng.int(1200, 3500));
			if (w.stopping()) break;
			const action = this.rng.weighted({
				force: 30,
				image: 12,
				size: 18,
				failure: 25,
				recover: 15,
			});
			if (action === 'force') await this.forceRelease();
			else if (action === 'image') await this.changeImage();
			else if (action === 'size') await this.changeSize();
			else if (action === 'failure') this.memberFailure();
			else await this.recoverOne();
		}
	}

	/** Force-releases a user's claim: the given member's, else a random one. */
	async forceRelease(target?: string): Promise<void> {
		const w = this.world;
		const claims = w.truth.userClaims();
		if (claims.length === 0) return;
		const member = target ?? this.rng.pick(claims).member;
		try {
			await w.timeline.track('force-release', ADMIN_IDENTITY, member, () =>
				release(this.ctx, w.pool, member, ADMIN_IDENTITY, { force: true }),
			);
			w.counts.forceReleases++;
		} catch (err) {
			w.counts.forceReleaseErrors++;
			tallyFailure(w.counts, 'force-release', err);
			if (errorText(err).includes('now in maintenance')) w.counts.quarantined++;
		}
	}

	private async applySpec(spec: PoolSpec): Promise<boolean> {
		const w = this.world;
		try {
			await w.timeline.track('apply', ADMIN_IDENTITY, '', () => apply(this.ctx, w.pool, spec));
			return true;
		} catch (err) {
			w.counts.applyErrors++;
			tallyFailure(w.counts, 'apply', err);
			return false;
		}
	}

	/** A new image: every unclaimed member drifts and is replaced. */
	async changeImage(): Promise<void> {
		const spec = this.world.truth.spec();
		if (!spec) return;
		this.version++;
		if (await this.applySpec({ ...spec, image: chaosImage(this.version) }))
			this.world.counts.imageChanges++;
	}

	/** A new size around the run's size. */
	async changeSize(): Promise<void> {
		const w = this.world;
		const spec = w.truth.spec();
		if (!spec) return;
		const size = this.rng.int(Math.max(1, w.baseSize - 3), w.baseSize + 2);
		if (size === spec.size) return;
		if (await this.applySpec({ ...spec, size })) w.counts.sizeChanges++;
	}

	/**
	 * A member pod crashes (CrashLoopBackOff) or fails for good: through the simulated
	 * kubelet; nothing on a real cluster (its kwok nodes run no containers to crash).
	 */
	memberFailure(): void {
		const w = this.world;
		if (!w.sim) return;
		const running = w.truth
			.views(Date.now())
			.filter((v) => v.state === 'Ready' && !v.aboveSize)
			.map((v) => v.name);
		if (running.length === 0) return;
		const member = this.rng.pick(running);
		const sim = w.sim;
		if (this.rng.chance(0.5)) sim.controllers.crash(w.namespace, member);
		else sim.controllers.fail(w.namespace, member);
		w.counts.memberFailures++;
	}

	/** Recovers one quarantined member, if any. */
	async recoverOne(): Promise<void> {
		const q = this.world.truth.inMaintenance();
		if (q.length > 0) await this.recover(this.rng.pick(q).member);
	}

	/**
	 * Recovers a member that a failed release put in maintenance, as its message says:
	 * delete the pod and the PVC (as kubectl would, no Lease) and wait until both are gone;
	 * the next reconcile creates it again. Skipped while a user holds its Lease.
	 */
	async recover(member: string): Promise<boolean> {
		const w = this.world;
		if (w.truth.userClaims().some((c) => c.member === member)) return false;
		const core = w.kube.core;
		const ns = w.namespace;
		const gone = async () => {
			const [pod, pvc] = await Promise.all([
				core.readNamespacedPod({ name: member, namespace: ns }).then(
					() => true,
					(e) => (isNotFound(e) ? false : Promise.reject(e)),
				),
				core.readNamespacedPersistentVolumeClaim({ name: pvcName(member), namespace: ns }).then(
					() => true,
					(e) => (isNotFound(e) ? false : Promise.reject(e)),
				),
			]);
			return !pod && !pvc;
		};
		const ignoreMissing = (e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e));
		try {
			await w.timeline.track('recovery', ADMIN_IDENTITY, member, async () => {
				for (let round = 1; ; round++) {
					await core.deleteNamespacedPod({ name: member, namespace: ns }).catch(ignoreMissing);
					await core
						.deleteNamespacedPersistentVolumeClaim({ name: pvcName(member), namespace: ns })
						.catch(ignoreMissing);
					const until = Date.now() + 5000;
					while (Date.now() < until) {
						if (await gone()) return;
						await new Promise((r) => setTimeout(r, 100));
					}
					if (round >= 4) throw new Error(`${member} is still there after ${round} rounds`);
				}
			});
			w.counts.recoveries++;
			return true;
		} catch (err) {
			w.counts.recoveryErrors++;
			tallyFailure(w.counts, 'recovery', err);
			w.log(`recovery of ${member} failed: ${errorText(err)}`);
			return false;
		}
	}

	/** Writes the definition back to the run's size and the current image (no reconcile). */
	async restoreSize(): Promise<void> {
		const w = this.world;
		const spec = w.truth.spec();
		if (!spec || spec.size === w.baseSize) return;
		await writeDefinition(this.ctx, w.pool, { ...spec, size: w.baseSize });
	}
}
