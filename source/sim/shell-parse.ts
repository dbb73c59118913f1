/**
 * The command-line grammar of the simulated shell: words with quotes, escapes and `$VAR`
 * expansions, `;`, `&&`, `||`, pipes, and redirections (`>`, `>>`, `<`, `2>`, `2>&1`).
 * Expansion happens when a command runs, so `false; echo $?` prints 1.
 */

/** A piece of a word: literal text, or a variable expanded when the command runs. */
export type WordPart = { lit: string } | { variable: string };

/** A word before expansion. */
export type Word = WordPart[];

/** A redirection of a command's input or output. */
export interface Redirect {
	/** 0 stdin, 1 stdout, 2 stderr. */
	fd: 0 | 1 | 2;
	/** `>` replaces, `>>` appends, `<` reads, `dup` points at another fd (`2>&1`). */
	op: '>' | '>>' | '<' | 'dup';
	target: Word;
	/** For dup: the fd it becomes. */
	toFd?: 1 | 2;
}

/** One simple command: assignments, words and redirections. */
export interface SimpleCommand {
	assigns: Array<{ name: string; value: Word }>;
	words: Word[];
	redirects: Redirect[];
}

/** Commands joined by pipes. */
export type Pipeline = SimpleCommand[];

/** A list of pipelines, each run after the previous one by its connector. */
export interface CommandList {
	items: Array<{ pipeline: Pipeline; connector: ';' | '&&' | '||' }>;
}

/** A syntax error, worded as the shell reports it. */
export class ShellSyntaxError extends Error {}

type Token =
	| { kind: 'word'; word: Word; raw: string }
	| { kind: 'op'; op: ';' | '&&' | '||' | '|' | '&' }
	| { kind: 'redir'; fd: 0 | 1 | 2; op: '>' | '>>' | '<' | 'dup'; toFd?: 1 | 2 };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function pushLit(word: Word, text: string): void {
	const last = word[word.length - 1];
	if (last && 'lit' in last) last.lit += text;
	else word.push({ lit: text });
}

function readVariable(line: string, i: number, word: Word): number {
	// line[i] === '$'
	const next = line[i + 1];
	if (next === undefined) {
		pushLit(word, '$');
		return i + 1;
	}
	if (next === '{') {
		const close = line.indexOf('}', i + 2);
		if (close < 0) throw new ShellSyntaxError('syntax error: missing }');
		word.push({ variable: line.slice(i + 2, close) });
		return close + 1;
	}
	if ('?$#!0123456789'.includes(next)) {
		word.push({ variable: next });
		return i + 2;
	}
	const m = NAME.exec(line.slice(i + 1));
	if (!m) {
		pushLit(word, '$');
		return i + 1;
	}
	word.push({ variable: m[0] });
	return i + 1 + m[0].length;
}

function tokenize(line: string): Token[] {
	const tokens: Token[] = [];
	let word: Word | null = null;
	let raw = '';
	const endWord = () => {
		if (word) tokens.push({ kind: 'word', word, raw });
		word = null;
		raw = '';
	};
	const cur = (): Word => {
		word ??= [];
		return word;
	};
	let i = 0;
	while (i < line.length) {
		const ch = line[i]!;
		if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
			endWord();
			i++;
			continue;
		}
		if (ch === '#' && word === null) break;
		if (ch === "'") {
			const close = line.indexOf("'", i + 1);
			if (close < 0) throw new ShellSyntaxError('syntax error: unterminated quoted string');
			pushLit(cur(), line.slice(i + 1, close));
			raw += line.slice(i, close + 1);
			i = close + 1;
			continue;
		}
		if (ch === '"') {
			const w = cur();
			let j = i + 1;
			w.push({ lit: '' });
			for (;;) {
				const c = line[j];
				if (c === undefined) throw new ShellSyntaxError('syntax error: unterminated quoted string');
				if (c === '"') break;
				if (c === '\\' && j + 1 < line.length && '"\\$`\n'.includes(line[j + 1]!)) {
					pushLit(w, line[j + 1]!);
					j += 2;
					continue;
				}
				if (c === '$') {
					j = readVariable(line, j, w);
					continue;
				}
				pushLit(w, c);
				j++;
			}
			raw += line.slice(i, j + 1);
			i = j + 1;
			continue;
		}
		if (ch === '\\') {
			const next = line[i + 1];
			if (next !== undefined && next !== '\n') pushLit(cur(), next);
			raw += line.slice(i, i + 2);
			i += 2;
			continue;
		}
		if (ch === '$') {
			i = readVariable(line, i, cur());
			raw += '$';
			continue;
		}
		if (ch === ';' || ch === '|' || ch === '&') {
			endWord();
			const two = line.slice(i, i + 2);
			if (two === '&&' || two === '||') {
				tokens.push({ kind: 'op', op: two });
				i += 2;
			} else if (two === '&>') {
				tokens.push({ kind: 'redir', fd: 1, op: '>' });
				tokens.push({ kind: 'redir', fd: 2, op: 'dup', toFd: 1 });
				i += 2;
			} else {
				tokens.push({ kind: 'op', op: ch });
				i++;
			}
			continue;
		}
		if (ch === '>' || ch === '<') {
			// A word of one digit right before the operator is the fd (`2>`).
			let fd: 0 | 1 | 2 = ch === '<' ? 0 : 1;
			const w = word as Word | null;
			if (w && raw.length === 1 && (raw === '1' || raw === '2' || raw === '0')) {
				fd = Number(raw) as 0 | 1 | 2;
				word = null;
				raw = '';
			}
			endWord();
			if (ch === '<') {
				tokens.push({ kind: 'redir', fd, op: '<' });
				i++;
			} else if (line[i + 1] === '>') {
				tokens.push({ kind: 'redir', fd, op: '>>' });
				i += 2;
			} else if (line[i + 1] === '&' && (line[i + 2] === '1' || line[i + 2] === '2')) {
				tokens.push({ kind: 'redir', fd, op: 'dup', toFd: Number(line[i + 2]) as 1 | 2 });
				i += 3;
			} else {
				tokens.push({ kind: 'redir', fd, op: '>' });
				i++;
			}
			continue;
		}
		pushLit(cur(), ch);
		raw += ch;
		i++;
	}
	endWord();
	return tokens;
}

