/**
 * One chaos run: a simulated cluster with faults, real reconciler processes killed
 * mid-step, simulated users and an administrator; then faults off, every user done, one
 * final reconcile 11 minutes later, and the checks: safety over the whole timeline,
 * convergence of the pool, and the console's store equal to the cluster.
 *
 * With `cluster: 'real'` the same run goes against a fresh namespace of the real control
 * plane (scripts/real.mjs): everything is read and written through its API, and what only
 * the simulator can do (its fault switch: 5xx, refused connections, dropped watches, 410s;
 * member pods crashed through its kubelet) is left out.
 */

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apply, createEngineContext, reconcile } from '../source/engine/index.js';
import { loadKube } from '../source/kube/config.js';
import type { PoolSpec } from '../source/pool/spec.js';
import {
	DEFAULT_BOOKMARK_MS,
	DEFAULT_COMPACTION_MS,
	type FaultCounts,
	type SimCluster,
	startSimCluster,
} from '../source/sim/index.js';
import { waitFor } from '../test/support/wait.js';
import { ADMIN_IDENTITY, ChaosAdmin, chaosImage } from './admin.js';
import { ConsoleMirror, type MirrorCounts } from './console-mirror.js';
import { checkConvergence } from './convergence.js';
import { type FaultScheduleCounts, startFaultSchedule, zeroFaultCounts } from './fault-schedule.js';
import {
	ForeignObjects,
	foreignMembers,
	type PlantStore,
	strangerPodMembers,
} from './foreign-objects.js';
import { ForgedObjects, type ForgedResult } from './forged-objects.js';
import { checkTimeline, type Finding, type InvariantResult } from './invariants.js';
import { builtCli } from './paths.js';
import { Random } from './random.js';
import { type RealChaosCluster, startRealChaosCluster } from './real-cluster.js';
import { RemoteStore } from './real-store.js';
import { ReconcilerRights, type RightsCluster } from './reconciler-rights.js';
import type { TlsUpstream } from './reconciler-tap.js';
import { type FleetCounts, ReconcilerFleet } from './reconcilers.js';
import { type FollowedStore, Timeline } from './timeline.js';
import { Truth, type TruthStore } from './truth.js';
import { ChaosUser } from './users.js';
import { type ActorCounts, errorText, type World, zeroCounts } from './world.js';

/** How a chaos run goes. */
export interface ChaosOptions {
	seed: number;
	/**
	 * The simulated cluster (default), or a fresh namespace of the real control plane
	 * (scripts/real.mjs; the simulator's faults and member failures are left out).
	 */
	cluster?: 'sim' | 'real';
	/** How long the chaos lasts (ms), before the faults go off and the final checks. */
	durationMs: number;
	/** The pool size (the admin changes it around this and puts it back at the end). */
	size: number;
	/** Reconciler processes. */
	reconcilers: number;
	/** Simulated users. */
	users: number;
	/** The --interval of the reconcilers' watch mode. */
	interval: string;
	/** The simulated cluster's pace (1 = real-ish; 0.1 = ten times faster). */
	timeScale: number;
	/** The error rate of the worst storms. */
	maxErrorRate: number;
	/** Watches are dropped this often (ms). */
	dropWatchesEveryMs: number;
	/** Time between two reconciler kills (ms, a range). */
	killEveryMs: [number, number];
	/** Bursts of refused connections. */
	refusedBursts: number;
	/** Plant foreign objects (pod, PVC, Service, Lease) under member names above the size. */
	foreign: boolean;
	/**
	 * Forged objects (issue 22): Events with bad audit annotations, future times and huge
	 * counts, planted before the chaos; and this many malformed statuses written over the
	 * pool's during it.
	 */
	forged: boolean;
	malformedStatuses: number;
	/** The first reconciler's clock runs this far ahead (ms, within the 5-minute skew allowance). */
	skewMs: number;
	/** How often the reconcilers' RoleBinding is deleted mid-run, and for how long (ms). */
	revocations: number;
	revokeForMs: number;
	/** The built CLI; default dist/cli.js of the repository. */
	cliPath?: string;
	/** Progress lines (default: none). */
	log?: (line: string) => void;
}

/** The default run: about a minute of chaos and a minute and a half in all on two cores. */
export const DEFAULT_CHAOS: Omit<ChaosOptions, 'seed'> = {
	durationMs: 60_000,
	size: 10,
	reconcilers: 3,
	users: 12,
	interval: '2s',
	timeScale: 0.1,
	maxErrorRate: 0.08,
	dropWatchesEveryMs: 4000,
	killEveryMs: [9000, 16000],
	refusedBursts: 2,
	foreign: true,
	forged: true,
	malformedStatuses: 3,
	skewMs: 2 * 60_000,
	revocations: 2,
	revokeForMs: 3000,
};

