/**
 * The simulated shell behind `kubectl exec`: a small busybox-like sh that knows its pod
 * (hostname, whoami, ls and cat over the pod's tiny file tree, echo, env, uname, id, df,
 * sleep, exit with a code, `sh -c`, `chroot DIR cmd`, pipes, `;`, `&&`, `||`, redirections)
 * and, with a tty, a prompt (`desk-1:/# `) and line editing. Nested shells (`bash`, `sh`)
 * are the same shell; `exit` leaves the innermost one.
 */

import { BIN_PROGRAMS, FsError, PodFiles } from './shell-files.js';
import { INTERRUPTED, ShellInput } from './shell-input.js';
import {
	type CommandList,
	expandWord,
	type Pipeline,
	parseCommandLine,
	ShellSyntaxError,
	type SimpleCommand,
} from './shell-parse.js';

/** What the shell knows about its pod. */
export interface ShellPod {
	name: string;
	namespace: string;
	uid: string;
	nodeName?: string;
	podIP?: string;
	image?: string;
	/** The container's environment (literal values). */
	env: Record<string, string>;
	/** Mount paths of the container's volumes. */
	mounts: string[];
	/** The size of the claim behind /data (`5Gi`). */
	claimSize?: string;
}

/** Options of a shell session. */
export interface ShellOptions {
	pod: ShellPod;
	files: PodFiles;
	tty: boolean;
	/** Scales `sleep`. */
	timeScale: number;
	/** Output (already with \r\n line ends when tty). */
	stdout(text: string): void;
	/** Error output; with a tty the caller sends it to stdout. */
	stderr(text: string): void;
}

/** The shell's exit, carrying its status. */
class ExitSignal {
	constructor(readonly code: number) {}
}

interface Io {
	out(text: string): void;
	err(text: string): void;
	/** Piped or redirected input; null reads from the session's stdin. */
	stdin: string | null;
	signal: AbortSignal;
	/** Variables given to this command only (`A=1 env`). */
	env?: Record<string, string>;
}

type Program = (args: string[], io: Io) => number | Promise<number>;

const BIN_DIRS = new Set(['/bin', '/usr/bin', '/sbin', '/usr/sbin', '/usr/local/bin']);
const SHELL_BUILTINS = new Set(['cd', 'exit', 'exec', 'export', 'unset', ':', '.', 'source']);
const KERNEL = '6.8.0-51-generic';
const BOOT = Date.UTC(2026, 10, 29, 10, 0, 0);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function pad2(n: number): string {
	return String(n).padStart(2, '0');
}

