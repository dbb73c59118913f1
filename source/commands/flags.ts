/**
 * Argument parsing for every command: a strict scan first (unknown flags, missing values,
 * repeats are usage errors, never a process exit), then meow for the parse itself.
 */

import { PoolError } from '../pool/errors.js';

/** One flag of a command. Keys are camelCase; the flag on the command line is kebab-case. */
export interface FlagSpec {
	type: 'string' | 'boolean';
	shortFlag?: string;
	default?: string | boolean;
	/** May be given more than once (string flags). */
	isMultiple?: boolean;
}

/** The flags of a command by camelCase name. */
export type FlagSpecs = Record<string, FlagSpec>;

/** The flags every command takes. */
export const GLOBAL_FLAGS = {
	namespace: { type: 'string', shortFlag: 'n' },
	context: { type: 'string' },
	kubeconfig: { type: 'string' },
	identity: { type: 'string' },
	readOnly: { type: 'boolean' },
	color: { type: 'boolean', default: true },
	help: { type: 'boolean', shortFlag: 'h' },
} as const satisfies FlagSpecs;

/** The global flags' help lines. */
export const GLOBAL_HELP = `Global flags
  -n, --namespace NS    namespace of the pool (default: $CORRAL_NAMESPACE, else
                        corral-vms, Corral's namespace)
  --context NAME        Corral context (a kubevirt one of ~/.config/corral/config.yaml),
                        else a kubeconfig context (default: $CORRAL_KUBE_CONTEXT,
                        else Corral's kubevirt.context, else the current context)
  --kubeconfig FILE     kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
  --identity ID         who is acting, for events (default: $CTPOOL_IDENTITY, else
                        <user>@<host>)
  --read-only           refuse every change
  --no-color            no colour in the output
  -h, --help            this help`;

type MeowFlag =
	| { type: 'string'; shortFlag?: string; default?: string }
	| { type: 'boolean'; shortFlag?: string; default?: boolean };

/** What a parse gives: positional arguments and flag values (absent flags are undefined). */
export interface ParsedArgs {
	input: string[];
	flags: Record<string, string | boolean | undefined>;
}