/** The pool every chaos run uses. */
export const CHAOS_POOL = 'chaos';
const NAMESPACE = 'corral';
/**
 * How far ahead the final reconcile's clock runs: past the reconciler Lease's 10 minutes
 * (plus the skew of a reconciler whose clock runs ahead: its Leases start in the future).
 */
export const FINAL_CLOCK_AHEAD_MS = 11 * 60_000;

/** What a run did and found. */
export interface ChaosResult {
	seed: number;
	/** Which cluster it ran on, and (real) the namespace. */
	cluster: 'sim' | 'real';
	namespace: string;
	/** Real cluster: times a watch of the run's view had to list again (0 on the simulator). */
	relists: number;
	options: Omit<ChaosOptions, 'log' | 'cliPath'>;
	/** Wall-clock time of the whole run (ms). */
	elapsedMs: number;
	actors: ActorCounts;
	reconcilers: FleetCounts;
	faults: FaultCounts;
	spells: FaultScheduleCounts;
	mirror: MirrorCounts;
	invariants: InvariantResult;
	/** Checks of the final state and of the console's store. */
	finalChecks: number;
	/** Reconciles in all: the processes', the admin's applies, the final one. */
	reconciles: number;
	/** Safety, convergence and console violations: the run fails when there is any. */
	violations: Finding[];
	warnings: Finding[];
	/** Member states at the end. */
	finalStates: Record<string, number>;
	/** The final reconcile's steps. */
	finalSteps: string[];
	/** Foreign objects planted and found untouched at the end. */
	foreign: { planted: number; untouched: number; checks: number };
	/** Forged Events and malformed statuses planted, and what ctpool made of them. */
	forged: Omit<ForgedResult, 'violations'>;
	/** How often the reconcilers' rights were revoked (and restored). */
	rightsRevoked: number;
	passed: boolean;
}

/** Polls until check() is true or the time is up; resolves whether it became true. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
	return waitFor(check, { timeoutMs, intervalMs: 100 }).then(
		() => true,
		() => false,
	);
}

/** The pool's first definition: small members, so the simulated nodes never run out. */
export function chaosSpec(size: number, version = 1): PoolSpec {
	return {
		image: chaosImage(version),
		cpu: '1',
		memory: '256Mi',
		disk: '1Gi',
		storageClass: '',
		privileged: false,
		init: false,
		mode: 'ephemeral',
		size,
	};
}

