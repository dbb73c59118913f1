/**
 * Programs in a real terminal, for the end-to-end tests and the benchmark alike: a program in
 * a pseudo-terminal (node-pty) with the raw bytes it writes and when each chunk arrived, and
 * a headless xterm that interprets them, so a test reads the screen a person would see.
 * Nothing here imports vitest: the benchmark (compiled by tsconfig.tools.json) uses it too.
 */

import { type IPty, spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { Changes, WaitAborted, waitFor } from './wait.js';

/** Now, as epoch milliseconds with sub-millisecond resolution (comparable across processes). */
function wallMs(): number {
	return performance.timeOrigin + performance.now();
}

/** The environment of a program in a terminal: a real TERM, no CI markers (Ink draws nothing live under CI), no kubeconfig of the caller. */
export function terminalEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_') || k === 'NO_COLOR')
			continue;
		if (k.startsWith('VITEST') || k === 'NODE_OPTIONS' || k === 'KUBECONFIG') continue;
		env[k] = v;
	}
	return { ...env, TERM: 'xterm-256color', COLORTERM: 'truecolor', FORCE_COLOR: '3', ...extra };
}

/** Options of a terminal. */
export interface PtyOptions {
	columns?: number;
	rows?: number;
	/** The program's environment (default terminalEnv()). */
	env?: NodeJS.ProcessEnv;
	cwd?: string;
}

/** A program running in a pseudo-terminal, as raw bytes. */
export interface PtyProcess {
	pid: number;
	/** When it was spawned (epoch ms). */
	startedAt: number;
	/** Bytes written to the terminal so far. */
	bytes(): number;
	/** Listens to each chunk of output with its arrival time (epoch ms); returns unsubscribe. */
	onChunk(fn: (data: string, at: number) => void): () => void;
	/** Types into the terminal. */
	write(data: string): void;
	/** Resizes the terminal. */
	resize(columns: number, rows: number): void;
	/** Sends a signal unless it has exited. */
	kill(signal?: string): void;
	/** Resolves with the exit code. */
	exited: Promise<number>;
	/** Whether it has exited. */
	done(): boolean;
	/** Ends it (SIGTERM, then SIGKILL after graceMs) and waits for the exit. */
	stop(graceMs?: number): Promise<void>;
	/** The node-pty handle. */
	pty: IPty;
}

/** Spawns a program in a pseudo-terminal (100x30 unless told). */
export function startPty(file: string, args: string[], opts: PtyOptions = {}): PtyProcess {
	const startedAt = wallMs();
	const pty: IPty = spawn(file, args, {
		name: 'xterm-256color',
		cols: opts.columns ?? 100,
		rows: opts.rows ?? 30,
		cwd: opts.cwd ?? process.cwd(),
		env: (opts.env ?? terminalEnv()) as Record<string, string>,
	});
	let bytes = 0;
	const listeners = new Set<(data: string, at: number) => void>();
	pty.onData((data) => {
		const at = wallMs();
		bytes += Buffer.byteLength(data, 'utf8');
		for (const l of listeners) l(data, at);
	});
	let done = false;
	const exited = new Promise<number>((resolve) =>
		pty.onExit(({ exitCode }) => {
			done = true;
			resolve(exitCode);
		}),
	);
	const kill = (signal?: string) => {
		if (done) return;
		try {
			pty.kill(signal);
		} catch {
			// already gone
		}
	};
	return {
		pid: pty.pid,
		startedAt,
		bytes: () => bytes,
		onChunk(fn) {
			listeners.add(fn);
			return () => listeners.delete(fn);
		},
		write: (data) => pty.write(data),
		resize: (columns, rows) => pty.resize(columns, rows),
		kill,
		exited,
		done: () => done,
		async stop(graceMs = 3000) {
			if (done) return;
			kill('SIGTERM');
			const killer = setTimeout(() => kill('SIGKILL'), graceMs);
			await exited;
			clearTimeout(killer);
		},
		pty,
	};
}

/** One cell of the screen: its character and attributes. */
export interface ScreenCell {
	char: string;
	fg: number;
	bg: number;
	bold: boolean;
	dim: boolean;
	inverse: boolean;
	fgDefault: boolean;
	bgDefault: boolean;
	fgRgb: boolean;
	bgRgb: boolean;
}

/**
 * The screen a person would see, from a headless xterm fed with a program's output. A
 * frame is whole when a synchronized update ends (or a chunk comes without one).
 */
export class Screen {
	private readonly term: InstanceType<typeof xterm.Terminal>;
	private inSync = false;
	private written: Promise<void> = Promise.resolve();

