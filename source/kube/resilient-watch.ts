/**
 * A list + watch loop for one resource that never gives up until stopped: it lists, watches
 * from the list's resourceVersion with bookmarks and a server timeout, re-watches from the
 * last resourceVersion after a clean end, relists after 410 Gone, retries every other error
 * with capped, jittered exponential backoff, and restarts a stream that falls silent.
 * It does not use client-node's informer, which stops for good on a non-410 error.
 */
import { getJson, leadingContinue, streamLines } from './api-request.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type Kube } from './config.js';
import { type ConnectionState, sameState } from './connection-state.js';
import { apiFailure, describeError, forbiddenText, KubeHttpError } from './errors.js';
import { guardHandler, objectName } from './handler-errors.js';
import type { KubeObject } from './objects.js';
import { sleep } from './retry.js';

/** A namespaced resource to watch. */
export interface WatchedResource {
	/** Plural name as in the URL ('pods', 'leases'). */
	plural: string;
	/** Kind of its objects ('Pod', 'Lease'). */
	kind: string;
	/** API version of its objects ('v1', 'coordination.k8s.io/v1'). */
	apiVersion: string;
	/** The namespace; absent = every namespace (a cluster-wide list and watch). */
	namespace?: string;
}

/** Tuning of a resilient watch. */
export interface ResilientWatchOptions {
	labelSelector?: string;
	/** Server-side watch timeout (s); each watch adds up to 25 % so watches do not end together. */
	timeoutSeconds?: number;
	/** Restart a stream with no event or bookmark for this long (ms). */
	silenceMs?: number;
	/** Retry delays (ms): doubled per failed attempt up to max, then jittered down by up to half. */
	backoffMs?: { initial: number; max: number };
	/** Items per list page. */
	pageSize?: number;
	/** Deadline of each list page and of opening a watch (ms). */
	requestTimeoutMs?: number;
}

/** What a resilient watch reports. */
export interface ResilientWatchHandlers {
	/** A full list: replace every object of this resource. */
	onReset(objects: KubeObject[]): void;
	/**
	 * One page of a list as it arrives (its objects will be in the list's onReset too, the
	 * same objects, not to be mutated): what a consumer does per object can be done while
	 * the server makes the next page. A list that fails before its end is never reset.
	 */
	onPage?(objects: readonly KubeObject[]): void;
	/** One object created or changed ('upsert') or gone ('delete'). */
	onChange(op: 'upsert' | 'delete', object: KubeObject): void;
	/** The connection state changed. */
	onState(state: ConnectionState): void;
}

/** A running resilient watch. */
export interface ResilientWatch {
	/** Ends the watch for good: aborts the request and clears every timer. */
	stop(): void;
	/** The current connection state. */
	state(): ConnectionState;
	/** The resourceVersion the next watch resumes from (null = a relist is due). */
	resourceVersion(): string | null;
}

/** Default server-side watch timeout (s). */
export const DEFAULT_WATCH_TIMEOUT_SECONDS = 240;
/** Default silence limit (ms): twice the API server's bookmark interval of about a minute. */
export const DEFAULT_SILENCE_MS = 120_000;
/** Default retry delays (ms). */
export const DEFAULT_BACKOFF_MS = { initial: 500, max: 30_000 };
const PAGE_SIZE = 500;
/** A watch that delivered something or stayed open this long counts as healthy (ms). */
const STABLE_MS = 5_000;
/** A stream open this long before it dropped counts as a working connection (ms). */
const PROVEN_OPEN_MS = 1_000;

/** The API path of a namespaced resource's collection (in one namespace, or in all). */
export function resourcePath(r: WatchedResource): string {
	const prefix = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
	if (r.namespace === undefined) return `${prefix}/${r.plural}`;
	return `${prefix}/namespaces/${encodeURIComponent(r.namespace)}/${r.plural}`;
}

/** A stream that stayed silent longer than the limit. */
class WatchSilentError extends Error {
	constructor(ms: number) {
		super(`no event or bookmark for ${Math.round(ms / 1000)} s; restarting the watch`);
		this.name = 'WatchSilentError';
	}
}

const EXPIRED = Symbol('expired');
const STOPPED = Symbol('stopped');

interface ListAnswer {
	metadata?: { resourceVersion?: string; continue?: string };
	items?: KubeObject[];
}

interface WatchEvent {
	type?: string;
	object?: KubeObject & { code?: number };
}

/**
 * What a list page says: its items (a list; each entry is read at the consumer's boundary),
 * its resourceVersion and its continue token (text, else absent). A page that is no object,
 * whose items are no list, or whose metadata names them in another type throws, naming it:
 * the list fails and is tried again, never taken as empty.
 */
