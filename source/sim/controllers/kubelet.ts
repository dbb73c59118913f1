/**
 * The kubelet of every simulated node: takes bound pods through ContainerCreating to
 * Running/Ready after config.containerStartMs, fails to pull unpullable images
 * (ErrImagePull, then ImagePullBackOff, retried with back-off), crashes (CrashLoopBackOff)
 * the containers of crashing images and, on request, any container, fails containers on request, and ends pods on a graceful delete as a node does: SIGTERM
 * first; a container whose PID 1 ignores it (`sleep infinity`, a plain shell, Corral's
 * bootstrap) stays until SIGKILL at the end of the grace period, one whose entrypoint
 * handles it exits within about a second; then the pod object is removed. The containers
 * write their log lines to the ContainerLogs as they run. All delays scale with config.timeScale.
 */

import { createHash } from 'node:crypto';
import type { SimClusterConfig } from '../config.js';
import { ContainerLogs } from '../container-logs.js';
import { qosClass } from '../defaults.js';
import type { SimEvent, SimStore } from '../store-api.js';
import type { ClusterNodes } from './cluster-nodes.js';
import {
	crashLines,
	ignoresSigterm,
	type Pid1Kind,
	pid1Kind,
	ROOTFS,
	startLines,
	stopLines,
} from './container-process.js';
import type { ControllerErrors } from './controller-errors.js';
import type { EventRecorder, EventType } from './events.js';
import { goDuration, isUnpullable, normalizeImage, pullError } from './image-pull.js';
import {
	apiTime,
	copyOf,
	isTerminal,
	keyOf,
	type Pod,
	type PodCondition,
	type PodContainerStatus,
	splitKey,
} from './pod-view.js';
import { ScaledTimers } from './scaled-timers.js';
import { controllerQueue, type WorkQueue } from './work-queue.js';

const WHO = 'system:kubelet';
/** First back-off of a failing pull or a crashing container; it doubles up to MAX_BACKOFF_MS. */
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 300_000;
/** How long a crashed container shows as terminated before CrashLoopBackOff. */
const CRASH_SHOWN_MS = 1_000;
/** How long a container whose PID 1 handles SIGTERM takes to exit. */
const EXIT_ON_SIGTERM_MS = 500;
/** Exit code of a container killed by SIGKILL (128 + 9). */
const SIGKILL_EXIT = 137;

type ContainerPhase =
	| 'creating'
	| 'running'
	| 'errImagePull'
	| 'imagePullBackOff'
	| 'crashed'
	| 'crashLoop'
	| 'failed';

interface Terminated {
	exitCode: number;
	reason: string;
	startedAt?: string;
	finishedAt: string;
	containerID?: string;
}

interface ContainerRun {
	name: string;
	image: string;
	/** What PID 1 is: decides how it meets SIGTERM and what it writes to its log. */
	kind: Pid1Kind;
	/** Container IDs whose logs are kept, oldest first (at most the current and previous). */
	logIds: string[];
	phase: ContainerPhase;
	restartCount: number;
	everStarted: boolean;
	pulled: boolean;
	startedAt?: string;
	containerID?: string;
	terminated?: Terminated;
	lastTerminated?: Terminated;
	backoffSteps: number;
}

interface PodRun {
	uid: string;
	key: string;
	node: string;
	hostIP: string;
	startTime: string;
	podIP?: string;
	containers: ContainerRun[];
	failed: boolean;
	/** The phase of a pod whose containers all ended while it was deleted. */
	terminalPhase?: 'Succeeded' | 'Failed';
	restartPolicy: string;
	/** The claim mounted at /corral-rootfs (Corral's bootstrap seeds it), if any. */
	rootfsClaim?: string;
}

/** A pod being deleted: the grace period it was given and when its containers stop (ms). */
interface Termination {
	grace: number;
	stopAt: number;
}

function backoff(steps: number): number {
	return Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** steps);
}

function fieldPath(c: ContainerRun): string {
	return `spec.containers{${c.name}}`;
}

function containerId(uid: string, name: string, restart: number): string {
	return `containerd://${createHash('sha256').update(`${uid}/${name}/${restart}`).digest('hex')}`;
}