/** `Sat Nov 29 10:00:00 UTC 2026`, as date prints it. */
function dateString(ms: number): string {
	const d = new Date(ms);
	return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** Sizes as `df -h` prints them (`5.0G`, `24.0K`). */
function human(bytes: number): string {
	if (bytes === 0) return '0';
	const units = ['', 'K', 'M', 'G', 'T'];
	let v = bytes;
	let u = 0;
	while (v >= 1024 && u < units.length - 1) {
		v /= 1024;
		u++;
	}
	return u === 0 ? String(v) : `${v.toFixed(1)}${units[u]}`;
}

function quantityBytes(q: string | undefined, fallback: number): number {
	const m = q ? /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(q) : null;
	if (!m) return fallback;
	const f: Record<string, number> = {
		Ki: 2 ** 10,
		Mi: 2 ** 20,
		Gi: 2 ** 30,
		Ti: 2 ** 40,
		K: 1e3,
		M: 1e6,
		G: 1e9,
		T: 1e12,
	};
	return Math.round(Number(m[1]) * (m[2] ? (f[m[2]] ?? 1) : 1));
}

/** One shell session in a pod. */
export class SimShell {
	private cwd = '/';
	private oldPwd = '/';
	private status = 0;
	private cols = 80;
	private rows = 24;
	private readonly vars = new Map<string, string>();
	private readonly input: ShellInput;
	private readonly session = new AbortController();
	/** Ctrl-C interrupts the innermost running command line. */
	private readonly interrupts: AbortController[] = [];
	private readonly programs: Record<string, Program>;
	/** The file tree as this shell sees it: the pod's, or the new root of a chroot. */
	private fs: PodFiles;

	constructor(private readonly opts: ShellOptions) {
		const pod = opts.pod;
		this.fs = opts.files;
		this.input = new ShellInput({
			tty: opts.tty,
			echo: (t) => this.opts.stdout(t),
			interrupt: () => this.interrupts[this.interrupts.length - 1]?.abort(),
		});
		const env: Record<string, string> = {
			PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
			HOSTNAME: pod.name,
			HOME: '/root',
			PWD: '/',
			SHELL: '/bin/sh',
			USER: 'root',
			KUBERNETES_SERVICE_HOST: '10.96.0.1',
			KUBERNETES_SERVICE_PORT: '443',
			KUBERNETES_SERVICE_PORT_HTTPS: '443',
			KUBERNETES_PORT: 'tcp://10.96.0.1:443',
			...(opts.tty ? { TERM: 'xterm' } : {}),
			...pod.env,
		};
		for (const [k, v] of Object.entries(env)) this.vars.set(k, v);
		this.programs = this.makePrograms();
	}

	/** Bytes from the client's stdin. */
	write(data: Uint8Array): void {
		this.input.push(data);
	}

	/** The client closed stdin. */
	endInput(): void {
		this.input.end();
	}

	/** The terminal's new size. */
	resize(cols: number, rows: number): void {
		if (cols > 0) this.cols = Math.floor(cols);
		if (rows > 0) this.rows = Math.floor(rows);
		this.vars.set('COLUMNS', String(this.cols));
		this.vars.set('LINES', String(this.rows));
	}

	/** The session is gone: stop whatever runs. */
	abort(): void {
		this.session.abort();
		this.input.end();
	}

	/** Whether the container has a program of that name or path (what exec can start). */
	canStart(program: string): boolean {
		return this.resolveProgram(program, false) !== null;
	}

	/** Runs a command as exec starts it (no shell around it); resolves with its exit status. */
	async run(argv: string[]): Promise<number> {
		const io = this.baseIo();
		try {
			return await this.withInterrupt(io, (sub) => this.exec(argv, sub));
		} catch (err) {
			if (err instanceof ExitSignal) return err.code;
			throw err;
		}
	}

	private baseIo(): Io {
		const tty = this.opts.tty;
		const fix = (t: string) => (tty ? t.replace(/\r?\n/g, '\r\n') : t);
		return {
			out: (t) => this.opts.stdout(fix(t)),
			err: (t) => this.opts.stderr(fix(t)),
			stdin: null,
			signal: this.session.signal,
		};
	}

	private async withInterrupt(io: Io, fn: (io: Io) => Promise<number>): Promise<number> {
		const ctl = new AbortController();
		this.interrupts.push(ctl);
		try {
			return await fn({ ...io, signal: AbortSignal.any([ctl.signal, this.session.signal]) });
		} finally {
			this.interrupts.splice(this.interrupts.indexOf(ctl), 1);
		}
	}

	private prompt(): string {
		return `${this.opts.pod.name}:${this.cwd}# `;
	}

	/** Reads and runs lines until exit or end of input. */
	private async interactive(io: Io): Promise<number> {
		for (;;) {
			if (this.session.signal.aborted) return 129;
			if (this.opts.tty) io.out(this.prompt());
			const line = await this.input.readLine();
			if (line === INTERRUPTED) {
				this.status = 130;
				continue;
			}
			if (line === null) {
				if (this.opts.tty) {
					io.out('exit\n');
					return 0;
				}
				return this.status;
			}
			try {
				await this.withInterrupt(io, (sub) => this.runLine(line, sub));
			} catch (err) {
				if (err instanceof ExitSignal) return err.code;
				throw err;
			}
		}
	}

	/** Runs a script (`sh -c`); `exit` ends it with its status. */
	private async script(text: string, io: Io): Promise<number> {
		try {
			for (const line of text.split('\n')) {
				await this.runLine(line, io);
				if (io.signal.aborted) break;
			}
			return this.status;
		} catch (err) {
			if (err instanceof ExitSignal) return err.code;
			throw err;
		}
	}

	private async runLine(line: string, io: Io): Promise<number> {
		let list: CommandList;
		try {
			list = parseCommandLine(line);
		} catch (err) {
			if (!(err instanceof ShellSyntaxError)) throw err;
			io.err(`sh: ${err.message}\n`);
			this.status = 2;
			return 2;
		}
		for (const item of list.items) {
			if (io.signal.aborted) break;
			if (item.connector === '&&' && this.status !== 0) continue;
			if (item.connector === '||' && this.status === 0) continue;
			this.status = await this.pipeline(item.pipeline, io);
		}
		if (io.signal.aborted && !this.session.signal.aborted) this.status = 130;
		return this.status;
	}

	private async pipeline(cmds: Pipeline, io: Io): Promise<number> {
		let stdin = io.stdin;
		let status = 0;
		for (let i = 0; i < cmds.length; i++) {
			const last = i === cmds.length - 1;
			if (last) {
				status = await this.simple(cmds[i]!, { ...io, stdin });
				break;
			}
			let buf = '';
			status = await this.simple(cmds[i]!, { ...io, stdin, out: (t) => (buf += t) });
			stdin = buf;
		}
		return status;
	}

	private variable(name: string): string {
		switch (name) {
			case '?':
				return String(this.status);
			case '$':
				return '1';
			case '#':
				return '0';
			case '0':
				return 'sh';
			default:
				return /^\d$/.test(name) ? '' : (this.vars.get(name) ?? '');
		}
	}

	private async simple(cmd: SimpleCommand, io: Io): Promise<number> {
		const lookup = (n: string) => this.variable(n);
		const argv = cmd.words.map((w) => expandWord(w, lookup));
		const assigns = cmd.assigns.map((a) => [a.name, expandWord(a.value, lookup)] as const);
		let sub: Io = io;
		for (const r of cmd.redirects) {
			if (r.op === 'dup') {
				const to = r.toFd === 1 ? sub.out : sub.err;
				sub = r.fd === 2 ? { ...sub, err: to } : { ...sub, out: to };
				continue;
			}
			const target = expandWord(r.target, lookup);
			const abs = this.fs.resolve(this.cwd, target);
			try {
				if (r.op === '<') {
					sub = { ...sub, stdin: this.fs.read(abs) };
					continue;
				}
				if (r.op === '>') this.fs.write(abs, '');
				else this.fs.write(abs, '', true);
			} catch (err) {
				if (!(err instanceof FsError)) throw err;
				io.err(
					r.op === '<'
						? `sh: can't open '${target}': ${err.message}\n`
						: `sh: can't create ${target}: nonexistent directory\n`,
				);
				return 1;
			}
			const write = (t: string) => this.fs.write(abs, t, true);
			sub = r.fd === 2 ? { ...sub, err: write } : { ...sub, out: write };
		}
		if (argv.length === 0) {
			for (const [k, v] of assigns) this.vars.set(k, v);
			return 0;
		}
		if (assigns.length > 0) sub = { ...sub, env: Object.fromEntries(assigns) };
		return this.exec(argv, sub);
	}

	/** The program a name or path runs, or null. */
	private resolveProgram(name: string, withBuiltins: boolean): string | null {
		if (!name.includes('/')) {
			if (withBuiltins && SHELL_BUILTINS.has(name)) return name;
			return BIN_PROGRAMS.includes(name) ? name : null;
		}
		const abs = this.fs.resolve(this.cwd, name);
		const slash = abs.lastIndexOf('/');
		const dir = abs.slice(0, slash) || '/';
		const base = abs.slice(slash + 1);
		if (!BIN_DIRS.has(dir) || !BIN_PROGRAMS.includes(base)) return null;
		return base;
	}

	private async exec(argv: string[], io: Io): Promise<number> {
		const name = argv[0] ?? '';
		const program = this.resolveProgram(name, true);
		const fn = program ? this.programs[program] : undefined;
		if (!fn) {
			io.err(`sh: ${name}: not found\n`);
			return 127;
		}
		return fn(argv.slice(1), io);
	}

	private makePrograms(): Record<string, Program> {
		// The programs see the tree the shell sees now (chroot changes it while its command runs).
		const files = new Proxy({} as PodFiles, {
			get: (_target, key) => {
				const v = Reflect.get(this.fs, key, this.fs) as unknown;
				return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(this.fs) : v;
			},
		});
		const pod = this.opts.pod;
		const shell: Program = (args, io) => {
			let i = 0;
			while (i < args.length && args[i]!.startsWith('-') && args[i] !== '-c') {
				if (args[i] === '--') {
					i++;
					break;
				}
				i++;
			}
			if (args[i] === '-c') {
				const text = args[i + 1];
				if (text === undefined) {
					io.err('sh: -c requires an argument\n');
					return 2;
				}
				return this.script(text, io);
			}
			const file = args[i];
			if (file !== undefined) {
				try {
					return this.script(files.read(files.resolve(this.cwd, file)), io);
				} catch (err) {
					if (!(err instanceof FsError)) throw err;
					io.err(`sh: can't open '${file}': ${err.message}\n`);
					return 2;
				}
			}
			return this.interactive(io);
		};
		return {
			sh: shell,
			bash: shell,
			ash: shell,
			':': () => 0,
			true: () => 0,
			false: () => 1,
			cd: (args, io) => {
				let target = args[0] ?? this.vars.get('HOME') ?? '/';
				if (target === '-') {
					target = this.oldPwd;
					io.out(`${target}\n`);
				}
				const abs = files.resolve(this.cwd, target);
				const node = files.lookup(abs);
				if (node?.kind !== 'dir') {
					io.err(
						`sh: cd: can't cd to ${target}: ${node ? 'Not a directory' : 'No such file or directory'}\n`,
					);
					return 2;
				}
				this.oldPwd = this.cwd;
				this.cwd = abs;
				this.vars.set('PWD', abs);
				return 0;
			},
			pwd: (_args, io) => {
				io.out(`${this.cwd}\n`);
				return 0;
			},
			exit: (args, io) => {
				let code = this.status;
				if (args[0] !== undefined) {
					if (!/^-?\d+$/.test(args[0])) {
						io.err(`sh: exit: Illegal number: ${args[0]}\n`);
						code = 2;
					} else code = Number(args[0]);
				}
				throw new ExitSignal(((code % 256) + 256) % 256);
			},
			exec: async (args, io) => {
				if (args.length === 0) return 0;
				throw new ExitSignal(await this.exec(args, io));
			},
			export: (args, io) => {
				if (args.length === 0) {
					for (const [k, v] of [...this.vars].sort()) io.out(`export ${k}='${v}'\n`);
					return 0;
				}
				for (const a of args) {
					const eq = a.indexOf('=');
					if (eq > 0) this.vars.set(a.slice(0, eq), a.slice(eq + 1));
				}
				return 0;
			},
			unset: (args) => {
				for (const a of args) this.vars.delete(a);
				return 0;
			},
			'.': (args, io) => this.sourceFile(args, io),
			source: (args, io) => this.sourceFile(args, io),
			echo: (args, io) => {
				let newline = true;
				let escapes = false;
				let i = 0;
				for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
					if (args[i]!.includes('n')) newline = false;
					if (args[i]!.includes('e')) escapes = true;
				}
				let text = args.slice(i).join(' ');
				if (escapes) {
					text = text.replace(/\\([ntr\\])/g, (_m, c: string) =>
						c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : '\\',
					);
				}
				io.out(newline ? `${text}\n` : text);
				return 0;
			},
			hostname: (args, io) => {
				if (args[0] === '-i') io.out(`${pod.podIP ?? ''}\n`);
				else if (args[0] !== undefined && !args[0].startsWith('-')) {
					io.err('hostname: sethostname: Operation not permitted\n');
					return 1;
				} else io.out(`${pod.name}\n`);
				return 0;
			},
			whoami: (_args, io) => {
				io.out('root\n');
				return 0;
			},
			id: (args, io) => {
				if (args.includes('-un') || (args.includes('-u') && args.includes('-n'))) io.out('root\n');
				else if (args.includes('-u') || args.includes('-g')) io.out('0\n');
				else io.out('uid=0(root) gid=0(root) groups=0(root)\n');
				return 0;
			},
			uname: (args, io) => {
				const flags = args.join('').replace(/-/g, '');
				const all = flags.includes('a');
				const parts: string[] = [];
				if (all || flags.includes('s') || flags === '') parts.push('Linux');
				if (all || flags.includes('n')) parts.push(pod.name);
				if (all || flags.includes('r')) parts.push(KERNEL);
				if (all || flags.includes('v'))
					parts.push(`#52-Ubuntu SMP PREEMPT_DYNAMIC ${dateString(BOOT)}`);
				if (all || flags.includes('m')) parts.push('x86_64');
				if (all || flags.includes('o')) parts.push('GNU/Linux');
				io.out(`${parts.join(' ')}\n`);
				return 0;
			},
			env: (args, io) => {
				if (args.length > 0) return this.exec(args, io);
				const all = new Map(this.vars);
				for (const [k, v] of Object.entries(io.env ?? {})) all.set(k, v);
				for (const [k, v] of all) io.out(`${k}=${v}\n`);
				return 0;
			},
			ls: (args, io) => this.ls(args, io),
			cat: async (args, io) => {
				const names = args.filter((a) => a !== '-');
				if (names.length === 0) return this.copyStdin(io, (t) => io.out(t));
				let status = 0;
				for (const name of names) {
					try {
						io.out(files.read(files.resolve(this.cwd, name)));
					} catch (err) {
						if (!(err instanceof FsError)) throw err;
						io.err(
							err.message === 'Is a directory'
								? `cat: read error: Is a directory\n`
								: `cat: can't open '${name}': ${err.message}\n`,
						);
						status = 1;
					}
				}
				return status;
			},
			head: async (args, io) => {
				let n = 10;
				const names: string[] = [];
				for (let i = 0; i < args.length; i++) {
					const a = args[i]!;
					if (a === '-n') n = Number(args[++i] ?? 10);
					else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
					else names.push(a);
				}
				const text = await this.inputText(names, io, 'head');
				if (text === null) return 1;
				const lines = text.split('\n');
				if (lines[lines.length - 1] === '') lines.pop();
				io.out(
					lines
						.slice(0, n)
						.map((l) => `${l}\n`)
						.join(''),
				);
				return 0;
			},
			wc: async (args, io) => {
				const flags = args.filter((a) => a.startsWith('-')).join('');
				const names = args.filter((a) => !a.startsWith('-'));
				const text = await this.inputText(names, io, 'wc');
				if (text === null) return 1;
				const counts: number[] = [];
				const all = flags === '';
				if (all || flags.includes('l')) counts.push((text.match(/\n/g) ?? []).length);
				if (all || flags.includes('w')) counts.push(text.split(/\s+/).filter(Boolean).length);
				if (all || flags.includes('c')) counts.push(Buffer.byteLength(text));
				io.out(`${counts.join(' ')}${names.length === 1 ? ` ${names[0]}` : ''}\n`);
				return 0;
			},
			grep: async (args, io) => {
				const flags = new Set<string>();
				const rest: string[] = [];
				for (const a of args) {
					if (a.startsWith('-') && a.length > 1 && rest.length === 0) {
						for (const f of a.slice(1)) flags.add(f);
					} else rest.push(a);
				}
				const pattern = rest.shift();
				if (pattern === undefined) {
					io.err('Usage: grep [-icnqv] PATTERN [FILE]...\n');
					return 2;
				}
				const text = await this.inputText(rest, io, 'grep');
				if (text === null) return 2;
				let re: RegExp;
				try {
					re = new RegExp(pattern, flags.has('i') ? 'i' : '');
				} catch {
					re = new RegExp(
						pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
						flags.has('i') ? 'i' : '',
					);
				}
				const lines = text.split('\n');
				if (lines[lines.length - 1] === '') lines.pop();
				const hits = lines
					.map((l, i) => ({ l, i }))
					.filter(({ l }) => re.test(l) !== flags.has('v'));
				if (flags.has('c')) io.out(`${hits.length}\n`);
				else if (!flags.has('q')) {
					for (const h of hits) io.out(`${flags.has('n') ? `${h.i + 1}:` : ''}${h.l}\n`);
				}
				return hits.length > 0 ? 0 : 1;
			},
			mkdir: (args, io) => {
				const parents = args.includes('-p');
				let status = 0;
				for (const a of args.filter((x) => !x.startsWith('-'))) {
					try {
						files.mkdir(files.resolve(this.cwd, a), parents);
					} catch (err) {
						if (!(err instanceof FsError)) throw err;
						io.err(`mkdir: can't create directory '${a}': ${err.message}\n`);
						status = 1;
					}
				}
				return status;
			},
			touch: (args, io) => {
				let status = 0;
				for (const a of args.filter((x) => !x.startsWith('-'))) {
					const abs = files.resolve(this.cwd, a);
					try {
						if (!files.lookup(abs)) files.write(abs, '');
					} catch (err) {
						if (!(err instanceof FsError)) throw err;
						io.err(`touch: ${a}: ${err.message}\n`);
						status = 1;
					}
				}
				return status;
			},
			rm: (args, io) => {
				const flags = args.filter((a) => a.startsWith('-')).join('');
				const recursive = /[rR]/.test(flags);
				const force = flags.includes('f');
				let status = 0;
				for (const a of args.filter((x) => !x.startsWith('-'))) {
					try {
						files.remove(files.resolve(this.cwd, a), recursive);
					} catch (err) {
						if (!(err instanceof FsError)) throw err;
						if (force && err.message === 'No such file or directory') continue;
						io.err(`rm: can't remove '${a}': ${err.message}\n`);
						status = 1;
					}
				}
				return status;
			},
			sleep: (args, io) => this.sleep(args, io),
			date: (_args, io) => {
				io.out(`${dateString(Date.now())}\n`);
				return 0;
			},
			df: (args, io) => this.df(args, io),
			stty: (args, io) => {
				if (!this.opts.tty) {
					io.err('stty: standard input: Not a tty\n');
					return 1;
				}
				if (args[0] === 'size') io.out(`${this.rows} ${this.cols}\n`);
				else if (args[0] === '-a' || args.length === 0) {
					io.out(`speed 38400 baud; rows ${this.rows}; columns ${this.cols}; line = 0;\n`);
				}
				return 0;
			},
			tput: (args, io) => {
				if (args[0] === 'cols') io.out(`${this.cols}\n`);
				else if (args[0] === 'lines') io.out(`${this.rows}\n`);
				else if (args[0] === 'clear') io.out('\x1b[H\x1b[2J');
				return 0;
			},
			clear: (_args, io) => {
				io.out('\x1b[H\x1b[2J');
				return 0;
			},
			chroot: async (args, io) => {
				const dir = args[0];
				if (dir === undefined) {
					io.err('Usage: chroot NEWROOT [PROG ARGS]\n');
					return 1;
				}
				const node = files.lookup(files.resolve(this.cwd, dir));
				if (node?.kind !== 'dir') {
					io.err(`chroot: can't change root directory to '${dir}': No such file or directory\n`);
					return 125;
				}
				// The command runs in this same shell, seeing only the tree under the new root
				// (from its /), until it ends; the program must be there.
				const rest = args.slice(1);
				const argv = rest.length > 0 ? rest : ['/bin/sh', '-i'];
				const inside = PodFiles.rootedAt(node);
				const program = argv[0]!;
				const candidates = program.includes('/')
					? [inside.resolve('/', program)]
					: ['/bin', '/usr/bin', '/sbin', '/usr/sbin'].map((d) => `${d}/${program}`);
				if (!candidates.some((p) => inside.lookup(p)?.kind === 'file')) {
					io.err(`chroot: can't execute '${program}': No such file or directory\n`);
					return 127;
				}
				const outer = { fs: this.fs, cwd: this.cwd, oldPwd: this.oldPwd };
				this.fs = inside;
				this.cwd = '/';
				this.oldPwd = '/';
				try {
					return await this.exec(argv, io);
				} finally {
					this.fs = outer.fs;
					this.cwd = outer.cwd;
					this.oldPwd = outer.oldPwd;
				}
			},
		};
	}

	private async sourceFile(args: string[], io: Io): Promise<number> {
		const file = args[0];
		if (file === undefined) {
			io.err('sh: .: filename argument required\n');
			return 2;
		}
		try {
			const text = this.fs.read(this.fs.resolve(this.cwd, file));
			for (const line of text.split('\n')) await this.runLine(line, io);
			return this.status;
		} catch (err) {
			if (!(err instanceof FsError)) throw err;
			io.err(`sh: .: can't open '${file}'\n`);
			return 2;
		}
	}

	/** Copies the session's stdin (or piped input) to out until end of input or Ctrl-C. */
	private async copyStdin(io: Io, out: (t: string) => void): Promise<number> {
		if (io.stdin !== null) {
			out(io.stdin);
			return 0;
		}
		for (;;) {
			if (io.signal.aborted) return 130;
			const line = await this.input.readLine();
			if (line === INTERRUPTED) return 130;
			if (line === null) return 0;
			out(`${line}\n`);
		}
	}

	/** The text of the named files, or of stdin when none is named; null after an error. */
	private async inputText(names: string[], io: Io, who: string): Promise<string | null> {
		if (names.length === 0) {
			let text = '';
			const status = await this.copyStdin(io, (t) => (text += t));
			return status === 0 ? text : null;
		}
		let text = '';
		for (const name of names) {
			try {
				text += this.fs.read(this.fs.resolve(this.cwd, name));
			} catch (err) {
				if (!(err instanceof FsError)) throw err;
				io.err(`${who}: ${name}: ${err.message}\n`);
				return null;
			}
		}
		return text;
	}

	private ls(args: string[], io: Io): number {
		const files = this.fs;
		const flags = args.filter((a) => a.startsWith('-') && a.length > 1).join('');
		const long = flags.includes('l');
		const all = flags.includes('a') || flags.includes('A');
		const onePerLine = long || flags.includes('1') || !this.opts.tty;
		const paths = args.filter((a) => !(a.startsWith('-') && a.length > 1));
		const targets = paths.length > 0 ? paths : ['.'];
		let status = 0;
		const blocks: string[] = [];
		const line = (name: string, isDir: boolean, size: number, mtime: number) => {
			if (!long) return name;
			const d = new Date(mtime);
			const when = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
			const mode = isDir ? 'drwxr-xr-x' : '-rw-r--r--';
			return `${mode}    ${isDir ? 2 : 1} root     root     ${String(isDir ? 4096 : size).padStart(9, ' ')} ${when} ${name}`;
		};
		const show = (items: string[]) =>
			items.length === 0 ? '' : onePerLine ? `${items.join('\n')}\n` : `${items.join('  ')}\n`;
		for (const target of targets) {
			const abs = files.resolve(this.cwd, target);
			const node = files.lookup(abs);
			if (!node) {
				io.err(`ls: ${target}: No such file or directory\n`);
				status = 1;
				continue;
			}
			if (node.kind === 'file') {
				blocks.push(show([line(target, false, node.content.length, node.mtime)]));
				continue;
			}
			const names = [...node.entries.keys()].filter((n) => all || !n.startsWith('.')).sort();
			const items = names.map((n) => {
				const child = node.entries.get(n)!;
				return line(
					n,
					child.kind === 'dir',
					child.kind === 'file' ? child.content.length : 0,
					child.mtime,
				);
			});
			const header = targets.length > 1 ? `${target}:\n` : '';
			const total = long ? `total ${names.length * 4}\n` : '';
			blocks.push(header + total + show(items));
		}
		io.out(blocks.join(targets.length > 1 ? '\n' : ''));
		return status;
	}

	private async sleep(args: string[], io: Io): Promise<number> {
		let seconds = 0;
		for (const a of args) {
			if (a === 'infinity' || a === 'inf') {
				seconds = Number.POSITIVE_INFINITY;
				continue;
			}
			const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
			if (!m) {
				io.err(`sleep: invalid number '${a}'\n`);
				return 1;
			}
			const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
			seconds += Number(m[1]) * unit;
		}
		if (args.length === 0) {
			io.err('sleep: missing operand\n');
			return 1;
		}
		const ms = seconds * 1000 * this.opts.timeScale;
		const signal = io.signal;
		await new Promise<void>((resolve) => {
			let timer: NodeJS.Timeout | undefined;
			const done = () => {
				if (timer) clearTimeout(timer);
				signal.removeEventListener('abort', done);
				resolve();
			};
			if (signal.aborted) {
				resolve();
				return;
			}
			signal.addEventListener('abort', done, { once: true });
			if (Number.isFinite(ms)) timer = setTimeout(done, ms);
		});
		return signal.aborted ? 130 : 0;
	}

	private df(args: string[], io: Io): number {
		const h = args.some((a) => a.startsWith('-') && a.includes('h'));
		const pod = this.opts.pod;
		const rows: Array<[string, number, number, string]> = [
			['overlay', 100 * 2 ** 30, 12 * 2 ** 30 + 512 * 2 ** 20, '/'],
			['tmpfs', 64 * 2 ** 20, 0, '/dev'],
		];
		const mounts = [...new Set(['/data', ...pod.mounts])];
		mounts.forEach((m, i) => {
			const size = m === '/data' ? quantityBytes(pod.claimSize, 5 * 2 ** 30) : 5 * 2 ** 30;
			rows.push([`/dev/sd${String.fromCharCode(98 + i)}`, size, this.fs.usage(m), m]);
		});
		const fmt = (n: number) => (h ? human(n) : String(Math.ceil(n / 1024)));
		const head = h
			? 'Filesystem                Size      Used Available Use% Mounted on\n'
			: 'Filesystem           1K-blocks      Used Available Use% Mounted on\n';
		let out = head;
		for (const [fs, size, used, mount] of rows) {
			const pct = size > 0 ? `${Math.ceil((used / size) * 100)}%` : '0%';
			out += `${fs.padEnd(20)}${fmt(size).padStart(10)}${fmt(used).padStart(10)}${fmt(size - used).padStart(10)}${pct.padStart(5)} ${mount}\n`;
		}
		io.out(out);
		return 0;
	}
}
