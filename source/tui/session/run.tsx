/**
 * runTui: the live console over a cluster. It keeps the store, the watch, the clock and the
 * reconcile loop for the whole session, and mounts the Ink app on top; the app unmounts to
 * hand the terminal to a `kubectl exec` console and mounts again from the same store.
 */

import { render } from 'ink';
import { poolWatchFeeds } from '../../engine/claim-cache.js';
import type { EngineContext } from '../../engine/context.js';
import type { NarrationLine } from '../../engine/narration.js';
import type { PacerState } from '../../engine/pacer.js';
import type { Kube } from '../../kube/config.js';
import { describeError } from '../../kube/errors.js';
import { setHandlerErrorSink } from '../../kube/handler-errors.js';
import type { PoolWatchSink } from '../../kube/pool-watch.js';
import { waitAtMost } from '../../kube/retry.js';
import type { CommandScope } from '../../pool/command-hint.js';
import { sanitize } from '../../text/sanitize.js';
import { requestQuit } from '../commands/key-handler.js';
import { totalExhaustions } from '../model/pool-history.js';
import { poolKey, poolNamespace } from '../model/pool-index.js';
import { FrameWriter } from '../render/frame-writer.js';
import { colourDisabled, createTheme } from '../render/theme.js';
import { type ConsoleStore, createConsoleStore, type NarrationControl } from '../store/store.js';
import { App } from '../views/App.js';
import { type AccessRecheck, startAccessRecheck } from './access-recheck.js';
import { startAuditFeed } from './audit-feed.js';
import { describeConsoleOutcome, drainInput, runKubectlConsole, stopInput } from './console.js';
import { type ConsoleWatch, startConsoleWatch } from './console-watch.js';
import {
	createEngineOperations,
	defaultActor,
	type EngineOperations,
} from './engine-operations.js';
import { collectOnce, keepYoungGenerationSmall, tuneHeap } from './heap-tuning.js';

/** Options of runTui (the CLI's contract). */
export interface TuiOptions {
	kube: Kube;
	/** The pool to open; none opens the pools screen. */
	pool?: string;
	/** Prefills the claim prompt and names who acts. */
	identity?: string;
	/** No key that changes the cluster. */
	readOnly?: boolean;
	noColor?: boolean;
	/** The kubeconfig file the console's kubectl is given (as passed to --kubeconfig). */
	kubeconfig?: string;
	/** Every namespace the identity can list (-A): one watch per kind across the cluster. */
	allNamespaces?: boolean;
	/** Ring the terminal bell (BEL) each time a watched pool becomes exhausted. */
	bell?: boolean;
	/** The watch, started before the console loaded (else the console starts it). */
	watch?: ConsoleWatch;
	/** What suggested commands need to run as printed (the default namespace, --context). */
	commandScope?: CommandScope;
}

/** A narration the console shows beside the table and drives (the narrated demo). */
export interface ConsoleNarration {
	/**
	 * Starts telling once the console's store is live: each change of the narration (a
	 * sentence told, one queued, pause, resume) goes to changed; a failure of the narration
	 * to failed. Returns the control the narration keys drive and the way to stop it.
	 */
	start(hooks: {
		changed(state: PacerState<NarrationLine>): void;
		failed(message: string): void;
	}): { control: NarrationControl; stop(): Promise<void> };
}

/** Options of a console session: runTui's, plus what the demo and the tests add. */
export interface ConsoleSessionOptions extends TuiOptions {
	/** A line for the header (the demo shows where its kubeconfig is). */
	note?: string;
	/** Start with the live reconcile loop on. */
	loop?: boolean;
	loopIntervalMs?: number;
	/** Overrides of the engine context. */
	engine?: Partial<Omit<EngineContext, 'kube'>>;
	stdin?: NodeJS.ReadStream;
	stdout?: NodeJS.WriteStream;
	/** A narration shown in a pane beside the table (Space pauses it, n tells the next). */
	narration?: ConsoleNarration;
	/** Called once the store is live; the returned function is called when the session ends. */
	onStart?(store: ConsoleStore, ops: EngineOperations): (() => void | Promise<void>) | undefined;
}

/** The shortest time between two frames drawn (ms): short, so it never adds to the batch wait. */
const FRAME_INTERVAL_MS = 16;