function imageId(image: string): string {
	const ref = normalizeImage(image).replace(/:[^:/@]+$/, '');
	return `${ref}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** The kubelet controller (one for all simulated nodes). */
export class Kubelet {
	private readonly runs = new Map<string, PodRun>();
	/** Pods being deleted, by uid. */
	private readonly terminating = new Map<string, Termination>();
	/** Uids of the claims Corral's bootstrap has seeded (their `.corral-seeded` marker). */
	private readonly seeded = new Set<string>();
	/** Images already on each node: later pods there need no pull. */
	private readonly pulledOn = new Map<string, Set<string>>();
	private readonly timers: ScaledTimers;
	private readonly queue: WorkQueue;
	/** Per node: the last host number given out in its pod CIDR. */
	private readonly lastPodIp = new Map<string, number>();

	constructor(
		private readonly store: SimStore,
		private readonly config: SimClusterConfig,
		private readonly nodes: ClusterNodes,
		private readonly events: EventRecorder,
		private readonly errors: ControllerErrors,
		/** Where the containers write their log lines. */
		readonly logs: ContainerLogs = new ContainerLogs(),
	) {
		this.timers = new ScaledTimers(config.timeScale, errors, 'kubelet');
		this.queue = controllerQueue(
			(keys) => {
				for (const key of keys) this.errors.guard(`kubelet ${key}`, () => this.sync(key));
			},
			errors,
			'kubelet',
		);
	}

	/** Follows a change of any resource. */
	onChange(e: SimEvent): void {
		if (e.resource === 'persistentvolumeclaims' && e.type === 'DELETED') {
			this.seeded.delete(e.object.metadata.uid ?? '');
			return;
		}
		if (e.resource !== 'pods') return;
		const pod = e.object as Pod;
		const uid = pod.metadata.uid ?? '';
		if (e.type === 'DELETED') {
			const run = this.runs.get(uid);
			if (run) this.forget(run);
			this.timers.clearOwner(uid);
			this.terminating.delete(uid);
			return;
		}
		const node = pod.spec?.nodeName;
		if (!node || !this.nodes.get(node)) return;
		if (!this.runs.has(uid) || (pod.metadata.deletionTimestamp && this.graceShortened(pod))) {
			this.queue.add(keyOf(pod));
		}
	}

	/** Stops every timer. */
	stop(): void {
		this.queue.stop();
		this.timers.stop();
	}

	/** Pending timers (for tests and benchmarks). */
	pendingTimers(): number {
		return this.timers.size();
	}

	/** Makes the pod's running containers crash, then go into CrashLoopBackOff. */
	crash(namespace: string, name: string): void {
		const run = this.runOf(namespace, name);
		if (!run || run.failed || this.terminating.has(run.uid)) return;
		const now = apiTime();
		let any = false;
		for (const c of run.containers) {
			if (c.phase !== 'running') continue;
			any = true;
			this.exitLog(c, crashLines(c.kind, this.isSeeded(run)));
			c.phase = 'crashed';
			c.terminated = {
				exitCode: 1,
				reason: 'Error',
				startedAt: c.startedAt,
				finishedAt: now,
				containerID: c.containerID,
			};
		}
		if (!any) return;
		this.write(run);
		this.timers.set(run.uid, 'crash', CRASH_SHOWN_MS, () => this.crashLoop(run));
	}

	/** Makes the pod fail for good: phase Failed, containers terminated with exit code 1. */
	fail(namespace: string, name: string): void {
		const run = this.runOf(namespace, name);
		if (!run || run.failed) return;
		this.timers.clear(run.uid, 'start');
		this.timers.clear(run.uid, 'pull');
		this.timers.clear(run.uid, 'crash');
		this.timers.clear(run.uid, 'restart');
		const now = apiTime();
		run.failed = true;
		for (const c of run.containers) {
			if (c.phase === 'running') this.exitLog(c, crashLines(c.kind, this.isSeeded(run)));
			c.terminated = {
				exitCode: 1,
				reason: 'Error',
				startedAt: c.startedAt,
				finishedAt: now,
				containerID: c.containerID,
			};
			c.phase = 'failed';
		}
		this.write(run);
	}

	private runOf(namespace: string, name: string): PodRun | undefined {
		const pod = this.store.get('pods', namespace, name);
		if (!pod) return undefined;
		const uid = pod.metadata.uid ?? '';
		const run = this.runs.get(uid);
		if (run) return run;
		// Not seen yet (the change is still queued): start it now so the fault applies.
		if (!(pod as Pod).spec?.nodeName) return undefined;
		this.sync(keyOf(pod));
		return this.runs.get(uid);
	}

	/** Whether a deleted pod is new to the kubelet or was given a shorter grace period. */
	private graceShortened(pod: Pod): boolean {
		const t = this.terminating.get(pod.metadata.uid ?? '');
		return t === undefined || graceOf(pod) < t.grace;
	}

	private sync(key: string): void {
		const { namespace, name } = splitKey(key);
		const obj = this.store.get('pods', namespace, name);
		if (!obj) return;
		const pod = obj as Pod;
		const node = pod.spec?.nodeName;
		const info = node ? this.nodes.get(node) : undefined;
		if (!node || !info) return;
		const uid = pod.metadata.uid ?? '';
		if (pod.metadata.deletionTimestamp) {
			this.terminate(pod);
			return;
		}
		if (this.runs.has(uid)) return;
		const run: PodRun = {
			uid,
			key,
			node,
			hostIP: info.ip,
			startTime: pod.status?.startTime ?? apiTime(),
			containers: (pod.spec?.containers ?? []).map((c) => ({
				name: c.name,
				image: c.image ?? '',
				kind: pid1Kind(c),
				logIds: [],
				phase: 'creating',
				restartCount: 0,
				everStarted: false,
				pulled: false,
				backoffSteps: 0,
			})),
			failed: false,
			restartPolicy: pod.spec?.restartPolicy ?? 'Always',
			rootfsClaim: rootfsClaimOf(pod),
		};
		this.runs.set(uid, run);
		if (this.adopt(run, pod)) return;
		this.write(run);
		for (const c of run.containers) {
			if (this.needsPull(run, c)) {
				this.event(run, c, 'Normal', 'Pulling', `Pulling image "${c.image}"`);
			}
		}
		this.timers.set(uid, 'start', this.config.containerStartMs, () => this.started(run));
	}

	/** Takes over a pod a previous kubelet already ran; true when there is nothing to start. */
	private adopt(run: PodRun, pod: Pod): boolean {
		const statuses = pod.status?.containerStatuses ?? [];
		if (isTerminal(pod)) {
			run.failed = true;
			for (const c of run.containers) c.phase = 'failed';
			return true;
		}
		if (statuses.length === 0) return false;
		if (statuses.some((s) => s.state?.waiting?.reason === 'ContainerCreating')) return false;
		run.podIP = pod.status?.podIP;
		for (const c of run.containers) {
			const s = statuses.find((x) => x.name === c.name);
			c.restartCount = s?.restartCount ?? 0;
			c.containerID = s?.containerID;
			c.pulled = Boolean(s?.imageID);
			const running = s?.state?.running;
			const waiting = s?.state?.waiting?.reason;
			if (running) {
				c.phase = 'running';
				c.everStarted = true;
				c.startedAt = running.startedAt as string | undefined;
				// A runtime restarted under it keeps the container running; its old lines are lost.
				if (c.containerID) {
					this.logs.open(c.containerID);
					c.logIds.push(c.containerID);
				}
			} else if (waiting === 'CrashLoopBackOff') {
				c.phase = 'crashLoop';
				c.everStarted = true;
			} else if (waiting === 'ErrImagePull') c.phase = 'errImagePull';
			else if (waiting === 'ImagePullBackOff') c.phase = 'imagePullBackOff';
			else return false;
		}
		return true;
	}

	private needsPull(run: PodRun, c: ContainerRun): boolean {
		const always = !c.image.includes(':') || c.image.endsWith(':latest');
		return always || !this.pulledOn.get(run.node)?.has(c.image);
	}

	private started(run: PodRun): void {
		if (!this.live(run)) return;
		const ms = this.config.containerStartMs * this.config.timeScale;
		run.podIP ??= this.allocatePodIp(run.node);
		let pullFailed = false;
		const now = apiTime();
		for (const c of run.containers) {
			if (c.phase !== 'creating') continue;
			if (isUnpullable(this.config.unpullableImages, c.image)) {
				this.pullFailed(run, c);
				pullFailed = true;
				continue;
			}
			if (this.needsPull(run, c)) {
				this.event(
					run,
					c,
					'Normal',
					'Pulled',
					`Successfully pulled image "${c.image}" in ${goDuration(ms)} (${goDuration(ms)} including waiting). Image size: ${imageSize(c.image)} bytes.`,
				);
			} else {
				this.event(
					run,
					c,
					'Normal',
					'Pulled',
					`Container image "${c.image}" already present on machine`,
				);
			}
			this.pulledOnNode(run.node, c.image);
			c.pulled = true;
			c.phase = 'running';
			c.everStarted = true;
			c.startedAt = now;
			c.containerID = containerId(run.uid, c.name, c.restartCount);
			this.event(run, c, 'Normal', 'Created', `Created container: ${c.name}`);
			this.event(run, c, 'Normal', 'Started', `Started container ${c.name}`);
			this.startLog(run, c);
		}
		this.write(run);
		if (pullFailed) {
			this.timers.set(run.uid, 'pull', this.config.containerStartMs, () => this.pullBackOff(run));
		}
		// an image whose entrypoint exits at once: the container runs a moment, then crashes
		if (
			run.containers.some(
				(c) => c.phase === 'running' && isUnpullable(this.config.crashingImages ?? [], c.image),
			)
		) {
			const { namespace, name } = splitKey(run.key);
			this.timers.set(run.uid, 'exit', this.config.containerStartMs, () =>
				this.crash(namespace, name),
			);
		}
	}

	private pulledOnNode(node: string, image: string): void {
		let set = this.pulledOn.get(node);
		if (!set) {
			set = new Set();
			this.pulledOn.set(node, set);
		}
		set.add(image);
	}

	private pullFailed(run: PodRun, c: ContainerRun): void {
		c.phase = 'errImagePull';
		this.event(
			run,
			c,
			'Warning',
			'Failed',
			`Failed to pull image "${c.image}": ${pullError(c.image)}`,
		);
		this.event(run, c, 'Warning', 'Failed', 'Error: ErrImagePull');
	}

	private pullBackOff(run: PodRun): void {
		if (!this.live(run)) return;
		let steps = 0;
		for (const c of run.containers) {
			if (c.phase !== 'errImagePull') continue;
			c.phase = 'imagePullBackOff';
			steps = Math.max(steps, c.backoffSteps);
			this.event(run, c, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`);
			this.event(run, c, 'Warning', 'Failed', 'Error: ImagePullBackOff');
		}
		this.write(run);
		this.timers.set(run.uid, 'pull', backoff(steps), () => this.pullAgain(run));
	}

	private pullAgain(run: PodRun): void {
		if (!this.live(run)) return;
		for (const c of run.containers) {
			if (c.phase !== 'imagePullBackOff') continue;
			c.backoffSteps++;
			this.event(run, c, 'Normal', 'Pulling', `Pulling image "${c.image}"`);
			this.pullFailed(run, c);
		}
		this.write(run);
		this.timers.set(run.uid, 'pull', this.config.containerStartMs, () => this.pullBackOff(run));
	}

	private crashLoop(run: PodRun): void {
		if (!this.live(run)) return;
		if (run.restartPolicy === 'Never') {
			const { namespace, name } = splitKey(run.key);
			this.fail(namespace, name);
			return;
		}
		for (const c of run.containers) {
			if (c.phase !== 'crashed') continue;
			c.phase = 'crashLoop';
			c.restartCount++;
			c.lastTerminated = c.terminated;
			c.terminated = undefined;
			c.backoffSteps = 0;
			this.backOffEvent(run, c);
		}
		this.write(run);
		this.timers.set(run.uid, 'restart', backoff(0), () => this.restartAgain(run));
	}

	/** The container restarted after its back-off and crashed again at once. */
	private restartAgain(run: PodRun): void {
		if (!this.live(run)) return;
		let steps = 0;
		const now = apiTime();
		for (const c of run.containers) {
			if (c.phase !== 'crashLoop') continue;
			c.restartCount++;
			c.backoffSteps++;
			steps = Math.max(steps, c.backoffSteps);
			c.containerID = containerId(run.uid, c.name, c.restartCount);
			this.startLog(run, c);
			this.exitLog(c, crashLines(c.kind, this.isSeeded(run)));
			c.lastTerminated = {
				exitCode: 1,
				reason: 'Error',
				startedAt: now,
				finishedAt: now,
				containerID: c.containerID,
			};
			this.backOffEvent(run, c);
		}
		this.write(run);
		this.timers.set(run.uid, 'restart', backoff(steps), () => this.restartAgain(run));
	}

	private backOffEvent(run: PodRun, c: ContainerRun): void {
		const { namespace, name } = splitKey(run.key);
		this.event(
			run,
			c,
			'Warning',
			'BackOff',
			`Back-off restarting failed container ${c.name} in pod ${name}_${namespace}(${run.uid})`,
		);
	}

	/**
	 * A graceful delete: SIGTERM to every running container; the pod is removed once they have
	 * all stopped: at once when none runs, within about a second when every PID 1 handles
	 * SIGTERM, else at the end of the grace period (SIGKILL). A shorter grace given later wins.
	 */
	private terminate(pod: Pod): void {
		const uid = pod.metadata.uid ?? '';
		const grace = graceOf(pod);
		const old = this.terminating.get(uid);
		if (old !== undefined && old.grace <= grace) return;
		const run = this.runs.get(uid);
		const running = run?.containers.filter((c) => c.phase === 'running') ?? [];
		const waitsForKill = running.some((c) => ignoresSigterm(c.kind));
		const stopMs =
			running.length === 0
				? 0
				: waitsForKill
					? grace * 1000
					: Math.min(grace * 1000, EXIT_ON_SIGTERM_MS);
		const stopAt = Math.min(old?.stopAt ?? Infinity, Date.now() + stopMs * this.config.timeScale);
		this.terminating.set(uid, { grace, stopAt });
		this.timers.clear(uid, 'start');
		this.timers.clear(uid, 'pull');
		this.timers.clear(uid, 'crash');
		this.timers.clear(uid, 'restart');
		if (old === undefined && run) {
			for (const c of running) {
				this.event(run, c, 'Normal', 'Killing', `Stopping container ${c.name}`);
				const id = c.containerID;
				if (id) for (const line of stopLines(c.kind)) this.logs.write(id, line);
			}
		}
		const { namespace, name } = { namespace: pod.metadata.namespace, name: pod.metadata.name };
		const ms = Math.max(0, stopAt - Date.now()) / this.config.timeScale;
		this.timers.set(uid, 'delete', Number.isFinite(ms) ? ms : 0, () => {
			if (run) this.stopped(run);
			this.store.delete('pods', namespace, name, {
				gracePeriodSeconds: 0,
				preconditions: { uid },
				who: WHO,
			});
		});
	}

	/**
	 * The containers of a deleted pod have stopped: those still running exited on SIGTERM (0)
	 * or were killed (137); the pod's status says so, with its terminal phase, before it goes.
	 */
	private stopped(run: PodRun): void {
		if (this.runs.get(run.uid) !== run) return;
		const running = run.containers.filter((c) => c.phase === 'running');
		if (running.length === 0) return;
		const now = apiTime();
		let killed = false;
		for (const c of running) {
			const sigkill = ignoresSigterm(c.kind);
			killed ||= sigkill;
			c.terminated = {
				exitCode: sigkill ? SIGKILL_EXIT : 0,
				reason: sigkill ? 'Error' : 'Completed',
				startedAt: c.startedAt,
				finishedAt: now,
				containerID: c.containerID,
			};
			c.phase = 'failed';
			if (c.containerID) this.logs.end(c.containerID);
		}
		run.failed = true;
		run.terminalPhase = killed ? 'Failed' : 'Succeeded';
		this.write(run);
	}

	/** The pod of a run is gone: the run and its containers' logs go with it. */
	private forget(run: PodRun): void {
		for (const c of run.containers) for (const id of c.logIds) this.logs.drop(id);
		if (this.runs.get(run.uid) === run) this.runs.delete(run.uid);
	}

	/** A container started: a new log, the older ones but the previous run's dropped. */
	private startLog(run: PodRun, c: ContainerRun): void {
		const id = c.containerID;
		if (!id) return;
		this.logs.open(id);
		c.logIds.push(id);
		while (c.logIds.length > 2) this.logs.drop(c.logIds.shift()!);
		const seeded = this.isSeeded(run);
		for (const line of startLines(c.kind, c.image, seeded)) this.logs.write(id, line);
		if (c.kind === 'bootstrap' && !seeded) this.markSeeded(run);
	}

	/** A container exits on its own: its last lines, then the end of its log. */
	private exitLog(c: ContainerRun, lines: string[]): void {
		const id = c.containerID;
		if (!id) return;
		for (const line of lines) this.logs.write(id, line);
		this.logs.end(id);
	}

	private claimUid(run: PodRun): string | undefined {
		if (!run.rootfsClaim) return undefined;
		const { namespace } = splitKey(run.key);
		return this.store.get('persistentvolumeclaims', namespace, run.rootfsClaim)?.metadata.uid;
	}

	/** Whether the claim at /corral-rootfs holds the marker of an earlier seeding. */
	private isSeeded(run: PodRun): boolean {
		const uid = this.claimUid(run);
		return uid !== undefined && this.seeded.has(uid);
	}

	private markSeeded(run: PodRun): void {
		const uid = this.claimUid(run);
		if (uid) this.seeded.add(uid);
	}

	private live(run: PodRun): boolean {
		return this.runs.get(run.uid) === run && !this.terminating.has(run.uid);
	}

	/** The next address in the node's /24 pod CIDR (2..253, then round again, as IPs are reused). */
	private allocatePodIp(node: string): string {
		const net = this.nodes.get(node)?.podNet ?? '10.244.255';
		const n = ((this.lastPodIp.get(node) ?? 1) - 1) % 252;
		this.lastPodIp.set(node, n + 2);
		return `${net}.${n + 2}`;
	}

	private event(
		run: PodRun,
		c: ContainerRun,
		type: EventType,
		reason: string,
		message: string,
	): void {
		const { namespace, name } = splitKey(run.key);
		const pod = this.store.get('pods', namespace, name);
		if (!pod || pod.metadata.uid !== run.uid) return;
		this.events.record(
			pod,
			type,
			reason,
			message,
			{ component: 'kubelet', host: run.node },
			fieldPath(c),
		);
	}

	private write(run: PodRun): void {
		const { namespace, name } = splitKey(run.key);
		const obj = this.store.get('pods', namespace, name);
		if (!obj || obj.metadata.uid !== run.uid) {
			this.timers.clearOwner(run.uid);
			this.forget(run);
			return;
		}
		const pod = copyOf<Pod>(obj);
		// A JSON round trip drops the undefined fields, as the wire would.
		pod.status = JSON.parse(JSON.stringify(renderStatus(run, pod)));
		this.store.update('pods', pod, { who: WHO });
	}
}

