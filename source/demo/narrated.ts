/**
 * The narrated demo's script (`ctpool --demo --narrate`): instead of random users, the demo
 * plays four scenes in order, each told in plain sentences (engine/narration.ts) that go
 * through a pacer (engine/pacer.ts), so a presenter can talk through them:
 *
 * 1. release: a user claims a desktop and releases it; it is made again, clean;
 * 2. drift: the image changes (:1 -> :2) with a rollout limit; the reconciler replaces the
 *    unclaimed members wave by wave, a claimed one waits for its release;
 * 3. scale-down: the size shrinks by two; the members above it are deleted;
 * 4. takeover: a reconciler died mid-step on a member; its Lease expired; the next pass
 *    takes it over and makes the member again.
 *
 * Each scene's reconcile passes run here (not in the console's loop), with their trace told:
 * first the plan (from a dry run, so nothing changes while the presenter explains it), then
 * the pass, each step told as it ends; a pass starts only once every line before it has
 * been told (the pacer's idle), and once the pool has settled (its members Ready).
 */

import { createEngineContext } from '../engine/context.js';
import {
	type Engine,
	type EngineContext,
	type EngineEvent,
	readPool,
	reconcile,
} from '../engine/index.js';
import { createLease } from '../engine/member-lease.js';
import { type NarrationLine, narrate, sentence } from '../engine/narration.js';
import { createPacer, type Pacer, type PacerClock, type PacerState } from '../engine/pacer.js';
import type { TraceEvent } from '../engine/reconcile-plan.js';
import { sleep } from '../kube/retry.js';
import { RECONCILER_IDENTITY } from '../pool/errors.js';
import { RECONCILER_LEASE_SECONDS } from '../pool/lease.js';
import type { PoolSpec } from '../pool/spec.js';

/** The scenes, in the order the script plays them. */
export const DEMO_SCENES = ['release', 'drift', 'scale-down', 'takeover'] as const;
export type DemoScene = (typeof DEMO_SCENES)[number];

/** The time between two narrated lines by default (ms): a step every few seconds. */
export const NARRATE_INTERVAL_MS = 4_000;

/** Where the script's lines go: a pacer (or, in tests, anything that takes them). */
export interface NarrationSink {
	push(line: NarrationLine): void;
	/** Resolves once every line pushed so far has been told. */
	idle(): Promise<void>;
}

/** Options of the script. */
export interface DemoScriptOptions {
	/** The admin engine the script acts through (apply, claim, release, reconcile). */
	engine: Engine;
	pool: string;
	/** The pool's definition as the demo applied it (image :1, size >= 4). */
	spec: PoolSpec;
	sink: NarrationSink;
	signal?: AbortSignal;
	/** The scenes to play (default every one, in order). */
	scenes?: readonly DemoScene[];
	/** The longest wait for the pool to settle between passes (ms; default 60 s). */
	settleTimeoutMs?: number;
	/** How often the pool is read while it settles (ms; default 250). */
	pollMs?: number;
	/**
	 * The kinds of line told (default NARRATED_KINDS: every line but a step's progress, so a
	 * presenter has one sentence per step planned and one per step ended).
	 */
	kinds?: ReadonlySet<NarrationLine['kind']>;
	/** Called as each scene begins (tests follow the order with it). */
	onScene?(scene: DemoScene): void;
}

/** The kinds of line the narrated demo tells by default: all but each step's progress. */
export const NARRATED_KINDS: ReadonlySet<NarrationLine['kind']> = new Set([
	'scene',
	'plan',
	'step',
	'left-alone',
	'end',
	'done',
]);

const USER = 'alice@example.com';
const HOLDER = 'bob@example.com';
/** The most passes one scene runs (a rollout's waves). */
const PASSES_MAX = 12;

/** The image of the drift scene: the demo's with its tag bumped (:1 -> :2). */
export function nextImage(image: string): string {
	const m = /^(.*:)(\d+)$/.exec(image);
	return m ? `${m[1]}${Number(m[2]) + 1}` : `${image}-next`;
}