const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[2J\u001b[H\u001b[?25l';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

/** The longest the audit feed and the access reviews wait for the first lists (ms). */
const SECONDARY_START_MS = 1500;
/** How long after the first lists they start, so the complete table is drawn first (ms). */
const AFTER_SYNC_MS = 100;

/**
 * The longest the console waits for the watch's first lists before its first frame (ms).
 * Within it, the first frame is the whole picture: the lists that came are derived once, and
 * the first (cold) render does not hold up the pages still coming, as a frame drawn in
 * between would. A slower cluster gets its first frame then, with what it sent so far.
 */
const FIRST_PICTURE_WAIT_MS = 1000;

/** Waits until every kind is listed, a list failed, or FIRST_PICTURE_WAIT_MS passed. */
function firstPicture(started: ConsoleWatch): Promise<void> {
	return waitAtMost(started.firstLists, FIRST_PICTURE_WAIT_MS);
}

/** Calls fn once the watch is synced (at once if it is); returns the way to stop waiting. */
function whenSynced(store: ConsoleStore, fn: () => void): () => void {
	if (store.getState().connection.phase === 'synced') {
		fn();
		return () => {};
	}
	const unsubscribe = store.subscribe((s) => {
		if (s.connection.phase !== 'synced') return;
		unsubscribe();
		fn();
	});
	return unsubscribe;
}

/** How long an abandoned operation may take to hand its member back before ctpool exits (ms). */
const ABANDON_SETTLE_MS = 15_000;

/** How long the writes left after an answer (a claim's display copy, Events) may take before ctpool exits (ms). */
const FLUSH_WRITES_MS = 3_000;

/** Opens the live console; resolves with the exit code once the user quits. */
export function runTui(opts: TuiOptions): Promise<number> {
	return runConsoleSession(opts);
}

/** Runs a console session (runTui and the demo). */
export async function runConsoleSession(opts: ConsoleSessionOptions): Promise<number> {
	const stdin = opts.stdin ?? process.stdin;
	const stdout = opts.stdout ?? process.stdout;
	const refused = await refuseToStart(opts, stdin, stdout);
	if (refused !== null) return refused;
	keepYoungGenerationSmall();
	const actor = opts.identity || defaultActor();
	const started = opts.watch ?? startConsoleWatch(opts.kube, opts.allNamespaces === true);
	await firstPicture(started);
	const store = sessionStore(opts, started, actor);
	const theme = createTheme(colourDisabled(opts.noColor));
	// each pool's objects as the console's watch has them, for its claims (poolWatchFeeds)
	const claimFeeds = poolWatchFeeds();
	const ops = createEngineOperations({
		store,
		kube: opts.kube,
		namespace: opts.kube.namespace,
		actor,
		engine: { ...(opts.commandScope ? { commandScope: opts.commandScope } : {}), ...opts.engine },
		...(opts.loopIntervalMs ? { loopIntervalMs: opts.loopIntervalMs } : {}),
		claimFeed: claimFeeds.feed,
	});
	feedFromWatch(store, started, claimFeeds.sink);
	const background = startBackground(store, opts);
	const startPool = store.getState().pool;
	if (opts.loop && startPool && !opts.readOnly) ops.loop.start(startPool);
	const unsubscribeBell = opts.bell ? ringOnExhaustion(store, stdout) : () => {};
	const stopNarration = opts.narration ? narrate(store, opts.narration) : null;
	const stopExtra = opts.onStart?.(store, ops);

	const writer = new FrameWriter(stdout, FRAME_INTERVAL_MS);
	const restoreConsole = patchConsole(store);
	const term = altScreen(stdin, stdout);
	let unmount: (() => void) | null = null;
	// SIGTERM and SIGHUP (an SSH connection that drops) are a q: the operation in flight
	// finishes first; a second one abandons it.
	const onSignal = () => requestQuit(store, () => unmount?.());
	process.on('SIGTERM', onSignal);
	process.on('SIGHUP', onSignal);

	let code = 0;
	try {
		await showConsole(store, ops, theme, writer, opts, term, (u) => {
			unmount = u;
		});
	} catch (err) {
		code = 1;
		term.leaveScreen();
		process.stderr.write(`ctpool: the console stopped: ${describeError(err)}\n`);
	} finally {
		writer.close();
		term.leaveScreen();
		restoreConsole();
		term.dispose();
		process.off('SIGTERM', onSignal);
		process.off('SIGHUP', onSignal);
		background.stop();
		unsubscribeBell();
		await endOperations(store, ops);
		started.watch.stop();
		background.stopSecondary();
		try {
			await stopExtra?.();
			await stopNarration?.();
		} catch {
			// the session ends either way
		}
	}
	return code;
}

/** Starts a narration into the store (its pane and keys); returns the way to stop it. */
function narrate(store: ConsoleStore, narration: ConsoleNarration): () => Promise<void> {
	// the store narrates before the first change arrives
	let ready = false;
	const early: PacerState<NarrationLine>[] = [];
	const { control, stop } = narration.start({
		changed(state) {
			if (ready) store.getState().narrationChanged(state);
			else early.push(state);
		},
		failed(message) {
			store.getState().logEvent({
				time: Date.now(),
				actor: 'narrator',
				pool: store.getState().pool ?? '',
				action: 'narrate',
				outcome: 'error',
				message,
			});
			store.getState().setStatus(message, 'error');
		},
	});
	store.getState().startNarration(control);
	ready = true;
	for (const state of early) store.getState().narrationChanged(state);
	return stop;
}

/**
 * Why the session cannot start, as its exit code (null: it can): no terminal, or (-A) the
 * identity cannot list across namespaces (refused before the screen opens: a console of
 * 403s helps nobody). A watch started before is stopped.
 */
async function refuseToStart(
	opts: ConsoleSessionOptions,
	stdin: NodeJS.ReadStream,
	stdout: NodeJS.WriteStream,
): Promise<number | null> {
	if (!stdin.isTTY || !stdout.isTTY) {
		opts.watch?.watch.stop();
		process.stderr.write(
			'ctpool: the live console needs a terminal (stdin and stdout must be a TTY); for plain output use ctpool status\n',
		);
		return 2;
	}
	if (opts.allNamespaces !== true) return null;
	const { checkAllNamespaces } = await import('../../engine/list-definitions.js');
	try {
		await checkAllNamespaces(opts.kube);
		return null;
	} catch (err) {
		opts.watch?.watch.stop();
		process.stderr.write(`ctpool: ${describeError(err)}\n`);
		return 1;
	}
}

/** The session's store: its session fixed from the options, the watch's OnScreen its own. */
function sessionStore(
	opts: ConsoleSessionOptions,
	started: ConsoleWatch,
	actor: string,
): ConsoleStore {
	const { kube } = opts;
	const allNamespaces = opts.allNamespaces === true;
	return createConsoleStore({
		onScreen: started.onScreen,
		session: {
			namespace: kube.namespace,
			context: kube.contextName,
			server: kube.server,
			identity: opts.identity ?? '',
			actor,
			readOnly: opts.readOnly ?? false,
			note: opts.note ?? '',
			allNamespaces,
			...(opts.commandScope ? { commandScope: opts.commandScope } : {}),
		},
		pool: opts.pool ? poolKey(allNamespaces ? kube.namespace : null, opts.pool) : null,
		...(opts.loopIntervalMs ? { loopIntervalMs: opts.loopIntervalMs } : {}),
	});
}

/** Hands the watch's batches and connection to the store; a watch error goes to the event log. */
function feedFromWatch(store: ConsoleStore, started: ConsoleWatch, claims: PoolWatchSink): void {
	/** A watch error in the console's event log (never on the terminal under the frame). */
	const logWatchError = (message: string) =>
		store.getState().logEvent({
			time: Date.now(),
			actor: 'console',
			pool: store.getState().pool ?? '',
			action: 'watch',
			outcome: 'error',
			message,
		});
	// an object a watch handler chokes on is told in one line, and the watch goes on
	setHandlerErrorSink((line) => logWatchError(line.replace(/^ctpool: /, '')));
	started.attach({
		onBatch: (changes) => {
			try {
				claims.onBatch(changes);
			} catch (err) {
				// the claims then read the API, as without a feed
				logWatchError(`a watch change could not be kept for claims: ${describeError(err)}`);
			}
			try {
				store.getState().applyBatch(changes);
			} catch (err) {
				// a change the console cannot show must not stop the watch
				logWatchError(`a watch change could not be shown: ${describeError(err)}`);
			}
		},
		onConnection: (overall, byKind) => {
			claims.onConnection(overall, byKind);
			store.getState().setConnection(overall, byKind);
		},
	});
}

/** What runs beside the screen: the clock, and what waits for the first lists. */
interface Background {
	/** Stops the clock and the waits. */
	stop(): void;
	/** Stops the audit feed and the access reviews. */
	stopSecondary(): void;
}

/**
 * Starts the clock; what the first frame does not need waits until the pool objects are
 * listed (or SECONDARY_START_MS at most), so that it never slows their lists: who did what
 * (the audit screen) and refused claims (the headers), and what the identity may not do.
 */
function startBackground(store: ConsoleStore, opts: ConsoleSessionOptions): Background {
	const { kube } = opts;
	const namespace = kube.namespace;
	const allNamespaces = opts.allNamespaces === true;
	const clock = setInterval(() => store.getState().tick(Date.now()), 1000);
	const secondary: {
		auditFeed: ReturnType<typeof startAuditFeed> | null;
		access: AccessRecheck | null;
	} = { auditFeed: null, access: null };
	let started = false;
	const startSecondary = () => {
		if (started) return;
		started = true;
		// -A: who did what, and the refused claims, in every namespace the identity can list
		secondary.auditFeed = startAuditFeed(kube, allNamespaces ? undefined : namespace, store);
		// across namespaces the rights differ per namespace: the cluster's answer to each act
		// says; a refusal shown is asked again until the right is back
		const keys = !opts.readOnly && !allNamespaces;
		secondary.access = startAccessRecheck({ store, kube, namespace, keys });
		if (keys) void secondary.access.check();
	};
	let secondaryTimer = setTimeout(startSecondary, SECONDARY_START_MS);
	// Once every kind is listed, the heap is kept close to what it holds (heap-tuning.ts), and
	// one full collection sets its limit from the live heap. Not before: while the first lists
	// arrive the heap only grows, and a tight limit would collect it again and again. The
	// secondary requests start a moment later, once the frame of the complete table is drawn:
	// their TLS handshakes and access reviews would otherwise delay it.
	const unsubscribeSynced = whenSynced(store, () => {
		tuneHeap();
		clearTimeout(secondaryTimer);
		secondaryTimer = setTimeout(startSecondary, AFTER_SYNC_MS);
		setTimeout(collectOnce, 1000).unref();
	});
	return {
		stop() {
			clearInterval(clock);
			clearTimeout(secondaryTimer);
			unsubscribeSynced();
		},
		stopSecondary() {
			secondary.auditFeed?.stop();
			secondary.access?.stop();
		},
	};
}

/** --bell: one BEL each time a watched pool becomes exhausted; returns the way to stop. */
function ringOnExhaustion(store: ConsoleStore, stdout: NodeJS.WriteStream): () => void {
	let rung = 0;
	return store.subscribe((s, prev) => {
		if (s.history === prev.history) return;
		const n = totalExhaustions(s.history);
		if (n > rung) stdout.write('\u0007');
		rung = n;
	});
}

/** The terminal's alternate screen, entered and left; a crash or kill still gives the terminal back. */
interface AltScreen {
	stdin: NodeJS.ReadStream;
	stdout: NodeJS.WriteStream;
	enterScreen(): void;
	leaveScreen(): void;
	/** Stops watching for the process's exit. */
	dispose(): void;
}

function altScreen(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): AltScreen {
	let inAltScreen = false;
	// a crash or kill still gives the terminal back
	const onExit = () => {
		if (inAltScreen) stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
		if (stdin.isTTY) stdin.setRawMode?.(false);
	};
	process.on('exit', onExit);
	return {
		stdin,
		stdout,
		enterScreen() {
			stdout.write(ENTER_ALT_SCREEN);
			inAltScreen = true;
		},
		leaveScreen() {
			if (!inAltScreen) return;
			stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
			inAltScreen = false;
		},
		dispose() {
			process.off('exit', onExit);
		},
	};
}

/**
 * Mounts the app until the user quits; when it asks for a member's console, the app unmounts,
 * the terminal goes to `kubectl exec`, and the app mounts again from the same store.
 */
async function showConsole(
	store: ConsoleStore,
	ops: EngineOperations,
	theme: ReturnType<typeof createTheme>,
	writer: FrameWriter,
	opts: ConsoleSessionOptions,
	term: AltScreen,
	setUnmount: (unmount: (() => void) | null) => void,
): Promise<void> {
	const { stdin } = term;
	term.enterScreen();
	for (;;) {
		store.getState().setRequest(null);
		// Raw mode before the first frame: Ink sets it in an effect that runs after the frame
		// is drawn, and a key pressed in between (typed ahead while the console loads) would
		// be echoed by the terminal, an Enter scrolling the whole screen up one line.
		stdin.setRawMode?.(true);
		writer.resume();
		// debug: Ink hands whole frames to the writer, which draws the changed lines only
		const instance = render(<App store={store} ops={ops} theme={theme} />, {
			stdin,
			stdout: writer as unknown as NodeJS.WriteStream,
			stderr: process.stderr,
			exitOnCtrlC: false,
			patchConsole: false,
			debug: true,
		});
		setUnmount(() => instance.unmount());
		await instance.waitUntilExit();
		setUnmount(null);
		const request = store.getState().request;
		if (request?.kind !== 'console') break;
		writer.pause();
		await handOver(store, request.member, opts, term);
	}
}

/** Stops the operations; one abandoned in flight may hand its member back first. */
async function endOperations(store: ConsoleStore, ops: EngineOperations): Promise<void> {
	const abandoned = store.getState().busy;
	ops.close();
	if (abandoned) {
		// Abandoned: its waits are aborted; let it hand the member back to reconcile.
		process.stderr.write(
			`ctpool: abandoning ${sanitize(abandoned.label)}; handing the member back to the next reconcile\n`,
		);
		await ops.settle(ABANDON_SETTLE_MS);
	}
	// a claim's display copy and the Events written after their answers: a moment to finish
	await ops.flushWrites(FLUSH_WRITES_MS);
}

/** Sends console output (from any library) to the activity log instead of over the screen. */
function patchConsole(store: ConsoleStore): () => void {
	const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
	const saved = methods.map((m) => console[m]);
	for (const m of methods)
		console[m] = (...args: unknown[]) => {
			store.getState().logEvent({
				time: Date.now(),
				actor: 'console',
				pool: store.getState().pool ?? '',
				action: m,
				outcome: m === 'error' || m === 'warn' ? 'error' : 'info',
				message: args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '),
			});
		};
	return () => {
		methods.forEach((m, i) => {
			console[m] = saved[i] as (typeof console)[typeof m];
		});
	};
}

/** Gives the terminal to `kubectl exec -it` on a member and takes it back. */
async function handOver(
	store: ConsoleStore,
	member: string,
	opts: ConsoleSessionOptions,
	term: {
		stdin: NodeJS.ReadStream;
		stdout: NodeJS.WriteStream;
		leaveScreen(): void;
		enterScreen(): void;
	},
): Promise<void> {
	const s = store.getState();
	const pool = s.pool ? s.pools[s.pool] : undefined;
	const privileged = pool?.spec?.privileged ?? false;
	await stopInput(term.stdin);
	term.leaveScreen();
	term.stdout.write(
		`\u001b[2J\u001b[Hctpool: console on ${member} (kubectl exec${privileged ? ', chroot into its root file system' : ''}); exit or Ctrl-D returns to ctpool\r\n`,
	);
	const outcome = await runKubectlConsole(
		{
			member,
			namespace: s.pool ? poolNamespace(s.pool, opts.kube.namespace) : opts.kube.namespace,
			context: opts.kube.contextName,
			...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
			privileged,
		},
		{ stdin: term.stdin, stdout: term.stdout },
	);
	drainInput(term.stdin);
	term.enterScreen();
	const { ok, message } = describeConsoleOutcome(member, outcome);
	const after = store.getState();
	after.logEvent({
		time: Date.now(),
		actor: after.session.actor,
		pool: after.pool ?? '',
		member,
		action: 'console',
		outcome: ok ? 'info' : 'error',
		message,
	});
	after.setStatus(message, ok ? 'info' : 'error');
}
