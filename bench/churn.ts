/**
 * The churn generator of the live-view benchmark, as its own process. At a steady rate it
 * writes to the pool through the API: most writes flip the readiness of a member far below
 * the screen (a pod status change), and every n-th sets the Lease holder of a member on
 * screen to a unique token. It prints JSON lines: `start` when the first write goes out,
 * then `done` with the acknowledgement time of every token.
 */

import { ApiClient } from './api-client.js';
import { sleep, wallMs } from './clock.js';

/** What the generator is started with (one JSON argument). */
export interface ChurnOptions {
	/** Plain HTTP URL of the simulated cluster and its token. */
	url: string;
	token: string;
	namespace: string;
	pool: string;
	/** Changes per second. */
	rate: number;
	seconds: number;
	/** Share of the changes that set a visible Lease holder (0..1). */
	visibleShare: number;
	/** Members on screen whose Lease holder changes (each has a Lease). */
	visibleMembers: string[];
	/** Members off screen whose pods change. */
	offscreenMembers: string[];
	/**
	 * More pools whose every pod is off screen (the scale scenario: the churn spread over
	 * many pools, in their own namespaces); their pods join the off-screen members.
	 */
	offscreenPools?: Array<{ namespace: string; pool: string }>;
	/** Prefix of the tokens (tokens are the prefix and six digits). */
	tokenPrefix: string;
	/** Writes in flight at most; a slower server makes the generator fall behind, not pile up. */
	maxInFlight: number;
}

/** A token and when the server acknowledged the write that set it. */
export interface TokenAck {
	token: string;
	member: string;
	/** Epoch ms (wallMs) when the write's answer arrived. */
	ackAt: number;
	/** Epoch ms when the write was sent. */
	sentAt: number;
}

/** The generator's `done` line. */
export interface ChurnResult {
	event: 'done';
	startAt: number;
	endAt: number;
	/** Writes sent and answered 2xx. */
	writes: number;
	visibleWrites: number;
	offscreenWrites: number;
	errors: number;
	/** Writes not sent because maxInFlight were outstanding. */
	skipped: number;
	/** Changes per second achieved (answered writes / duration). */
	achievedRate: number;
	tokens: TokenAck[];
	/** The write round trips, ms (p50, p99). */
	writeMs: { p50: number; p99: number };
	firstError?: string;
}

interface PodCondition {
	type: string;
	status: string;
	lastTransitionTime?: string;
	[k: string]: unknown;
}

interface PodList {
	items: Array<{ metadata: { name: string }; status?: { conditions?: PodCondition[] } }>;
}

function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs the churn; resolves with the result (also used in-process by the smoke test). */
export async function runChurn(
	opts: ChurnOptions,
	onStart: (at: number) => void = () => {},
): Promise<ChurnResult> {
	const api = new ApiClient(opts.url, opts.token, {
		agentName: 'ctpool-bench-churn',
		maxSockets: Math.min(64, opts.maxInFlight),
	});
	// Off-screen pods by their path under /api/v1/namespaces/ (namespace/pods/name).
	const podPath = (namespace: string, name: string) => `${namespace}/pods/${name}`;
	const conditions = new Map<string, PodCondition[]>();
	const listPods = async (namespace: string, pool: string) => {
		const list = await api.json<PodList>(
			'GET',
			`/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(`corral.dev/vdi-ct-pool=${pool}`)}`,
		);
		for (const p of list.items)
			conditions.set(podPath(namespace, p.metadata.name), p.status?.conditions ?? []);
		return list.items.map((p) => podPath(namespace, p.metadata.name));
	};
	await listPods(opts.namespace, opts.pool);
	const offscreen = opts.offscreenMembers
		.map((m) => podPath(opts.namespace, m))
		.filter((m) => conditions.has(m));
	for (const extra of opts.offscreenPools ?? [])
		if (extra.namespace !== opts.namespace || extra.pool !== opts.pool)
			offscreen.push(...(await listPods(extra.namespace, extra.pool)));
	if (offscreen.length === 0 && opts.visibleShare < 1)
		throw new Error('churn: none of the off-screen members has a pod');
	const every = opts.visibleShare > 0 ? Math.max(1, Math.round(1 / opts.visibleShare)) : 0;

	const tokens: TokenAck[] = [];
	const rtts: number[] = [];
	let writes = 0;
	let visibleWrites = 0;
	let offscreenWrites = 0;
	let errors = 0;
	let skipped = 0;
	let firstError: string | undefined;
	let inFlight = 0;
	let issued = 0;
	let nextVisible = 0;
	let nextOff = 0;
	let tokenSeq = 0;
	const pending = new Set<Promise<void>>();

	const send = (method: string, path: string, body: unknown, onOk: (ackAt: number) => void) => {
		const sentAt = wallMs();
		inFlight++;
		const p = api
			.request(method, path, body, 'application/merge-patch+json')
			.then((a) => {
				const ackAt = wallMs();
				if (a.code >= 200 && a.code < 300) {
					writes++;
					rtts.push(ackAt - sentAt);
					onOk(ackAt);
				} else {
					errors++;
					firstError ??= `${method} ${path}: HTTP ${a.code} ${a.text.slice(0, 200)}`;
				}
			})
			.catch((err: Error) => {
				errors++;
				firstError ??= `${method} ${path}: ${err.message}`;
			})
			.finally(() => {
				inFlight--;
				pending.delete(p);
			});
		pending.add(p);
	};

	const visibleChange = () => {
		const member = opts.visibleMembers[nextVisible++ % opts.visibleMembers.length]!;
		const token = `${opts.tokenPrefix}${String(tokenSeq++).padStart(6, '0')}`;
		const sentAt = wallMs();
		send(
			'PATCH',
			`/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases/corral-vdi-ct-${member}`,
			{ spec: { holderIdentity: token } },
			(ackAt) => {
				visibleWrites++;
				tokens.push({ token, member, ackAt, sentAt });
			},
		);
	};

	const offscreenChange = () => {
		// a stride through the off-screen members, so consecutive changes hit different pods
		const member = offscreen[(nextOff++ * 7919) % offscreen.length]!;
		const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
		const next = (conditions.get(member) ?? []).map((c) => {
			if (c.type !== 'Ready' && c.type !== 'ContainersReady') return c;
			return { ...c, status: c.status === 'True' ? 'False' : 'True', lastTransitionTime: now };
		});
		conditions.set(member, next);
		send('PATCH', `/api/v1/namespaces/${member}/status`, { status: { conditions: next } }, () => {
			offscreenWrites++;
		});
	};

	const total = Math.round(opts.rate * opts.seconds);
	const startAt = wallMs();
	onStart(startAt);
	while (issued < total) {
		const due = Math.min(total, Math.floor(((wallMs() - startAt) / 1000) * opts.rate) + 1);
		while (issued < due) {
			const visible = every > 0 && issued % every === 0;
			issued++;
			if (inFlight >= opts.maxInFlight) {
				skipped++;
				continue;
			}
			if (visible || offscreen.length === 0) visibleChange();
			else offscreenChange();
		}
		await sleep(2);
	}
	await Promise.all([...pending]);
	const endAt = wallMs();
	api.close();
	rtts.sort((a, b) => a - b);
	const result: ChurnResult = {
		event: 'done',
		startAt,
		endAt,
		writes,
		visibleWrites,
		offscreenWrites,
		errors,
		skipped,
		achievedRate: writes / ((endAt - startAt) / 1000),
		tokens,
		writeMs: { p50: percentile(rtts, 50), p99: percentile(rtts, 99) },
	};
	if (firstError !== undefined) result.firstError = firstError;
	return result;
}
