/**
 * The input side of the simulated shell. With a tty it is a terminal line discipline in
 * cooked mode: it echoes what is typed, handles backspace, Ctrl-U, Ctrl-C (interrupt) and
 * Ctrl-D (end of input on an empty line), and swallows escape sequences such as arrow keys.
 * Without a tty it splits the raw input into lines and ends when stdin is closed.
 */

/** What readLine() gives back on Ctrl-C. */
export const INTERRUPTED = Symbol('interrupted');

/** A line, end of input (null), or an interrupt. */
export type InputLine = string | null | typeof INTERRUPTED;

/** Options of a ShellInput. */
export interface ShellInputOptions {
	tty: boolean;
	/** Writes the echo of typed characters (tty only). */
	echo(text: string): void;
	/** Called on Ctrl-C (tty only), to interrupt a running command. */
	interrupt(): void;
}

/** Lines typed into the shell. */
export class ShellInput {
	/** Completed lines, and null for a Ctrl-D on an empty line. */
	private readonly ready: Array<string | null> = [];
	private line = '';
	private pending = '';
	private escape: 'none' | 'esc' | 'csi' | 'ss3' = 'none';
	private ended = false;
	private waiter: ((l: InputLine) => void) | null = null;
	private readonly decoder = new TextDecoder();

	constructor(private readonly opts: ShellInputOptions) {}

	/** Takes bytes typed or piped in. */
	push(data: Uint8Array): void {
		if (this.ended) return;
		const text = this.decoder.decode(data, { stream: true });
		if (this.opts.tty) this.discipline(text);
		else this.split(text);
		this.wake();
	}

	/** Stdin was closed: the remaining text is the last line, then end of input. */
	end(): void {
		if (this.ended) return;
		if (!this.opts.tty && this.pending !== '') {
			this.ready.push(this.pending);
			this.pending = '';
		}
		this.ended = true;
		this.wake();
	}

	/** Whether stdin was closed. */
	isEnded(): boolean {
		return this.ended;
	}

	/** The next line (without its newline), null at the end of input, or INTERRUPTED. */
	readLine(): Promise<InputLine> {
		const now = this.take();
		if (now !== undefined) return Promise.resolve(now);
		return new Promise((resolve) => {
			this.waiter = resolve;
		});
	}

	/** Ends a pending read with INTERRUPTED (Ctrl-C while the shell waits for a line). */
	private interruptRead(): void {
		const w = this.waiter;
		if (!w) return;
		this.waiter = null;
		w(INTERRUPTED);
	}

	private take(): InputLine | undefined {
		if (this.ready.length > 0) return this.ready.shift() as string | null;
		if (this.ended) return null;
		return undefined;
	}

	private wake(): void {
		if (!this.waiter) return;
		const next = this.take();
		if (next === undefined) return;
		const w = this.waiter;
		this.waiter = null;
		w(next);
	}

	private split(text: string): void {
		this.pending += text;
		let nl = this.pending.indexOf('\n');
		while (nl >= 0) {
			this.ready.push(this.pending.slice(0, nl).replace(/\r$/, ''));
			this.pending = this.pending.slice(nl + 1);
			nl = this.pending.indexOf('\n');
		}
	}

	private discipline(text: string): void {
		for (const ch of text) {
			const code = ch.codePointAt(0) ?? 0;
			if (this.escape !== 'none') {
				this.swallowEscape(ch, code);
				continue;
			}
			if (ch === '\r' || ch === '\n') {
				this.opts.echo('\r\n');
				this.ready.push(this.line);
				this.line = '';
			} else if (code === 0x7f || code === 0x08) {
				if (this.line.length > 0) {
					this.line = [...this.line].slice(0, -1).join('');
					this.opts.echo('\b \b');
				}
			} else if (code === 0x03) {
				this.opts.echo('^C\r\n');
				this.line = '';
				this.ready.length = 0;
				this.opts.interrupt();
				this.interruptRead();
			} else if (code === 0x04) {
				if (this.line === '') this.ready.push(null);
			} else if (code === 0x15) {
				this.opts.echo('\b \b'.repeat([...this.line].length));
				this.line = '';
			} else if (code === 0x1b) {
				this.escape = 'esc';
			} else if (code >= 0x20) {
				this.line += ch;
				this.opts.echo(ch);
			}
			// Other control characters (Tab, Ctrl-L...) are ignored.
		}
	}

	private swallowEscape(ch: string, code: number): void {
		if (this.escape === 'esc') {
			this.escape = ch === '[' ? 'csi' : ch === 'O' ? 'ss3' : 'none';
			return;
		}
		if (this.escape === 'ss3') {
			this.escape = 'none';
			return;
		}
		// CSI: parameters and intermediates until a final byte in @..~.
		if (code >= 0x40 && code <= 0x7e) this.escape = 'none';
	}
}
