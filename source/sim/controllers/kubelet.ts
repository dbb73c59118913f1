/**
 * The kubelet of every simulated node: takes bound pods through ContainerCreating to
 * Running/Ready after config.containerStartMs, fails to pull unpullable images
 * (ErrImagePull, then ImagePullBackOff, retried with back-off), crashes (CrashLoopBackOff)
 * or fails containers on request, and finishes graceful deletions once the grace period
 * has passed. All delays scale with config.timeScale.
 */

import { createHash } from 'node:crypto';
import type { SimClusterConfig } from '../config.js';
import { qosClass } from '../defaults.js';
import type { SimEvent, SimStore } from '../store-api.js';
import type { ClusterNodes } from './cluster-nodes.js';
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
} from './pod-facts.js';
import { ScaledTimers } from './scaled-timers.js';
import { controllerQueue, type WorkQueue } from './work-queue.js';

const WHO = 'system:kubelet';
/** First back-off of a failing pull or a crashing container; it doubles up to MAX_BACKOFF_MS. */
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 300_000;
/** How long a crashed container shows as terminated before CrashLoopBackOff. */
const CRASH_SHOWN_MS = 1_000;

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
	restartPolicy: string;
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
	/** Pods being deleted: uid -> when the grace period ends (ms since the epoch, scaled). */
	private readonly terminating = new Map<string, number>();
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
		if (e.resource !== 'pods') return;
		const pod = e.object as Pod;
		const uid = pod.metadata.uid ?? '';
		if (e.type === 'DELETED') {
			this.timers.clearOwner(uid);
			this.runs.delete(uid);
			this.terminating.delete(uid);
			return;
		}
		const node = pod.spec?.nodeName;
		if (!node || !this.nodes.get(node)) return;
		if (!this.runs.has(uid) || (pod.metadata.deletionTimestamp && this.graceChanged(pod))) {
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

	private graceChanged(pod: Pod): boolean {
		const uid = pod.metadata.uid ?? '';
		const deadline = this.terminating.get(uid);
		return deadline === undefined || this.deadlineOf(pod) < deadline;
	}

	private deadlineOf(pod: Pod): number {
		const grace = pod.metadata.deletionGracePeriodSeconds ?? this.config.defaultGraceSeconds;
		return Date.now() + Math.max(0, grace) * 1000 * this.config.timeScale;
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
				phase: 'creating',
				restartCount: 0,
				everStarted: false,
				pulled: false,
				backoffSteps: 0,
			})),
			failed: false,
			restartPolicy: pod.spec?.restartPolicy ?? 'Always',
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
		}
		this.write(run);
		if (pullFailed) {
			this.timers.set(run.uid, 'pull', this.config.containerStartMs, () => this.pullBackOff(run));
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

	private terminate(pod: Pod): void {
		const uid = pod.metadata.uid ?? '';
		const deadline = this.deadlineOf(pod);
		const old = this.terminating.get(uid);
		if (old !== undefined && old <= deadline) return;
		this.terminating.set(uid, deadline);
		this.timers.clear(uid, 'start');
		this.timers.clear(uid, 'pull');
		this.timers.clear(uid, 'crash');
		this.timers.clear(uid, 'restart');
		const run = this.runs.get(uid);
		if (old === undefined && run) {
			for (const c of run.containers) {
				if (c.phase === 'running') {
					this.event(run, c, 'Normal', 'Killing', `Stopping container ${c.name}`);
				}
			}
		}
		const { namespace, name } = { namespace: pod.metadata.namespace, name: pod.metadata.name };
		const ms = Math.max(0, deadline - Date.now()) / this.config.timeScale;
		this.timers.set(uid, 'delete', Number.isFinite(ms) ? ms : 0, () => {
			this.store.delete('pods', namespace, name, {
				gracePeriodSeconds: 0,
				preconditions: { uid },
				who: WHO,
			});
		});
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
			this.runs.delete(run.uid);
			return;
		}
		const pod = copyOf<Pod>(obj);
		// A JSON round trip drops the undefined fields, as the wire would.
		pod.status = JSON.parse(JSON.stringify(renderStatus(run, pod)));
		this.store.update('pods', pod, { who: WHO });
	}
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
	const phase = run.failed ? 'Failed' : allStarted ? 'Running' : 'Pending';
	const ready = !run.failed && run.containers.every((c) => c.phase === 'running');
	const unready = run.containers.filter((c) => c.phase !== 'running').map((c) => c.name);
	const notReady: Partial<PodCondition> = run.failed
		? { reason: 'PodFailed' }
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