/** Plays the script; resolves when every scene was played (or the signal aborted). */
export async function runDemoScript(opts: DemoScriptOptions): Promise<void> {
	const { engine, pool, sink, signal } = opts;
	const ctx = engine.context(signal ? { signal } : {});
	let spec: PoolSpec = { ...opts.spec };
	const kinds = opts.kinds ?? NARRATED_KINDS;
	const scene = (text: string, member?: string) =>
		sink.push({
			time: ctx.now(),
			pool,
			...(member ? { member } : {}),
			kind: 'scene',
			text: sentence(text),
		});
	const tell = (e: TraceEvent) => {
		for (const line of narrate(e)) if (kinds.has(line.kind)) sink.push(line);
	};
	// The plan is told before anything changes: a dry run traces it (the next pass makes the
	// same plan when nothing changes in between), and the pass itself then tells how each
	// step ended, not its plan again.
	const planned = engine.context({
		...(signal ? { signal } : {}),
		onTrace: (e: TraceEvent) => {
			if (e.type === 'plan') tell({ ...e, dryRun: false });
		},
	});
	const traced = engine.context({
		...(signal ? { signal } : {}),
		onTrace: (e: TraceEvent) => {
			if (e.type !== 'plan') tell(e);
		},
	});
	const settle = () => settled(ctx, pool, opts.settleTimeoutMs ?? 60_000, opts.pollMs ?? 250);
	/** Reconcile passes until one changes nothing (or max), each told before the next. */
	const reconcileTold = async (max = PASSES_MAX) => {
		for (let i = 0; i < max && !signal?.aborted; i++) {
			await reconcile(planned, pool, { dryRun: true });
			await sink.idle();
			const result = await reconcile(traced, pool);
			await sink.idle();
			await settle();
			if (result.actions.length === 0 && result.heldBack === 0) return;
		}
	};
	const write = async (next: PoolSpec) => {
		spec = next;
		await engine.writeDefinition(pool, next);
	};

	const scenes = opts.scenes ?? DEMO_SCENES;
	await settle();
	for (const s of DEMO_SCENES) {
		if (!scenes.includes(s) || signal?.aborted) continue;
		opts.onScene?.(s);
		if (s === 'release') {
			const { member } = await engine.claim(pool, USER);
			scene(
				`${USER} claims ${member}: a Lease in her name makes it hers, so no one else gets it and the reconciler keeps its hands off`,
				member,
			);
			await sink.idle();
			scene(
				`${USER} is done and releases ${member}: the release takes her Lease as the reconciler, deletes the pod and the PVC (her data goes with them), and makes ${member} again from ${spec.image}, so the next user gets a clean desktop`,
				member,
			);
			// told first: the presenter says what happens, then it happens
			await sink.idle();
			await engine.release(pool, member, USER);
			await settle();
			scene(
				`${member} is back and free. The reconciler's next pass finds the pool as its definition says`,
				member,
			);
			await reconcileTold(1);
		} else if (s === 'drift') {
			const held = await engine.claim(pool, HOLDER);
			const image = nextImage(spec.image);
			scene(
				`${HOLDER} holds ${held.member}. Now an admin sets the image to ${image}, at most 2 members down at once: every member drifted, and the reconciler rolls them in waves`,
			);
			// told first: the presenter says what happens, then it happens
			await sink.idle();
			await write({ ...spec, image, maxUnavailable: 2 });
			await reconcileTold();
			scene(
				`${HOLDER} releases ${held.member}: its claim kept it on the old image until now; the release makes it again from ${image}`,
				held.member,
			);
			// told first: the presenter says what happens, then it happens
			await sink.idle();
			await engine.release(pool, held.member, HOLDER);
			await settle();
			await reconcileTold(1);
		} else if (s === 'scale-down') {
			const size = Math.max(1, spec.size - 2);
			scene(
				`The admin shrinks the pool from ${spec.size} to ${size}: the members above the size go, unless someone holds them`,
			);
			// told first: the presenter says what happens, then it happens
			await sink.idle();
			await write({ ...spec, size });
			await reconcileTold(1);
		} else if (s === 'takeover') {
			const member = `${pool}-${Math.min(2, spec.size)}`;
			await deadReconcilerLease(engine, pool, member);
			scene(
				`A reconciler died two minutes ago in the middle of a step on ${member}: its Lease, good for ${RECONCILER_LEASE_SECONDS} s and never renewed, has expired. While it was live no one could touch ${member}`,
				member,
			);
			await sink.idle();
			await reconcileTold(2);
		}
	}
	scene('That is the story: a release, a rollout, a scale-down and a takeover');
	await sink.idle();
}

