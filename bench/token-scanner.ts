/**
 * Finds the benchmark's tokens in the raw output of a program in a terminal (see
 * test/support/terminal.ts), through the escape sequences that colour and place them.
 */

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