/** Runs one chaos run and checks it. Never throws for a failed check: see result.passed. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
	const started = Date.now();
	const log = options.log ?? (() => {});
	const rng = new Random(options.seed);
	const cliPath = options.cliPath ?? builtCli();
	if (options.reconcilers > 0 && !existsSync(cliPath))
		throw new Error(`the reconcilers need the built CLI at ${cliPath}: run npm run build first`);
	const dir = await mkdtemp(join(tmpdir(), 'ctpool-chaos-'));
	const cluster = await startChaosCluster(options, dir).catch(async (err) => {
		await rm(dir, { recursive: true, force: true });
		throw err;
	});
	const { sim, namespace: NAMESPACE } = cluster;
	const extraViolations: Finding[] = [];
	const extraWarnings: Finding[] = [];
	let mirror: ConsoleMirror | null = null;
	let fleet: ReconcilerFleet | null = null;
	try {
		const kube = await loadKube({ kubeconfig: cluster.kubeconfig, namespace: NAMESPACE });
		await cluster.start();
		const timeline = new Timeline(CHAOS_POOL, NAMESPACE, cluster.store);
		// Someone else's objects under member names: above the size, some where the admin scales up.
		const foreign = new ForeignObjects(cluster.plantStore, NAMESPACE);
		if (options.foreign)
			await foreign.plant(
				foreignMembers(CHAOS_POOL, options.size),
				strangerPodMembers(CHAOS_POOL, options.size),
			);
		for (const uid of foreign.uids()) timeline.ignoredUids.add(uid);
		timeline.follow();
		const rights = new ReconcilerRights(cluster.rights, NAMESPACE);
		const truth = new Truth(cluster.store, CHAOS_POOL, NAMESPACE);
		let stopping = false;
		const world: World = {
			pool: CHAOS_POOL,
			namespace: NAMESPACE,
			sim,
			kube,
			timeline,
			truth,
			counts: zeroCounts(),
			baseSize: options.size,
			log,
			stopping: () => stopping,
			sync: () => cluster.sync(),
		};
		const admin = new ChaosAdmin(world, rng.fork());

		// The pool, calm, before the chaos.
		log(
			`pool ${CHAOS_POOL}: size ${options.size}, ${options.users} users, ${options.reconcilers} reconcilers`,
		);
		await apply(admin.ctx, CHAOS_POOL, chaosSpec(options.size));
		if (!(await until(() => truth.views(Date.now()).every((v) => v.state === 'Ready'), 60_000)))
			throw new Error('the pool did not become Ready before the chaos');
		// Forged Events among the pool's own, for the audit readers to see.
		const forged = new ForgedObjects(cluster.plantStore, kube, NAMESPACE, CHAOS_POOL);
		if (options.forged) await forged.plantEvents();

		mirror = new ConsoleMirror(
			await loadKube({ kubeconfig: cluster.kubeconfig, namespace: NAMESPACE }),
			NAMESPACE,
			CHAOS_POOL,
		);
		mirror.start();
		if (options.reconcilers > 0) {
			fleet = new ReconcilerFleet({
				count: options.reconcilers,
				cliPath,
				pool: CHAOS_POOL,
				namespace: NAMESPACE,
				simPort: cluster.upstream,
				// The reconcilers run under a ServiceAccount bound to the Role `ctpool rbac` prints.
				token: await rights.setUp(dir),
				skewMs: options.skewMs,
				dir,
				interval: options.interval,
				rng: rng.fork(),
				log,
			});
			await fleet.start();
		}

		// The chaos.
		log(`chaos for ${Math.round(options.durationMs / 1000)} s`);
		// The simulator's fault switch; none on a real cluster.
		const schedule = sim
			? startFaultSchedule(sim.faults, {
					durationMs: options.durationMs,
					dropWatchesEveryMs: options.dropWatchesEveryMs,
					maxErrorRate: options.maxErrorRate,
					refusedBursts: options.refusedBursts,
					rng: rng.fork(),
					log,
				})
			: noFaults();
		const users = Array.from(
			{ length: options.users },
			(_, i) => new ChaosUser(`user${i + 1}@example.com`, world, rng.fork()),
		);
		const actors = [...users.map((u) => u.run()), admin.run()];
		const killRng = rng.fork();
		let killTimer: NodeJS.Timeout | null = null;
		const scheduleKill = () => {
			killTimer = setTimeout(
				() => {
					fleet?.armKill(killRng.chance(0.35) ? 'lease-delete' : killRng.int(0, 3));
					scheduleKill();
				},
				killRng.int(...options.killEveryMs),
			);
		};
		if (fleet) scheduleKill();
		// The reconcilers' rights revoked for a few seconds, evenly over the run.
		const rightsTimers: NodeJS.Timeout[] = [];
		if (fleet)
			for (let i = 1; i <= options.revocations; i++) {
				const at = (options.durationMs * i) / (options.revocations + 1);
				rightsTimers.push(
					setTimeout(() => {
						rights.revoke().then(
							() => log(`reconcilers' RoleBinding deleted for ${options.revokeForMs} ms`),
							(err) => log(`deleting the reconcilers' RoleBinding failed: ${errorText(err)}`),
						);
					}, at),
					setTimeout(
						() => {
							rights.restore().then(
								() => log("reconcilers' RoleBinding made again"),
								(err) => log(`making the reconcilers' RoleBinding failed: ${errorText(err)}`),
							);
						},
						Math.min(at + options.revokeForMs, options.durationMs - 1),
					),
				);
			}
		// The pool's status overwritten with ones of the wrong shape, evenly over the run.
		const statusTimers: NodeJS.Timeout[] = [];
		if (options.forged)
			for (let i = 1; i <= options.malformedStatuses; i++)
				statusTimers.push(
					setTimeout(
						() => {
							forged.malformStatus(options.durationMs).then(
								() => log('the pool status overwritten with one of the wrong shape'),
								(err) => log(`overwriting the pool status failed: ${errorText(err)}`),
							);
						},
						(options.durationMs * i) / (options.malformedStatuses + 1),
					),
				);
		await new Promise((r) => setTimeout(r, options.durationMs));
		for (const t of statusTimers) clearTimeout(t);
		for (const t of rightsTimers) clearTimeout(t);
		await rights.restore();

		// Calm again: actors finish what they are doing, reconcilers die where they stand.
		log('chaos over: stopping the actors, killing the reconcilers, faults off');
		stopping = true;
		if (killTimer) clearTimeout(killTimer);
		await Promise.all(actors);
		schedule.stop();
		await fleet?.stop();
		sim?.faults.clear();
		await cluster.sync();

		// Every user gives their desktop back; the admin recovers what failed releases left.
		for (const u of users)
			for (const f of await u.releaseAll())
				extraViolations.push({ rule: 'final-release', member: '', revision: 0, message: f });
		for (const c of truth.userClaims()) {
			await admin.forceRelease(c.member);
			log(`claim of ${c.holder} on ${c.member} force-released at the end`);
		}
		for (const { member } of truth.inMaintenance()) await admin.recover(member);
		await admin.restoreSize();
		await cluster.sync();
		if (!(await until(() => !truth.anyTerminating(), 60_000)))
			extraWarnings.push({
				rule: 'terminating',
				member: '',
				revision: 0,
				message: 'objects were still Terminating before the final reconcile',
			});

		// One final reconcile, its clock past the 10-minute reconciler Lease.
		const finalCtx = createEngineContext(kube, {
			actor: ADMIN_IDENTITY,
			namespace: NAMESPACE,
			now: () => Date.now() + FINAL_CLOCK_AHEAD_MS + (fleet ? options.skewMs : 0),
		});
		log(
			`final reconcile, ${Math.round((FINAL_CLOCK_AHEAD_MS + (fleet ? options.skewMs : 0)) / 1000)} s ahead`,
		);
		let finalSteps: string[] = [];
		const finalReconcile = async (): Promise<string[]> => {
			try {
				const last = await timeline.track('reconcile', ADMIN_IDENTITY, '', () =>
					reconcile(finalCtx, CHAOS_POOL),
				);
				for (const e of last.errors)
					extraViolations.push({ rule: 'final-reconcile', member: '', revision: 0, message: e });
				return last.actions.map((a) => `${a.step} ${a.member}${a.ok ? '' : ' (failed)'}`);
			} catch (err) {
				extraViolations.push({
					rule: 'final-reconcile',
					member: '',
					revision: 0,
					message: errorText(err),
				});
				return [];
			}
		};
		// Wait for what the cluster finishes by itself (containers starting); nothing else
		// changes any more, so other differences need no waiting.
		const settling = new Set(['not-ready', 'size']);
		const settle = () =>
			until(
				() =>
					!checkConvergence(truth, Date.now()).violations.some(
						(v) => settling.has(v.rule) && !v.message.includes('Failed'),
					),
				60_000,
			);
		finalSteps = await finalReconcile();
		await cluster.sync();
		// No member stranded longer than one reconcile: after the first, no reconciler Lease.
		let finalChecks = 0;
		for (const v of truth.views(finalCtx.now())) {
			finalChecks++;
			if (v.reconciling)
				extraViolations.push({
					rule: 'stranded',
					member: v.name,
					revision: 0,
					message: `${v.name} is still held by a reconciler Lease (holder ${v.holder || 'none'}) after the first reconcile once the faults stopped`,
				});
		}
		await settle();
		// The gradual rollout replaces drifted members maxUnavailable at a time: a member the
		// final reconcile replaced (left mid-step) holds the next drifted one back until it is
		// Ready. Reconcile again, once the last steps are Ready, while the rollout goes on.
		for (let round = 0; round < options.size + 2; round++) {
			if (!checkConvergence(truth, Date.now()).violations.some((v) => v.rule === 'drifted')) break;
			log('final rollout: another reconcile for the drifted members held back');
			finalSteps = [...finalSteps, ...(await finalReconcile())];
			await settle();
		}
		await cluster.sync();
		const converged = checkConvergence(truth, Date.now());
		let compared = mirror.compare(truth, Date.now());
		await until(() => {
			compared = mirror!.compare(truth, Date.now());
			return compared.differences.length === 0;
		}, 60_000);
		for (const d of compared.differences)
			extraViolations.push({ rule: 'console-store', member: '', revision: 0, message: d });
		mirror.stop();
		timeline.stop();

		const invariants = checkTimeline(timeline);
		const foreignChecked = await foreign.check();
		const { violations: forgedViolations, ...forgedCounts } = await forged.check(
			createEngineContext(kube, { actor: ADMIN_IDENTITY, namespace: NAMESPACE }),
		);
		for (const e of sim?.controllers.errors() ?? [])
			extraWarnings.push({
				rule: 'sim-controller',
				member: '',
				revision: 0,
				message: JSON.stringify(e),
			});
		const violations = [
			...invariants.violations,
			...converged.violations,
			...foreignChecked.violations,
			...forgedViolations,
			...extraViolations,
		];
		const fleetCounts = fleet?.counts() ?? emptyFleet();
		const applies = timeline.operations.filter((o) => o.kind === 'apply').length + 1;
		const { log: _log, cliPath: _cli, ...shown } = options;
		return {
			seed: options.seed,
			cluster: cluster.kind,
			namespace: NAMESPACE,
			relists: cluster.relists(),
			options: shown,
			elapsedMs: Date.now() - started,
			actors: world.counts,
			reconcilers: fleetCounts,
			faults: sim ? { ...sim.faults.counts } : noFaultCounts(),
			spells: schedule.counts(),
			mirror: { ...mirror.counts },
			invariants,
			finalChecks:
				converged.checks +
				compared.checks +
				foreignChecked.checks +
				forgedCounts.checks +
				finalChecks,
			reconciles: fleetCounts.reconciles + applies + 1,
			violations,
			warnings: [...invariants.warnings, ...extraWarnings],
			finalStates: converged.states,
			finalSteps,
			foreign: {
				planted: foreignChecked.planted,
				untouched: foreignChecked.untouched,
				checks: foreignChecked.checks,
			},
			forged: forgedCounts,
			rightsRevoked: rights.revoked,
			passed: violations.length === 0,
		};
	} finally {
		mirror?.stop();
		await fleet?.stop().catch(() => {});
		await cluster.close();
		await rm(dir, { recursive: true, force: true });
	}
}

function emptyFleet(): FleetCounts {
	return {
		starts: 0,
		kills: 0,
		killsMidStep: 0,
		unexpectedExits: 0,
		reconciles: 0,
		leasesTaken: 0,
		steps: 0,
		stepErrors: 0,
		requests: 0,
	};
}

/** The cluster a run goes against, as the run uses it. */
interface ChaosCluster {
	kind: 'sim' | 'real';
	namespace: string;
	/** The simulated cluster (its faults, controllers); null on a real one. */
	sim: SimCluster | null;
	/** The kubeconfig of ctpool's in-process actors and of the console mirror. */
	kubeconfig: string;
	/** What the truth reads and the timeline follows. */
	store: TruthStore & FollowedStore;
	plantStore: PlantStore;
	rights: SimCluster | RightsCluster;
	/** Where the reconcilers' taps forward to. */
	upstream: number | TlsUpstream;
	/** Starts following the cluster (the real cluster's watches). */
	start(): Promise<void>;
	/** Resolves once `store` holds what the cluster holds now. */
	sync(): Promise<void>;
	relists(): number;
	close(): Promise<void>;
}

