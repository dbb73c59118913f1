/**
 * Demo actors: simulated users who claim a desktop, keep it a while and release it, at a
 * steady pace, and now and then a member that crashes, so the demo pool looks alive. They
 * act only through ctpool's engine (and the simulated cluster's controllers for the crash).
 */

import { claim, type Engine, type EngineEvent, readPool, release } from '../engine/index.js';
import { sleep as pause } from '../kube/retry.js';
import type { SimControllers } from '../sim/controllers/index.js';
import { seededRandom } from '../sim/random.js';

/** How fast the actors act (ms ranges, picked at random within). */
export interface DemoPace {
	/** Between a user's release and their next claim. */
	thinkMs: [number, number];
	/** How long a user keeps a desktop. */
	holdMs: [number, number];
	/** Between two member crashes. */
	crashEveryMs: [number, number];
}

/** The default pace: something happens every few seconds. */
export const DEMO_PACE: DemoPace = {
	thinkMs: [3_000, 9_000],
	holdMs: [8_000, 20_000],
	crashEveryMs: [20_000, 40_000],
};

/** The demo's users. */
export const DEMO_USERS: readonly string[] = [
	'alice@example.com',
	'bob@example.com',
	'carol@example.com',
	'dave@example.com',
];

/** Options of the actors. */
export interface DemoActorsOptions {
	/** The engine the actors act through (each as its own identity, sharing its caches). */
	engine: Engine;
	pool: string;
	/** The simulated cluster's controllers, to make members crash. */
	controllers: Pick<SimControllers, 'crash'>;
	/** Where the engine's events (and the actors' own) go. */
	emit(e: EngineEvent): void;
	users?: readonly string[];
	pace?: Partial<DemoPace>;
	/** Seed of the actors' random choices (the same seed, the same choices). */
	seed?: number;
}

/** Running actors. */
export interface DemoActors {
	/** Stops every actor and waits until none is in an operation. */
	stop(): Promise<void>;
}

/** Starts the actors. */
export function startDemoActors(opts: DemoActorsOptions): DemoActors {
	const pace: DemoPace = { ...DEMO_PACE, ...opts.pace };
	const random = seededRandom(opts.seed ?? Date.now());
	const abort = new AbortController();
	const { signal } = abort;
	const between = ([min, max]: [number, number]) => min + Math.floor(random() * (max - min));
	const sleep = (ms: number) => pause(ms, signal);
	const contextFor = (actor: string) =>
		opts.engine.context({
			actor,
			signal,
			emit: (e) => {
				if (!signal.aborted) opts.emit(e);
			},
		});

	const user = async (identity: string) => {
		const ctx = contextFor(identity);
		await sleep(between([500, pace.thinkMs[1]]));
		while (!signal.aborted) {
			let member: string | null = null;
			try {
				member = (await claim(ctx, opts.pool, identity)).member;
			} catch {
				// the engine logged why (no free member, a busy Lease, ...): try again later
			}
			if (member) {
				await sleep(between(pace.holdMs));
				if (signal.aborted) break;
				try {
					await release(ctx, opts.pool, member, identity);
				} catch {
					// logged by the engine; the reconcile loop repairs what is left
				}
			}
			await sleep(between(pace.thinkMs));
		}
	};

	const chaos = async () => {
		const ctx = contextFor('demo/chaos');
		while (!signal.aborted) {
			await sleep(between(pace.crashEveryMs));
			if (signal.aborted) break;
			try {
				const snap = await readPool(ctx, opts.pool);
				const ready = snap.members.filter((m) => m.state === 'Ready' && !m.holder);
				// leave the users a free desktop: crash only when two or more are ready and free
				if (ready.length < 2) continue;
				const victim = ready[Math.floor(random() * ready.length)];
				if (!victim) continue;
				opts.controllers.crash(ctx.namespace, victim.name);
				opts.emit({
					time: Date.now(),
					actor: 'demo/chaos',
					pool: opts.pool,
					member: victim.name,
					action: 'crash',
					outcome: 'info',
					message: `${victim.name} crashed (simulated); the reconcile loop replaces it`,
				});
			} catch {
				// a failed read is retried at the next crash
			}
		}
	};

	const running = [...(opts.users ?? DEMO_USERS).map((u) => user(u)), chaos()];
	return {
		async stop() {
			abort.abort();
			await Promise.allSettled(running);
		},
	};
}