/** kebab-case of a camelCase flag key. */
export function kebab(key: string): string {
	return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function usage(command: string, message: string): PoolError {
	return new PoolError(
		'usage',
		`${message}; see ctpool${command ? ` ${command}` : ''} --help`.trim(),
	);
}

/**
 * Checks argv against the flags the command knows, before any parsing: an unknown flag, a
 * string flag without its value, a flag given twice, or a boolean with a value other than
 * true/false is a PoolError('usage'). Returns argv with every string flag written as
 * `--name=value`, so that a value such as `-1Gi` reaches the parser as a value.
 */
export function scanFlags(argv: readonly string[], specs: FlagSpecs, command: string): string[] {
	const normal: string[] = [];
	const byName = new Map<string, FlagSpec>();
	const byShort = new Map<string, [string, FlagSpec]>();
	for (const [key, spec] of Object.entries(specs)) {
		byName.set(kebab(key), spec);
		if (spec.shortFlag) byShort.set(spec.shortFlag, [kebab(key), spec]);
	}
	const seen = new Set<string>();
	const once = (name: string) => {
		if (seen.has(name)) throw usage(command, `the flag --${name} is given more than once`);
		seen.add(name);
	};
	for (let i = 0; i < argv.length; i++) {
		const tok = argv[i]!;
		if (tok === '--') {
			normal.push(...argv.slice(i));
			break;
		}
		if (tok.startsWith('--')) {
			const eq = tok.indexOf('=');
			const name = eq === -1 ? tok.slice(2) : tok.slice(2, eq);
			const value = eq === -1 ? undefined : tok.slice(eq + 1);
			let spec = byName.get(name);
			let canonical = name;
			if (!spec && name.startsWith('no-')) {
				const positive = byName.get(name.slice(3));
				if (positive?.type === 'boolean') {
					spec = positive;
					canonical = name.slice(3);
					if (value !== undefined) throw usage(command, `the flag --${name} takes no value`);
				}
			}
			if (!spec)
				throw usage(
					command,
					`unknown flag --${shorten(name)}${command ? ` for ctpool ${command}` : ''}`,
				);
			if (!spec.isMultiple) once(canonical);
			if (spec.type === 'string') {
				let v = value;
				if (v === undefined) {
					const next = argv[i + 1];
					if (next === undefined || looksLikeFlag(next))
						throw usage(command, `the flag --${name} needs a value`);
					v = next;
					i++;
				}
				if (v === '') throw usage(command, `the flag --${name} needs a value`);
				normal.push(`--${name}=${v}`);
			} else {
				if (value !== undefined && value !== 'true' && value !== 'false')
					throw usage(
						command,
						`the flag --${name} is true or false, not ${JSON.stringify(shorten(value))}`,
					);
				normal.push(tok);
			}
			continue;
		}
		if (looksLikeFlag(tok)) {
			const entry = byShort.get(tok[1]!);
			if (!entry)
				throw usage(
					command,
					`unknown flag ${shorten(tok)}${command ? ` for ctpool ${command}` : ''}`,
				);
			const [name, spec] = entry;
			once(name);
			if (spec.type === 'string') {
				let v = tok.slice(2);
				if (tok.length === 2) {
					const next = argv[i + 1];
					if (next === undefined || looksLikeFlag(next))
						throw usage(command, `the flag -${tok[1]} needs a value`);
					v = next;
					i++;
				}
				if (v === '') throw usage(command, `the flag -${tok[1]} needs a value`);
				normal.push(`--${name}=${v}`);
			} else {
				if (tok.length > 2)
					throw usage(
						command,
						`unknown flag ${shorten(tok)}${command ? ` for ctpool ${command}` : ''}`,
					);
				normal.push(`--${name}`);
			}
			continue;
		}
		normal.push(tok);
	}
	return normal;
}

/** A token that is a flag rather than a value (`-1Gi` and `-5` are values). */
function looksLikeFlag(tok: string): boolean {
	return tok.startsWith('-') && tok.length > 1 && !/^-[0-9.]/.test(tok);
}

function shorten(s: string): string {
	const clean = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
	return clean.length > 40 ? `${clean.slice(0, 37)}...` : clean;
}

/** Whether checked argv (scanFlags') asks for help: `--help`/`-h`, not negated, before any `--`. */
export function wantsHelp(normal: readonly string[]): boolean {
	let help = false;
	for (const tok of normal) {
		if (tok === '--') break;
		if (tok === '--help' || tok === '--help=true') help = true;
		else if (tok === '--no-help' || tok === '--help=false') help = false;
	}
	return help;
}

/**
 * Parses argv for a command whose flags are specs (the global flags are added). A request
 * for help is answered from the strict scan alone, so `--help` never loads meow.
 */
export async function parseArgs(
	argv: readonly string[],
	specs: FlagSpecs,
	command: string,
	help: string,
): Promise<ParsedArgs> {
	const all: FlagSpecs = { ...GLOBAL_FLAGS, ...specs };
	const normal = scanFlags(argv, all, command);
	if (wantsHelp(normal)) return { input: [], flags: { help: true } };
	const { default: meow } = await import('meow');
	const flags: Record<string, MeowFlag> = {};
	for (const [key, spec] of Object.entries(all)) {
		const flag: MeowFlag =
			spec.type === 'string'
				? { type: 'string', ...(typeof spec.default === 'string' ? { default: spec.default } : {}) }
				: {
						type: 'boolean',
						...(typeof spec.default === 'boolean' ? { default: spec.default } : {}),
					};
		if (spec.shortFlag) flag.shortFlag = spec.shortFlag;
		flags[key] = flag;
	}
	const cli = meow(help, {
		importMeta: import.meta,
		argv: normal,
		pkg: { name: 'ctpool' },
		description: false,
		autoHelp: false,
		autoVersion: false,
		allowUnknownFlags: true,
		booleanDefault: undefined,
		flags,
	});
	const out: ParsedArgs['flags'] = {};
	for (const key of Object.keys(all)) {
		const v = (cli.flags as Record<string, unknown>)[key];
		if (typeof v === 'string' || typeof v === 'boolean') out[key] = v;
		else if (typeof v === 'number') out[key] = String(v);
	}
	return { input: cli.input.map(String), flags: out };
}
