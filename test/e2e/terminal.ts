/**
 * A real terminal for end-to-end tests: a program in a pseudo-terminal (node-pty) whose
 * output is interpreted by a headless xterm, so tests read the screen a person would see.
 */

import { type IPty, spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';

/** A program running in a terminal. */
export interface TestTerminal {
	/** The visible screen, one string per row (trailing spaces trimmed). */
	lines(): string[];
	/** The visible screen as one string. */
	screen(): string;
	/** The cell colours of a row: for each column, the foreground colour mode and value. */
	cells(row: number): Array<{
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
	}>;
	/** Types text (keys) into the terminal. */
	write(data: string): void;
	resize(columns: number, rows: number): void;
	/** Waits until the screen satisfies the check; throws with the screen after the timeout. */
	waitFor(
		check: RegExp | string | ((screen: string) => boolean),
		timeoutMs?: number,
	): Promise<string>;
	/** Everything the program wrote, raw. */
	output(): string;
	/** Resolves with the exit code once the program ends. */
	exited: Promise<number>;
	/** Whether the alternate screen is active. */
	altScreen(): boolean;
	kill(signal?: string): void;
	dispose(): void;
	pty: IPty;
}

/** Options of a terminal. */
export interface TerminalOptions {
	columns?: number;
	rows?: number;
	env?: NodeJS.ProcessEnv;
	cwd?: string;
}

/** An environment for a program under test in a terminal: a real TERM, and no CI markers (Ink draws nothing live under CI). */
export function terminalEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_') || k === 'NO_COLOR')
			continue;
		if (k.startsWith('VITEST') || k === 'NODE_OPTIONS') continue;
		env[k] = v;
	}
	return { ...env, TERM: 'xterm-256color', COLORTERM: 'truecolor', FORCE_COLOR: '3', ...extra };
}

/** Starts a program in a terminal. */
export function startTerminal(
	file: string,
	args: string[],
	opts: TerminalOptions = {},
): TestTerminal {
	const cols = opts.columns ?? 100;
	const rows = opts.rows ?? 30;
	const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
	const pty = spawn(file, args, {
		name: 'xterm-256color',
		cols,
		rows,
		cwd: opts.cwd ?? process.cwd(),
		env: (opts.env ?? terminalEnv()) as Record<string, string>,
	});
	let raw = '';
	let pending = Promise.resolve();
	const listeners = new Set<() => void>();
	pty.onData((data) => {
		raw += data;
		pending = new Promise<void>((resolve) => term.write(data, resolve));
		void pending.then(() => {
			for (const l of [...listeners]) l();
		});
	});
	const exited = new Promise<number>((resolve) => {
		pty.onExit(({ exitCode }) => {
			void pending.then(() => {
				for (const l of [...listeners]) l();
				resolve(exitCode);
			});
		});
	});
	let done = false;
	void exited.then(() => {
		done = true;
	});
	const lines = () => {
		const buf = term.buffer.active;
		const out: string[] = [];
		for (let i = 0; i < term.rows; i++)
			out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
		return out;
	};
	const screen = () => lines().join('\n');
	return {
		lines,
		screen,
		cells(row) {
			const buf = term.buffer.active;
			const line = buf.getLine(buf.viewportY + row);
			const out = [];
			for (let x = 0; x < term.cols; x++) {
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
		},
		write(data) {
			pty.write(data);
		},
		resize(columns, r) {
			term.resize(columns, r);
			pty.resize(columns, r);
		},
		waitFor(check, timeoutMs = 30_000) {
			const test =
				typeof check === 'function'
					? check
					: typeof check === 'string'
						? (s: string) => s.includes(check)
						: (s: string) => check.test(s);
			return new Promise((resolve, reject) => {
				const attempt = () => {
					const s = screen();
					if (test(s)) {
						finish();
						resolve(s);
					} else if (done) {
						finish();
						reject(
							new Error(`the program exited before the screen showed ${String(check)}:\n${s}`),
						);
					}
				};
				const timer = setTimeout(() => {
					finish();
					reject(
						new Error(
							`timed out after ${timeoutMs} ms waiting for ${String(check)}; the screen:\n${screen()}`,
						),
					);
				}, timeoutMs);
				const finish = () => {
					clearTimeout(timer);
					listeners.delete(attempt);
				};
				listeners.add(attempt);
				attempt();
			});
		},
		output: () => raw,
		exited,
		altScreen: () => term.buffer.active.type === 'alternate',
		kill(signal) {
			if (!done) pty.kill(signal);
		},
		dispose() {
			if (!done) pty.kill('SIGKILL');
			term.dispose();
		},
		pty,
	};
}