/** The grace period a deleted pod was given (s). */
function graceOf(pod: Pod): number {
	return Math.max(0, pod.metadata.deletionGracePeriodSeconds ?? 0);
}

/** The claim of the volume a container mounts at /corral-rootfs, if any. */
function rootfsClaimOf(pod: Pod): string | undefined {
	for (const c of pod.spec?.containers ?? []) {
		const mount = c.volumeMounts?.find((m) => m.mountPath === ROOTFS);
		if (!mount) continue;
		const v = pod.spec?.volumes?.find((x) => x.name === mount.name);
		if (v?.persistentVolumeClaim?.claimName) return v.persistentVolumeClaim.claimName;
	}
	return undefined;
}

function imageSize(image: string): number {
	const h = createHash('sha256').update(image).digest();
	return 50_000_000 + (h.readUInt32BE(0) % 900_000_000);
}

function containerStatus(run: PodRun, c: ContainerRun): PodContainerStatus {
	const s: PodContainerStatus = {
		name: c.name,
		image: c.image,
		imageID: c.pulled ? imageId(c.image) : '',
		ready: c.phase === 'running' && !run.failed,
		restartCount: c.restartCount,
		started: c.phase === 'running',
		state: {},
		lastState: {},
	};
	if (c.containerID) s.containerID = c.containerID;
	switch (c.phase) {
		case 'creating':
			s.state = { waiting: { reason: 'ContainerCreating' } };
			break;
		case 'running':
			s.state = { running: { startedAt: c.startedAt } };
			break;
		case 'errImagePull':
			s.state = { waiting: { reason: 'ErrImagePull', message: pullError(c.image) } };
			break;
		case 'imagePullBackOff':
			s.state = {
				waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` },
			};
			break;
		case 'crashLoop': {
			const { namespace, name } = splitKey(run.key);
			const wait = Math.round(backoff(c.backoffSteps) / 1000);
			s.state = {
				waiting: {
					reason: 'CrashLoopBackOff',
					message: `back-off ${formatBackoff(wait)} restarting failed container=${c.name} pod=${name}_${namespace}(${run.uid})`,
				},
			};
			break;
		}
		case 'crashed':
		case 'failed':
			s.state = c.terminated ? { terminated: { ...c.terminated } } : {};
			break;
	}
	if (c.lastTerminated) s.lastState = { terminated: { ...c.lastTerminated } };
	return s;
}

function formatBackoff(seconds: number): string {
	if (seconds < 60) return `${seconds}s`;
	const m = Math.floor(seconds / 60);
	const s = seconds % 60;
	return s === 0 ? `${m}m0s` : `${m}m${s}s`;
}

/** The pod status the kubelet reports for a run, keeping transition times that did not change. */
function renderStatus(run: PodRun, pod: Pod): NonNullable<Pod['status']> {
	const prev = pod.status ?? {};
	const statuses = run.containers.map((c) => containerStatus(run, c));
	const allStarted = run.containers.every((c) => c.everStarted);
	const phase = run.failed ? (run.terminalPhase ?? 'Failed') : allStarted ? 'Running' : 'Pending';
	const ready = !run.failed && run.containers.every((c) => c.phase === 'running');
	const unready = run.containers.filter((c) => c.phase !== 'running').map((c) => c.name);
	const notReady: Partial<PodCondition> = run.failed
		? { reason: run.terminalPhase === 'Succeeded' ? 'PodCompleted' : 'PodFailed' }
		: {
				reason: 'ContainersNotReady',
				message: `containers with unready status: [${unready.join(' ')}]`,
			};
	const conds: PodCondition[] = [
		{ type: 'PodReadyToStartContainers', status: run.podIP ? 'True' : 'False' },
		{ type: 'Initialized', status: 'True' },
		{ type: 'Ready', status: ready ? 'True' : 'False', ...(ready ? {} : notReady) },
		{ type: 'ContainersReady', status: ready ? 'True' : 'False', ...(ready ? {} : notReady) },
		{ type: 'PodScheduled', status: 'True' },
	];
	const now = apiTime();
	const conditions = conds.map((c) => {
		const old = prev.conditions?.find((o) => o.type === c.type);
		return {
			...c,
			lastProbeTime: null,
			lastTransitionTime:
				old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now,
		};
	});
	const status: NonNullable<Pod['status']> = {
		phase,
		conditions,
		hostIP: run.hostIP,
		hostIPs: [{ ip: run.hostIP }],
		startTime: run.startTime,
		containerStatuses: statuses,
		qosClass: prev.qosClass ?? qosClass(pod.spec),
	};
	if (run.podIP) {
		status.podIP = run.podIP;
		status.podIPs = [{ ip: run.podIP }];
	}
	return status;
}