function readPage(
	page: unknown,
	plural: string,
): { items: KubeObject[]; resourceVersion: string | undefined; next: string | undefined } {
	const bad = (what: string) => new Error(`a page of the list of ${plural}: ${what}`);
	if (page === null || typeof page !== 'object' || Array.isArray(page))
		throw bad('the answer is not an object');
	const { items, metadata } = page as { items?: unknown; metadata?: unknown };
	if (items !== undefined && items !== null && !Array.isArray(items))
		throw bad('items is not a list');
	const meta = (metadata ?? {}) as { resourceVersion?: unknown; continue?: unknown };
	if (typeof meta !== 'object' || Array.isArray(meta)) throw bad('metadata is not an object');
	const text = (v: unknown, name: string): string | undefined => {
		if (v === undefined || v === null || v === '') return undefined;
		if (typeof v !== 'string') throw bad(`metadata.${name} is not text`);
		return v;
	};
	return {
		items: (items ?? []) as KubeObject[],
		resourceVersion: text(meta.resourceVersion, 'resourceVersion'),
		next: text(meta.continue, 'continue'),
	};
}

/** Starts a list + watch loop for one resource; it runs until stop(). */
export function startResilientWatch(
	kube: Kube,
	resource: WatchedResource,
	opts: ResilientWatchOptions,
	handlers: ResilientWatchHandlers,
): ResilientWatch {
	const kc = kube.config;
	const path = resourcePath(resource);
	const requestTimeoutMs =
		opts.requestTimeoutMs ?? kube.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const silenceMs = opts.silenceMs ?? DEFAULT_SILENCE_MS;
	const backoff = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
	const timeoutSeconds = opts.timeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
	const pageSize = opts.pageSize ?? PAGE_SIZE;

	let stopped = false;
	let rv: string | null = null;
	let attempts = 0;
	let state: ConnectionState = { phase: 'connecting', since: Date.now() };
	let current: AbortController | null = null;
	/** Aborted by stop(): ends the pause between two tries at once. */
	const stopping = new AbortController();
	let watchdog: ReturnType<typeof setTimeout> | undefined;

	const setState = (next: ConnectionState) => {
		if (stopped || sameState(state, next)) return;
		state = next;
		guardHandler(
			() => `the ${resource.plural} watch's state`,
			() => handlers.onState(next),
		);
	};
	const markSynced = () => {
		if (state.phase !== 'synced') setState({ phase: 'synced', since: Date.now() });
	};

	async function relist(): Promise<void> {
		const ac = new AbortController();
		current = ac;
		const objects: KubeObject[] = [];
		let listRv: string | undefined;
		// Each page's next is asked for as soon as the page's text names its continue token,
		// so that the server makes it while this process parses the one before (a list of 20
		// pages otherwise waits for the server and for the parse in turn, page after page).
		// The page parsed decides: a page asked for with a token it does not name is dropped.
		// One page at most is asked for ahead (a server whose texts named other tokens than
		// its pages could otherwise make this ask for a page of each of them).
		const ahead = new Map<string, { page: Promise<ListAnswer>; drop: AbortController }>();
		const fetchPage = (
			cont: string | undefined,
			drop = new AbortController(),
		): Promise<ListAnswer> =>
			getJson<ListAnswer>(
				kc,
				path,
				{ labelSelector: opts.labelSelector, limit: pageSize, continue: cont },
				requestTimeoutMs,
				AbortSignal.any([ac.signal, drop.signal]),
				{ onText: askAhead },
			);
		const askAhead = (text: string): boolean => {
			if (ahead.size > 0 || stopped || ac.signal.aborted) return false;
			const next = leadingContinue(text);
			if (next === undefined) return false;
			const drop = new AbortController();
			const page = fetchPage(next, drop);
			page.catch(() => {}); // told when awaited; a dropped one never is
			ahead.set(next, { page, drop });
			return true;
		};
		let cont: string | undefined;
		try {
			do {
				const early = cont === undefined ? undefined : ahead.get(cont);
				if (cont !== undefined) ahead.delete(cont);
				const page = await (early ? early.page : fetchPage(cont));
				if (stopped) return;
				const { items, resourceVersion, next } = readPage(page, resource.plural);
				listRv = resourceVersion ?? listRv;
				for (const item of items) {
					// an entry that is no object goes on as it is: the consumer's boundary names it
					if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
						if (!item.kind) item.kind = resource.kind;
						if (!item.apiVersion) item.apiVersion = resource.apiVersion;
					}
					objects.push(item);
				}
				cont = next;
				const onPage = handlers.onPage;
				if (onPage && items.length > 0)
					guardHandler(
						() => `a page of ${items.length} ${resource.plural}`,
						() => onPage(items),
					);
			} while (cont);
		} finally {
			for (const { drop } of ahead.values()) drop.abort();
		}
		rv = listRv ?? '';
		guardHandler(
			() => `a list of ${objects.length} ${resource.plural}`,
			() => handlers.onReset(objects),
		);
		markSynced();
	}

	async function watchOnce(): Promise<void> {
		const ac = new AbortController();
		current = ac;
		const openedAt = Date.now();
		let lastActivity = openedAt;
		let delivered = false;
		const check = () => {
			watchdog = undefined;
			if (stopped || current !== ac) return;
			const idle = Date.now() - lastActivity;
			if (idle >= silenceMs) ac.abort(new WatchSilentError(idle));
			else watchdog = setTimeout(check, silenceMs - idle);
		};
		watchdog = setTimeout(check, silenceMs);
		const onLine = (line: string) => {
			if (current !== ac || ac.signal.aborted) return;
			lastActivity = Date.now();
			let event: WatchEvent;
			try {
				event = JSON.parse(line) as WatchEvent;
			} catch {
				return; // a torn or foreign line: skip it, the resourceVersion stays where it was
			}
			const obj = event.object;
			if (!obj || typeof obj !== 'object') return;
			switch (event.type) {
				case 'ADDED':
				case 'MODIFIED':
				case 'DELETED':
					if (!obj.metadata) return;
					delivered = true;
					if (obj.metadata.resourceVersion) rv = obj.metadata.resourceVersion;
					guardHandler(
						() => objectName(obj),
						() => handlers.onChange(event.type === 'DELETED' ? 'delete' : 'upsert', obj),
					);
					return;
				case 'BOOKMARK':
					delivered = true;
					if (obj.metadata?.resourceVersion) rv = obj.metadata.resourceVersion;
					return;
				case 'ERROR':
					if (obj.code === 410) ac.abort(EXPIRED);
					else ac.abort(new KubeHttpError(obj.code ?? 500, JSON.stringify(obj)));
					return;
			}
		};
		const onOpen = () => {
			lastActivity = Date.now();
			openAt = lastActivity;
			markSynced();
		};
		let openAt = 0;
		const jitter = 1 + Math.random() * 0.25;
		try {
			await streamLines(
				kc,
				path,
				{
					watch: 'true',
					labelSelector: opts.labelSelector,
					resourceVersion: rv || undefined,
					allowWatchBookmarks: 'true',
					timeoutSeconds: Math.max(1, Math.round(timeoutSeconds * jitter)),
				},
				ac.signal,
				onOpen,
				onLine,
				requestTimeoutMs,
			);
		} catch (err) {
			if (ac.signal.reason === EXPIRED || apiFailure(err)?.code === 410) {
				rv = null; // too old: relist
				return;
			}
			throw err;
		} finally {
			if (watchdog) clearTimeout(watchdog);
			watchdog = undefined;
			// A stream that opened and stayed open a while proved the connection: a drop after it
			// starts the count of failures again (the data was current), so the retries and the
			// header follow the data, not a counter that only grows.
			if (
				delivered ||
				Date.now() - openedAt >= STABLE_MS ||
				(openAt > 0 && Date.now() - openAt >= PROVEN_OPEN_MS)
			)
				attempts = 0;
		}
		if (!delivered && Date.now() - openedAt < 1000)
			throw new Error('the server ended the watch at once');
	}

	function describe(err: unknown, listing: boolean): { text: string; permanent: boolean } {
		const verb = listing ? 'list' : 'watch';
		const f = apiFailure(err);
		if (f?.code === 403)
			return {
				text: forbiddenText({ verb, resource: resource.plural, namespace: resource.namespace }),
				permanent: true,
			};
		const text = describeError(err, {
			verb,
			resource: resource.plural,
			namespace: resource.namespace,
		});
		return { text, permanent: f?.code === 401 || f?.code === 404 };
	}

	async function failed(err: unknown, listing: boolean): Promise<void> {
		attempts++;
		const { text, permanent } = describe(err, listing);
		const since =
			state.phase === 'reconnecting' || state.phase === 'failed' ? state.since : Date.now();
		setState(
			permanent
				? { phase: 'failed', since, attempts, reason: text }
				: { phase: 'reconnecting', since, attempts, lastError: text },
		);
		const base = permanent
			? backoff.max
			: Math.min(backoff.max, backoff.initial * 2 ** Math.min(attempts - 1, 30));
		await sleep(base * (0.5 + Math.random() * 0.5), stopping.signal);
	}

	async function run(): Promise<void> {
		while (!stopped) {
			let listing = rv === null;
			try {
				if (listing) await relist();
				listing = false;
				if (stopped) return;
				if (rv !== null) await watchOnce();
			} catch (err) {
				if (stopped) return;
				await failed(err, listing);
			}
		}
	}

	void run();

	return {
		stop() {
			if (stopped) return;
			stopped = true;
			current?.abort(STOPPED);
			if (watchdog) clearTimeout(watchdog);
			stopping.abort();
		},
		state: () => state,
		resourceVersion: () => rv,
	};
}
