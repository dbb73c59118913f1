/**
 * Draws Ink's frames on the terminal line by line: each frame is compared with the one on
 * screen and only the changed lines are written, at absolute positions, inside one
 * synchronized update. Ink renders in debug mode into this writer (so it hands over whole
 * frames and never moves the cursor itself); this writer throttles the frames.
 *
 * Why not Ink's own incrementalRendering: in Ink 6.8 it moves the cursor up one line too few
 * whenever a frame ends with a newline (every frame shorter than the terminal), so each
 * update lands one line lower than the last.
 */

import { EventEmitter } from 'node:events';

const CURSOR_ONLY = /^(?:\u001b\[\?25[hl])+$/;
const BEGIN_SYNC = '\u001b[?2026h';
const END_SYNC = '\u001b[?2026l';
const HIDE_CURSOR = '\u001b[?25l';
const CLEAR_SCREEN = '\u001b[2J';

/** A stream Ink can render into (columns, rows, resize events) that draws on a real terminal. */
export class FrameWriter extends EventEmitter {
	private shown: string[] = [];
	private pending: string | null = null;
	private timer: NodeJS.Timeout | null = null;
	private paused = false;
	private readonly onResize = () => {
		this.invalidate();
		this.emit('resize');
	};
	/** How many lines were written in total (for tests and measurement). */
	linesWritten = 0;

	constructor(
		private readonly out: NodeJS.WriteStream,
		private readonly minIntervalMs = 50,
	) {
		super();
		out.on('resize', this.onResize);
	}

	/** Terminal width. */
	get columns(): number {
		return this.out.columns || 80;
	}

	/** Terminal height. */
	get rows(): number {
		return this.out.rows || 24;
	}

	/** Always a terminal. */
	get isTTY(): boolean {
		return true;
	}

	/** Takes a frame from Ink (cursor show/hide writes are ignored: the writer keeps it hidden). */
	write(chunk: string | Uint8Array, encodingOrCallback?: unknown, callback?: unknown): boolean {
		const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
		const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
		if (text !== '' && !CURSOR_ONLY.test(text)) {
			this.pending = text;
			if (!this.timer) this.flush();
		}
		if (typeof done === 'function') setImmediate(done as () => void);
		return true;
	}

	/** Writes the latest frame now (changed lines only), then waits before the next. */
	flush(): void {
		if (this.pending === null || this.paused) return;
		const frame = this.pending;
		this.pending = null;
		this.draw(frame);
		this.timer = setTimeout(() => {
			this.timer = null;
			if (this.pending !== null) this.flush();
		}, this.minIntervalMs);
		this.timer.unref?.();
	}

	/** Forgets what is on screen: the next frame is drawn in full on a cleared screen. */
	invalidate(): void {
		this.shown = [];
		this.cleared = false;
	}

	/** Stops drawing (the terminal is handed to another program) until resume(). */
	pause(): void {
		this.paused = true;
	}

	/** Draws again, in full. */
	resume(): void {
		this.paused = false;
		this.invalidate();
		this.flush();
	}

	/** Stops listening to the terminal. */
	close(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		this.out.off('resize', this.onResize);
	}

	private cleared = false;

	private draw(frame: string): void {
		const rows = this.rows;
		const lines = frame.replace(/\n$/, '').split('\n').slice(0, rows);
		let out = '';
		if (!this.cleared) {
			out += CLEAR_SCREEN;
			this.shown = [];
			this.cleared = true;
		}
		const count = Math.max(lines.length, this.shown.length);
		let written = 0;
		for (let i = 0; i < count && i < rows; i++) {
			const line = lines[i] ?? '';
			if (this.shown[i] === line && i < this.shown.length) continue;
			out += `\u001b[${i + 1};1H${line}\u001b[0m\u001b[K`;
			written++;
		}
		this.shown = lines;
		if (!out) return;
		this.linesWritten += written;
		this.out.write(
			`${BEGIN_SYNC}${HIDE_CURSOR}${out}\u001b[${Math.min(rows, lines.length + 1)};1H${END_SYNC}`,
		);
	}
}