	constructor(columns: number, rows: number) {
		this.term = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 0 });
	}

	/** The visible lines now (trailing spaces trimmed). */
	lines(): string[] {
		const buf = this.term.buffer.active;
		const out: string[] = [];
		for (let i = 0; i < this.term.rows; i++)
			out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
		return out;
	}

	/** The cells of a visible row. */
	cells(row: number): ScreenCell[] {
		const buf = this.term.buffer.active;
		const line = buf.getLine(buf.viewportY + row);
		const out: ScreenCell[] = [];
		for (let x = 0; x < this.term.cols; x++) {
			const c = line?.getCell(x);
			if (!c) break;
			out.push({
				char: c.getChars() || ' ',
				fg: c.getFgColor(),
				bg: c.getBgColor(),
				bold: c.isBold() !== 0,
				dim: c.isDim() !== 0,
				inverse: c.isInverse() !== 0,
				fgDefault: c.isFgDefault(),
				bgDefault: c.isBgDefault(),
				fgRgb: c.isFgRGB(),
				bgRgb: c.isBgRGB(),
			});
		}
		return out;
	}

	/** Whether the alternate screen is active. */
	altScreen(): boolean {
		return this.term.buffer.active.type === 'alternate';
	}

	/**
	 * Feeds a chunk; once it is parsed, `parsed` is called with the visible lines and `at`,
	 * if the chunk completed a frame.
	 */
	feed(data: string, at = 0, parsed?: (lines: string[], at: number) => void): void {
		const begin = data.lastIndexOf('\u001b[?2026h');
		const end = data.lastIndexOf('\u001b[?2026l');
		if (begin > end) this.inSync = true;
		else if (end >= 0) this.inSync = false;
		const complete = !this.inSync;
		this.written = new Promise<void>((resolve) =>
			this.term.write(data, () => {
				if (complete) parsed?.(this.lines(), at);
				resolve();
			}),
		);
	}

	/** Resolves once everything fed so far is parsed. */
	flushed(): Promise<void> {
		return this.written;
	}

	/** Resizes the screen. */
	resize(columns: number, rows: number): void {
		this.term.resize(columns, rows);
	}

	/** Frees the terminal. */
	dispose(): void {
		this.term.dispose();
	}

	/** The width now. */
	get width(): number {
		return this.term.cols;
	}
}

/** A program in a terminal whose screen a test reads. */
export interface TestTerminal extends PtyProcess {
	/** The visible screen, one string per row (trailing spaces trimmed). */
	lines(): string[];
	/** The visible screen as one string. */
	screen(): string;
	/** The cells of a visible row. */
	cells(row: number): ScreenCell[];
	/**
	 * Waits until the screen satisfies the check (tried after every chunk is drawn); throws
	 * with the screen after the timeout, or at once when the program exits first.
	 */
	waitFor(
		check: RegExp | string | ((screen: string) => boolean),
		timeoutMs?: number,
	): Promise<string>;
	/** Everything the program wrote, raw. */
	output(): string;
	/** Whether the alternate screen is active (as far as the screen has parsed what came). */
	altScreen(): boolean;
	/** Resolves once the screen has parsed everything written so far (it parses asynchronously). */
	settled(): Promise<void>;
	/** Kills the program (SIGKILL) if it still runs and frees the screen. */
	dispose(): void;
}

/** Starts a program in a terminal with a screen (100x30 unless told). */
export function startTerminal(file: string, args: string[], opts: PtyOptions = {}): TestTerminal {
	const columns = opts.columns ?? 100;
	const rows = opts.rows ?? 30;
	const pty = startPty(file, args, { ...opts, columns, rows });
	const screen = new Screen(columns, rows);
	const changes = new Changes();
	let raw = '';
	pty.onChunk((data, at) => {
		raw += data;
		screen.feed(data, at);
		void screen.flushed().then(() => changes.emit());
	});
	// The exit counts once the screen shows everything written before it.
	const exited = pty.exited.then(async (code) => {
		await screen.flushed();
		changes.emit();
		return code;
	});
	let over = false;
	void exited.then(() => {
		over = true;
	});
	const text = () => screen.lines().join('\n');
	return {
		...pty,
		exited,
		lines: () => screen.lines(),
		screen: text,
		cells: (row) => screen.cells(row),
		resize(c, r) {
			screen.resize(c, r);
			pty.resize(c, r);
		},
		waitFor(check, timeoutMs = 30_000) {
			const test =
				typeof check === 'function'
					? check
					: typeof check === 'string'
						? (s: string) => s.includes(check)
						: (s: string) => check.test(s);
			return waitFor(
				() => {
					const s = text();
					if (test(s)) return [s] as const;
					if (over)
						throw new WaitAborted(
							`the program exited before the screen showed ${String(check)}:\n${s}`,
						);
					return undefined;
				},
				{
					what: String(check),
					timeoutMs,
					wakeOn: changes,
					detail: () => `the screen:\n${text()}`,
				},
			).then(([s]) => s);
		},
		output: () => raw,
		altScreen: () => screen.altScreen(),
		settled: () => screen.flushed(),
		dispose() {
			pty.kill('SIGKILL');
			screen.dispose();
		},
	};
}
