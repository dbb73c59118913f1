/**
 * The reconcilers of a chaos run: real `ctpool reconcile <pool> --watch` processes, each
 * behind its own tap, killed with SIGKILL in the middle of a step (they leave their Leases
 * behind) and started again.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubeconfigYaml } from '../source/sim/index.js';
import type { Random } from './random.js';
import { ReconcilerTap, type TlsUpstream } from './reconciler-tap.js';

/** How the fleet runs. */
export interface FleetOptions {
	count: number;
	/** The built CLI (dist/cli.js). */
	cliPath: string;
	pool: string;
	namespace: string;
	/** The simulated cluster's port (plain HTTP), or a real API server; and the token. */
	simPort: number | TlsUpstream;
	token: string;
	/** A directory for the kubeconfigs. */
	dir: string;
	/** The --interval of watch mode. */
	interval: string;
	/** The first reconciler's clock runs this far ahead (ms; 0 or absent: no skew). */
	skewMs?: number;
	rng: Random;
	log(line: string): void;
}

/** What the fleet did. */
export interface FleetCounts {
	/** Processes started (restarts included). */
	starts: number;
	kills: number;
	/** Kills while the process held a reconciler Lease it had not removed yet. */
	killsMidStep: number;
	/** Processes that ended without being killed (a crash). */
	unexpectedExits: number;
	/** Reconciles begun (reads of the definition through the taps). */
	reconciles: number;
	leasesTaken: number;
	/** Steps the processes reported done, and failed. */
	steps: number;
	stepErrors: number;
	requests: number;
}

interface Slot {
	index: number;
	tap: ReconcilerTap;
	kubeconfig: string;
	child: ChildProcess | null;
	killed: boolean;
	/** Reconciler Leases it took and has not asked to delete yet. */
	holding: Set<string>;
	stderrTail: string[];
	restart: NodeJS.Timeout | null;
}

const STEP_LINE = /^\d\d:\d\d:\d\d \S+ (created|started|replaced|deleted)$/;
const STEP_ERROR = /^ctpool: \d\d:\d\d:\d\d (create|start|replace|delete) /;
const LEASE_PATH = /\/leases\/corral-vdi-ct-([^/?]+)/;

/** The reconciler processes of a run. */
export class ReconcilerFleet {
	private readonly slots: Slot[] = [];
	private stopping = false;
	private stopped: Promise<void> | null = null;
	private armed: { after: number | 'lease-delete'; target: number | null; since: number } | null =
		null;
	private fallback: NodeJS.Timeout | null = null;
	private readonly tally = {
		starts: 0,
		kills: 0,
		killsMidStep: 0,
		unexpectedExits: 0,
		steps: 0,
		stepErrors: 0,
	};

	constructor(private readonly opts: FleetOptions) {}

	/** Starts the taps and the processes. */
	async start(): Promise<void> {
		for (let i = 0; i < this.opts.count; i++) {
			const tap = new ReconcilerTap(this.opts.simPort, this.opts.pool, this.opts.namespace);
			const port = await tap.listen();
			const kubeconfig = join(this.opts.dir, `reconciler-${i + 1}.kubeconfig`);
			await writeFile(kubeconfig, kubeconfigYaml(`http://127.0.0.1:${port}`, this.opts.token), {
				mode: 0o600,
			});
			const slot: Slot = {
				index: i,
				tap,
				kubeconfig,
				child: null,
				killed: false,
				holding: new Set(),
				stderrTail: [],
				restart: null,
			};
			tap.hooks = {
				beforeRequest: (method, path) => this.beforeRequest(slot, method, path),
				onReconcilerLease: (member) => this.onLease(slot, member),
			};
			this.slots.push(slot);
			this.spawn(slot);
		}
	}

	/**
	 * Arms a kill: the next process to take a reconciler Lease is killed with SIGKILL after
	 * `after` more of its requests, or just before it deletes a reconciler Lease (the step is
	 * done but its Lease stays). The request it was about to make is cut off and never
	 * reaches the cluster. When nothing of the kind happens within a few seconds, a random
	 * process is killed instead.
	 */
	armKill(after: number | 'lease-delete'): void {
		if (this.stopping || this.armed) return;
		this.armed = { after, target: null, since: Date.now() };
		this.fallback = setTimeout(() => {
			this.fallback = null;
			const armed = this.armed;
			if (!armed) return;
			this.armed = null;
			const target = armed.target === null ? undefined : this.slots[armed.target];
			const alive = this.slots.filter((s) => s.child && !s.killed);
			const victim =
				target?.child && !target.killed ? target : alive[0] && this.opts.rng.pick(alive);
			if (victim) this.kill(victim, 'at random');
		}, 4000);
	}

	/** Kills every process (SIGKILL: Leases stay) and closes the taps. */
	stop(): Promise<void> {
		this.stopped ??= this.stopAll();
		return this.stopped;
	}