/**
 * Writes the Lease a reconciler that died mid-step leaves behind: held by the reconciler's
 * identity, last renewed two minutes ago, for RECONCILER_LEASE_SECONDS (expired long since).
 */
export async function deadReconcilerLease(
	engine: Engine,
	pool: string,
	member: string,
): Promise<void> {
	const dead: EngineContext = createEngineContext(engine.kube, {
		namespace: engine.ctx.namespace,
		actor: 'demo/dead-reconciler',
		now: () => engine.ctx.now() - 120_000,
	});
	await createLease(dead, pool, member, RECONCILER_IDENTITY, RECONCILER_LEASE_SECONDS);
}

/**
 * Waits until every member within size is Ready and none is Terminating or Starting (at
 * most timeoutMs; the script goes on then whatever the pool looks like).
 */
async function settled(
	ctx: EngineContext,
	pool: string,
	timeoutMs: number,
	pollMs: number,
): Promise<void> {
	const end = ctx.now() + timeoutMs;
	while (!ctx.signal?.aborted && ctx.now() < end) {
		try {
			const snap = await readPool(ctx, pool);
			if (
				snap.members.every(
					(m) => m.state !== 'Terminating' && m.state !== 'Starting' && m.state !== 'Missing',
				)
			)
				return;
		} catch {
			// a failed read: try again
		}
		await sleep(pollMs, ctx.signal);
	}
}

/** A narrated demo running: its pacer (the console drives it: Space pauses, n is next). */
export interface DemoNarration {
	pacer: Pacer<NarrationLine>;
	/** Resolves when the script has played (or was stopped). */
	done: Promise<void>;
	/** Stops the script and the pacer, and waits for the script. */
	stop(): Promise<void>;
}

/** Options of startNarration: the script's, less its sink, plus the pace and where lines go. */
export interface NarrationOptions extends Omit<DemoScriptOptions, 'sink' | 'signal'> {
	/** Between two lines (ms; default NARRATE_INTERVAL_MS). */
	intervalMs?: number;
	clock?: PacerClock;
	/**
	 * Receives each line as the pacer releases it, as an engine event of action `narrate`
	 * (the console shows the lines in its narration pane from onChange instead).
	 */
	tell?(e: EngineEvent): void;
	/**
	 * Called after each change of the pacer (a line told, one queued, pause, resume): the
	 * console redraws the current line and the paused mark from it.
	 */
	onChange?(state: PacerState<NarrationLine>): void;
	/** Called when the script fails (a cluster error): the narration ends there. */
	onError?(err: unknown): void;
}

/** The engine event of a told line (for a sink that takes engine events; the console's pane reads the pacer). */
export function narrationEvent(line: NarrationLine): EngineEvent {
	return {
		time: line.time,
		actor: 'narrator',
		pool: line.pool,
		...(line.member ? { member: line.member } : {}),
		action: 'narrate',
		outcome: 'info',
		message: line.text,
	};
}

/** Starts the narrated script, its lines going out through a pacer. */
export function startNarration(opts: NarrationOptions): DemoNarration {
	const abort = new AbortController();
	const pacer = createPacer<NarrationLine>({
		intervalMs: opts.intervalMs ?? NARRATE_INTERVAL_MS,
		...(opts.clock ? { clock: opts.clock } : {}),
		// stamped when told: the activity log's time is when the presenter saw it
		release: (line) => opts.tell?.(narrationEvent({ ...line, time: Date.now() })),
		...(opts.onChange ? { onChange: opts.onChange } : {}),
	});
	const { intervalMs: _i, clock: _c, tell: _t, onChange: _o, onError, ...script } = opts;
	const done = runDemoScript({ ...script, sink: pacer, signal: abort.signal }).catch((err) => {
		if (!abort.signal.aborted) onError?.(err);
	});
	return {
		pacer,
		done,
		async stop() {
			abort.abort();
			pacer.stop();
			await done;
		},
	};
}