/** Parses one command line; throws ShellSyntaxError with the shell's wording. */
export function parseCommandLine(line: string): CommandList {
	const tokens = tokenize(line);
	const list: CommandList = { items: [] };
	let pipeline: Pipeline = [];
	let cmd: SimpleCommand = { assigns: [], words: [], redirects: [] };
	let connector: ';' | '&&' | '||' = ';';
	const unexpected = (what: string) => new ShellSyntaxError(`syntax error: unexpected "${what}"`);
	const cmdEmpty = () =>
		cmd.words.length === 0 && cmd.assigns.length === 0 && cmd.redirects.length === 0;
	for (let i = 0; i < tokens.length; i++) {
		const t = tokens[i]!;
		if (t.kind === 'word') {
			const m = cmd.words.length === 0 ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(t.raw) : null;
			if (m) {
				// NAME=value: strip the `NAME=` prefix from the word's first literal.
				const value = structuredClone(t.word);
				const first = value[0];
				if (first && 'lit' in first) first.lit = first.lit.slice(m[0].length);
				cmd.assigns.push({ name: m[1]!, value });
			} else cmd.words.push(t.word);
			continue;
		}
		if (t.kind === 'redir') {
			if (t.op === 'dup') {
				cmd.redirects.push({ fd: t.fd, op: 'dup', target: [], toFd: t.toFd });
				continue;
			}
			const next = tokens[i + 1];
			if (next?.kind !== 'word') throw unexpected(next?.kind === 'op' ? next.op : 'newline');
			cmd.redirects.push({ fd: t.fd, op: t.op, target: next.word });
			i++;
			continue;
		}
		if (t.op === '|') {
			if (cmdEmpty()) throw unexpected('|');
			pipeline.push(cmd);
			cmd = { assigns: [], words: [], redirects: [] };
			continue;
		}
		// ; & && ||
		if (cmdEmpty()) {
			if (pipeline.length === 0 && (t.op === ';' || t.op === '&') && list.items.length === 0) {
				throw unexpected(t.op);
			}
			throw unexpected(t.op);
		}
		pipeline.push(cmd);
		list.items.push({ pipeline, connector });
		pipeline = [];
		cmd = { assigns: [], words: [], redirects: [] };
		connector = t.op === '&&' || t.op === '||' ? t.op : ';';
	}
	if (!cmdEmpty()) {
		pipeline.push(cmd);
		list.items.push({ pipeline, connector });
	} else if (pipeline.length > 0 || connector !== ';') {
		throw unexpected('end of file');
	}
	return list;
}

/** Expands a word with the shell's variables. */
export function expandWord(word: Word, lookup: (name: string) => string): string {
	return word.map((p) => ('lit' in p ? p.lit : lookup(p.variable))).join('');
}

/** Quotes an argument for display (`sh -c 'exit 3'`). */
export function quoteArg(arg: string): string {
	return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