	private async stopAll(): Promise<void> {
		this.stopping = true;
		if (this.fallback) clearTimeout(this.fallback);
		const exits: Promise<void>[] = [];
		for (const slot of this.slots) {
			if (slot.restart) clearTimeout(slot.restart);
			const child = slot.child;
			if (child && child.exitCode === null && child.signalCode === null) {
				exits.push(new Promise((resolve) => child.once('exit', () => resolve())));
				this.kill(slot, 'at the end of the run');
			}
		}
		await Promise.all(exits);
		await Promise.all(this.slots.map((s) => s.tap.close()));
	}

	/** What the fleet did so far. */
	counts(): FleetCounts {
		const sum = (f: (s: Slot) => number) => this.slots.reduce((n, s) => n + f(s), 0);
		return {
			...this.tally,
			reconciles: sum((s) => s.tap.counts.reconciles),
			leasesTaken: sum((s) => s.tap.counts.leasesTaken),
			requests: sum((s) => s.tap.counts.requests),
		};
	}

	private spawn(slot: Slot): void {
		if (this.stopping) return;
		slot.killed = false;
		slot.holding.clear();
		const args = [
			this.opts.cliPath,
			'reconcile',
			this.opts.pool,
			'--watch',
			'--interval',
			this.opts.interval,
			'--kubeconfig',
			slot.kubeconfig,
			'-n',
			this.opts.namespace,
			'--identity',
			`chaos-reconciler-${slot.index + 1}`,
		];
		const skew = slot.index === 0 ? (this.opts.skewMs ?? 0) : 0;
		const child = spawn(process.execPath, [...(skew ? skewedClock(skew) : []), ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' },
		});
		this.tally.starts++;
		slot.child = child;
		lines(child.stdout, (line) => {
			if (STEP_LINE.test(line)) this.tally.steps++;
		});
		lines(child.stderr, (line) => {
			if (STEP_ERROR.test(line)) this.tally.stepErrors++;
			slot.stderrTail.push(line);
			if (slot.stderrTail.length > 20) slot.stderrTail.shift();
		});
		child.once('exit', (code, signal) => {
			if (slot.child === child) slot.child = null;
			if (!slot.killed && !this.stopping) {
				this.tally.unexpectedExits++;
				this.opts.log(
					`reconciler ${slot.index + 1} exited by itself (code ${code}, signal ${signal}); last lines:\n  ${slot.stderrTail.join('\n  ')}`,
				);
			}
			if (!this.stopping)
				slot.restart = setTimeout(
					() => {
						slot.restart = null;
						this.spawn(slot);
					},
					this.opts.rng.int(300, 1500),
				);
		});
	}

	private kill(slot: Slot, why: string): void {
		const child = slot.child;
		if (!child || slot.killed) return;
		slot.killed = true;
		this.tally.kills++;
		const mid = slot.holding.size > 0;
		if (mid) this.tally.killsMidStep++;
		child.kill('SIGKILL');
		if (!this.stopping)
			this.opts.log(
				`killed reconciler ${slot.index + 1} ${why}${mid ? ` holding the Lease of ${[...slot.holding].join(', ')}` : ''}`,
			);
	}

	private onLease(slot: Slot, member: string): void {
		slot.holding.add(member);
		if (this.armed && this.armed.target === null && !slot.killed) this.armed.target = slot.index;
	}

	private beforeRequest(slot: Slot, method: string, path: string): boolean {
		if (slot.killed) return false;
		if (method === 'DELETE') {
			const m = LEASE_PATH.exec(path);
			if (m?.[1]) slot.holding.delete(m[1]);
		}
		const armed = this.armed;
		if (!armed || armed.target !== slot.index) return true;
		if (armed.after === 'lease-delete') {
			if (method !== 'DELETE' || !LEASE_PATH.test(path)) return true;
		} else if (armed.after > 0) {
			armed.after--;
			return true;
		}
		this.armed = null;
		if (this.fallback) clearTimeout(this.fallback);
		this.fallback = null;
		// Cut this request off: the process dies before it reaches the cluster.
		if (method === 'DELETE') {
			const m = LEASE_PATH.exec(path);
			if (m?.[1]) slot.holding.add(m[1]);
		}
		this.kill(slot, `mid-step (before ${method} ${path.split('?', 1)[0]})`);
		return false;
	}
}

/**
 * Node options that run a process with its clock `ms` ahead: Date.now() and new Date()
 * (the engine's clock, Lease times) are shifted before the CLI loads.
 */
export function skewedClock(ms: number): string[] {
	const code = [
		'const R = globalThis.Date;',
		`const S = ${Math.trunc(ms)};`,
		'class D extends R {',
		'  constructor(...a) { if (a.length === 0) super(R.now() + S); else super(...a); }',
		'  static now() { return R.now() + S; }',
		'}',
		'globalThis.Date = D;',
	].join('\n');
	return ['--import', `data:text/javascript,${encodeURIComponent(code)}`];
}

function lines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
	if (!stream) return;
	let pending = '';
	stream.setEncoding('utf8');
	stream.on('data', (chunk: string) => {
		pending += chunk;
		let nl = pending.indexOf('\n');
		while (nl >= 0) {
			onLine(pending.slice(0, nl));
			pending = pending.slice(nl + 1);
			nl = pending.indexOf('\n');
		}
	});
}