async function startChaosCluster(options: ChaosOptions, dir: string): Promise<ChaosCluster> {
	if (options.cluster === 'real') return startRealChaos(dir);
	const sim = await startSimCluster({
		kubeconfigPath: join(dir, 'kubeconfig'),
		namespace: NAMESPACE,
		config: {
			timeScale: options.timeScale,
			containerStartMs: 3000,
			// A CT's cpu is whole cores: room for the largest pool the run makes.
			nodes: ['node-a', 'node-b', 'node-c'].map((name) => ({ name, cpu: '256', memory: '128Gi' })),
		},
		// A real server's watch history (5 minutes) and bookmarks (a minute), at the run's pace.
		compactionMs: DEFAULT_COMPACTION_MS * options.timeScale,
		bookmarkIntervalMs: DEFAULT_BOOKMARK_MS * options.timeScale,
	});
	return {
		kind: 'sim',
		namespace: NAMESPACE,
		sim,
		kubeconfig: sim.kubeconfigPath,
		store: sim.store,
		plantStore: sim.store,
		rights: sim,
		upstream: sim.port,
		start: async () => {},
		sync: async () => {},
		relists: () => 0,
		close: () => sim.close(),
	};
}

/** A fresh namespace of the real control plane, followed by watches. */
async function startRealChaos(dir: string): Promise<ChaosCluster> {
	const real: RealChaosCluster = await startRealChaosCluster(dir);
	const kube = await loadKube({ kubeconfig: real.kubeconfig, namespace: real.namespace });
	const store = new RemoteStore(kube, real.api, real.namespace);
	return {
		kind: 'real',
		namespace: real.namespace,
		sim: null,
		kubeconfig: real.kubeconfig,
		store,
		plantStore: real.plantStore,
		rights: real.rights,
		upstream: real.upstream,
		start: () => store.start(),
		sync: () => store.sync(),
		relists: () => store.relists,
		async close() {
			store.stop();
			await real.close();
		},
	};
}

function noFaults(): { stop(): void; counts(): FaultScheduleCounts } {
	return { stop: () => {}, counts: zeroFaultCounts };
}

function noFaultCounts(): FaultCounts {
	return { errors: 0, delayed: 0, droppedWatches: 0, forced410: 0, refusedConnections: 0 };
}
