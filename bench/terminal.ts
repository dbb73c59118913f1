/**
 * Programs in a pseudo-terminal for the benchmark: the raw bytes they write with the time
 * each chunk arrived, a streaming scanner that finds tokens in the text (escape sequences
 * stripped), and a headless xterm screen for start-up detection.
 */

import { type IPty, spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { wallMs } from './clock.js';

/** A program running in a pseudo-terminal. */
export interface PtyProcess {
	pid: number;
	/** When it was spawned (wallMs). */
	startedAt: number;
	/** Bytes written to the terminal so far. */
	bytes(): number;
	/** Listens to each chunk of output with its arrival time; returns unsubscribe. */
	onChunk(fn: (data: string, at: number) => void): () => void;
	/** Types into the terminal. */
	write(data: string): void;
	/** Resolves with the exit code. */
	exited: Promise<number>;
	/** Ends it (SIGTERM, then SIGKILL after graceMs) and waits for the exit. */
	stop(graceMs?: number): Promise<void>;
}

/** Options of a terminal. */
export interface PtyOptions {
	columns: number;
	rows: number;
	env: NodeJS.ProcessEnv;
	cwd?: string;
}

/** The environment of a program in the bench terminal: a real TERM, no CI markers (Ink draws nothing live under CI). */
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

/** Spawns a program in a pseudo-terminal. */
export function startPty(file: string, args: string[], opts: PtyOptions): PtyProcess {
	const startedAt = wallMs();
	const pty: IPty = spawn(file, args, {
		name: 'xterm-256color',
		cols: opts.columns,
		rows: opts.rows,
		cwd: opts.cwd ?? process.cwd(),
		env: opts.env as Record<string, string>,
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
	return {
		pid: pty.pid,
		startedAt,
		bytes: () => bytes,
		onChunk(fn) {
			listeners.add(fn);
			return () => listeners.delete(fn);
		},
		write: (data) => pty.write(data),
		exited,
		async stop(graceMs = 3000) {
			if (done) return;
			try {
				pty.kill('SIGTERM');
			} catch {
				// already gone
			}
			const killer = setTimeout(() => {
				try {
					pty.kill('SIGKILL');
				} catch {
					// already gone
				}
			}, graceMs);
			await exited;
			clearTimeout(killer);
		},
	};
}

/**
 * Finds tokens in a stream of terminal output: escape sequences (CSI, OSC, two-byte ESC)
 * are stripped as they stream past, and the first time each match appears is recorded.
 * A token split across chunks is still found.
 */
export class TokenScanner {
	/** Token -> when it first appeared (wallMs of the chunk). */
	readonly seen = new Map<string, number>();
	private state: 'text' | 'esc' | 'csi' | 'osc' | 'oscEsc' = 'text';
	private carry = '';

	constructor(
		private readonly pattern: RegExp,
		private readonly maxTokenLength: number,
	) {
		if (!pattern.global) throw new Error('TokenScanner needs a global pattern');
	}

	/** Feeds one chunk that arrived at `at`. */
	feed(data: string, at: number): void {
		let text = '';
		for (let i = 0; i < data.length; i++) {
			const c = data.charCodeAt(i);
			switch (this.state) {
				case 'text':
					if (c === 0x1b) this.state = 'esc';
					else if (c >= 0x20 || c === 0x0a) text += data[i];
					else text += ' ';
					break;
				case 'esc':
					this.state = c === 0x5b ? 'csi' : c === 0x5d ? 'osc' : 'text';
					break;
				case 'csi':
					if (c >= 0x40 && c <= 0x7e) this.state = 'text';
					break;
				case 'osc':
					if (c === 0x07) this.state = 'text';
					else if (c === 0x1b) this.state = 'oscEsc';
					break;
				case 'oscEsc':
					this.state = c === 0x5c ? 'text' : 'osc';
					break;
			}
		}
		if (text === '') return;
		const hay = this.carry + text;
		this.pattern.lastIndex = 0;
		for (let m = this.pattern.exec(hay); m; m = this.pattern.exec(hay)) {
			if (!this.seen.has(m[0])) this.seen.set(m[0], at);
		}
		this.carry = hay.slice(-(this.maxTokenLength - 1));
	}
}

/**
 * The screen a person would see, from a headless xterm. `check` runs after each whole
 * frame (a synchronized update ends, or a chunk without one) with the visible lines and the
 * arrival time of the chunk that completed the frame.
 */
export class ScreenReader {
	private readonly term: InstanceType<typeof xterm.Terminal>;
	private inSync = false;

	constructor(
		private readonly columns: number,
		private readonly rows: number,
	) {
		this.term = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 0 });
	}

	/** The visible lines now. */
	lines(): string[] {
		const buf = this.term.buffer.active;
		const out: string[] = [];
		for (let i = 0; i < this.rows; i++)
			out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
		return out;
	}

	/** Feeds a chunk; check is called once it is parsed, if it completed a frame. */
	feed(data: string, at: number, check: (lines: string[], at: number) => void): void {
		const begin = data.lastIndexOf('\u001b[?2026h');
		const end = data.lastIndexOf('\u001b[?2026l');
		if (begin > end) this.inSync = true;
		else if (end >= 0) this.inSync = false;
		const complete = !this.inSync;
		this.term.write(data, () => {
			if (complete) check(this.lines(), at);
		});
	}

	/** Frees the terminal. */
	dispose(): void {
		this.term.dispose();
	}

	/** The width it was made with. */
	get width(): number {
		return this.columns;
	}
}
