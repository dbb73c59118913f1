/**
 * ctpool completion bash|zsh|fish: shell completion scripts for the commands, their flags
 * and the pools of the cluster, and the hidden `ctpool __complete pools` they call.
 */

import { poolNameProblem } from '../pool/names.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandSpec, runCommand } from './command.js';
import { EXIT_OK, usageError } from './failure.js';
import { type FlagSpecs, GLOBAL_FLAGS, GLOBAL_HELP, kebab, parseArgs } from './flags.js';
import { type CommandIo, println } from './io.js';
import { kubeOptions } from './session.js';
import { SIM_FLAGS } from './sim-flags.js';
import { checkArgs } from './values.js';

/** The shells a completion script is made for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The completion command. */
export const completionCommand: CommandSpec = {
	name: 'completion',
	summary: 'print a shell completion script (bash, zsh or fish)',
	mutates: false,
	flags: {},
	help: `
Usage: ctpool completion bash|zsh|fish

Print a completion script for the shell: the commands, each command's flags, and the pool
names of the cluster (asked of the current context and namespace as you type; nothing is
offered when the cluster cannot be reached within a few seconds).

  bash   source <(ctpool completion bash)        # in ~/.bashrc
  zsh    source <(ctpool completion zsh)         # in ~/.zshrc, after compinit
  fish   ctpool completion fish > ~/.config/fish/completions/ctpool.fish

${GLOBAL_HELP}
`,
};

/** What the scripts complete: commands, their flags, which take a pool. */
export interface CompletionModel {
	/** Command name to its one-line summary, in the order shown. */
	commands: Array<[string, string]>;
	/** Flags by command name ('' is the console: ctpool [pool] [flags]). */
	flags: Record<string, FlagSpecs>;
	/** The commands whose first argument is a pool (and '' for the console). */
	poolCommands: string[];
}

/** The model of ctpool's command line, from the pool commands' specs and the console's flags. */
export function completionModel(
	commands: Record<string, { spec: CommandSpec }>,
	topFlags: FlagSpecs,
): CompletionModel {
	const flags: Record<string, FlagSpecs> = { '': { ...GLOBAL_FLAGS, ...topFlags } };
	for (const [name, e] of Object.entries(commands))
		flags[name] = { ...GLOBAL_FLAGS, ...e.spec.flags };
	flags.sim = SIM_FLAGS;
	flags.completion = { help: GLOBAL_FLAGS.help };
	return {
		commands: [
			...Object.entries(commands).map(([n, e]): [string, string] => [n, e.spec.summary]),
			['sim', 'run the embedded simulated cluster'],
			['completion', completionCommand.summary],
			['help', 'help on a command'],
		],
		flags,
		poolCommands: ['', ...Object.keys(commands).filter((n) => n !== 'rbac' && n !== 'find')],
	};
}

/** The command-line spellings of a command's flags: `--name`, `--no-name`, `-x`. */
function spellings(specs: FlagSpecs, only?: 'string' | 'boolean'): string[] {
	const out: string[] = [];
	for (const [key, spec] of Object.entries(specs)) {
		if (only && spec.type !== only) continue;
		out.push(`--${kebab(key)}`);
		if (spec.shortFlag) out.push(`-${spec.shortFlag}`);
	}
	return out;
}

/** Values offered after a string flag: 'FILE' for a path, a word list, or none. */
function flagValues(flag: string): 'FILE' | string[] {
	if (/^--kubeconfig(-out|-for)?$/.test(flag)) return 'FILE';
	if (flag === '-o' || flag === '--output') return ['table', 'json', 'yaml'];
	return [];
}

/** Every spelling of a flag that takes a value, over all commands. */
function valueFlags(m: CompletionModel): string[] {
	return [...new Set(Object.values(m.flags).flatMap((f) => spellings(f, 'string')))];
}

/** The bash script (also used by zsh through bashcompinit). */
export function bashScript(m: CompletionModel, program = 'ctpool'): string {
	const names = m.commands.map(([n]) => n);
	const caseOf = (pick: (cmd: string) => string) =>
		Object.keys(m.flags)
			.map((cmd) => `\t\t${cmd === '' ? "''" : cmd}) echo '${pick(cmd)}' ;;`)
			.join('\n');
	const values = valueFlags(m)
		.map((f) => {
			const v = flagValues(f);
			const action =
				v === 'FILE' ? 'COMPREPLY=($(compgen -f -- "$cur"))' : `_ctpool_add_words '${v.join(' ')}'`;
			return `\t\t${f}) ${action} ;;`;
		})
		.join('\n');
	return `# ${program} completion for bash: add  source <(${program} completion bash)  to ~/.bashrc

# The string flags of a command (their next word is a value).
_ctpool_value_flags() {
	case $1 in
${caseOf((cmd) => spellings(m.flags[cmd]!, 'string').join(' '))}
	esac
}

# Every flag of a command.
_ctpool_flags() {
	case $1 in
${caseOf((cmd) => spellings(m.flags[cmd]!).join(' '))}
	esac
}

# The pools of the cluster the command line points at (nothing on any error).
_ctpool_pools() {
	[[ -n \${ZSH_VERSION-} ]] && setopt localoptions ksharrays
	local -a conn=()
	local i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=\${COMP_WORDS[i]}
		case $w in
		-n | --namespace | --context | --kubeconfig)
			if ((i + 1 < COMP_CWORD)); then conn+=("$w" "\${COMP_WORDS[i+1]}"); fi ;;
		--namespace=* | --context=* | --kubeconfig=*) conn+=("$w") ;;
		esac
	done
	command ${program} __complete pools "\${conn[@]}" 2>/dev/null
}

# Adds ctpool's own words (a list split at spaces) that start with $cur to COMPREPLY; used
# instead of compgen -W, whose zsh emulation (bashcompinit) ignores the word after --.
_ctpool_add_words() {
	[[ -n \${ZSH_VERSION-} ]] && setopt localoptions shwordsplit noglob
	local w
	for w in $1; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

# Adds the pools that start with $cur to COMPREPLY, each word as it is: never through
# compgen -W, which expands $(...) and \${...} in its word list.
_ctpool_add_pools() {
	local p
	while IFS= read -r p; do
		[[ -n $p && $p == "$cur"* ]] && COMPREPLY+=("$p")
	done < <(_ctpool_pools)
}

_ctpool() {
	# zsh (through bashcompinit) counts array elements from 1 unless told otherwise.
	[[ -n \${ZSH_VERSION-} ]] && setopt localoptions ksharrays
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=""
	local cmd="" found="" pos=0 i w
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=\${COMP_WORDS[i]}
		case $w in
		--*=*) ;;
		-*) [[ " $(_ctpool_value_flags "$cmd") " == *" $w "* ]] && ((i++)) ;;
		*)
			if [[ -z $found ]]; then
				found=1
				case " ${names.join(' ')} " in
				*" $w "*) cmd=$w ;;
				*) pos=1 ;;
				esac
			else
				((pos++))
			fi
			;;
		esac
	done
	((i == COMP_CWORD + 1)) && prev=\${COMP_WORDS[COMP_CWORD-1]}
	if [[ -n $prev ]]; then
		case $prev in
${values}
		*) COMPREPLY=() ;;
		esac
		return 0
	fi
	if [[ $cur == -* ]]; then
		_ctpool_add_words "$(_ctpool_flags "$cmd")"
		return 0
	fi
	((pos == 0)) || return 0
	case $cmd in
	'')
		_ctpool_add_words '${names.join(' ')}'
		_ctpool_add_pools
		;;
	completion) _ctpool_add_words '${SHELLS.join(' ')}' ;;
	help) _ctpool_add_words '${names.filter((n) => n !== 'help').join(' ')}' ;;
	${m.poolCommands.filter((c) => c !== '').join(' | ')}) _ctpool_add_pools ;;
	esac
	return 0
}

complete -F _ctpool ${program}
`;
}

/** The zsh script: the bash one through zsh's bashcompinit. */
export function zshScript(m: CompletionModel): string {
	return `# ctpool completion for zsh: add  source <(ctpool completion zsh)  to ~/.zshrc, after compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(m).replace(/^# ctpool completion for bash.*\n/, '')}`;
}

/** The fish script. */
export function fishScript(m: CompletionModel): string {
	const lines = [
		'# ctpool completion for fish: ctpool completion fish > ~/.config/fish/completions/ctpool.fish',
		'',
		'# The connection flags on the command line, for the pool lookup.',
		'function __ctpool_conn',
		'\tset -l words (commandline -opc)',
		'\tfor i in (seq 2 (count $words))',
		'\t\tswitch $words[$i]',
		'\t\t\tcase -n --namespace --context --kubeconfig',
		'\t\t\t\tset -l j (math $i + 1)',
		'\t\t\t\tif test $j -le (count $words)',
		'\t\t\t\t\tprintf "%s\\n" $words[$i] $words[$j]',
		'\t\t\t\tend',
		"\t\t\tcase '--namespace=*' '--context=*' '--kubeconfig=*'",
		'\t\t\t\tprintf "%s\\n" $words[$i]',
		'\t\t\tend',
		'\tend',
		'end',
		'',
		'# The pools of the cluster the command line points at, one a line (nothing on any error).',
		'function __ctpool_pools',
		'\tcommand ctpool __complete pools (__ctpool_conn) 2>/dev/null',
		'end',
		'',
		'# Each pool name as one literal word: only lines that are pool names (a DNS label) are',
		'# offered; anything else from the cluster is refused, never expanded or run.',
		'function __ctpool_pool_words',
		'\tfor p in (__ctpool_pools)',
		"\t\tstring match -qr -- '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' $p; and printf '%s\\n' $p",
		'\tend',
		'end',
		'',
		'# Whether the command line so far is the command and nothing after it.',
		'# (the value after a flag that takes one is no argument).',
		'function __ctpool_first_arg_of',
		'\tset -l words (commandline -opc)',
		'\tset -l args',
		'\tset -l value 0',
		'\tfor w in $words[2..-1]',
		'\t\tif test $value -eq 1',
		'\t\t\tset value 0',
		'\t\t\tcontinue',
		'\t\tend',
		'\t\tswitch $w',
		"\t\t\tcase '--*=*'",
		`\t\t\tcase ${valueFlags(m).join(' ')}`,
		'\t\t\t\tset value 1',
		"\t\t\tcase '-*'",
		"\t\t\tcase '*'",
		'\t\t\t\tset -a args $w',
		'\t\tend',
		'\tend',
		'\ttest (count $args) -eq 1; and contains -- $args[1] $argv',
		'end',
		'',
		'complete -c ctpool -f',
	];
	const names = m.commands.map(([n]) => n);
	for (const [name, summary] of m.commands)
		lines.push(
			`complete -c ctpool -n __fish_use_subcommand -a ${name} -d '${summary.replace(/'/g, '')}'`,
		);
	lines.push("complete -c ctpool -n __fish_use_subcommand -a '(__ctpool_pool_words)' -d pool");
	const pools = m.poolCommands.filter((c) => c !== '');
	lines.push(
		`complete -c ctpool -n '__ctpool_first_arg_of ${pools.join(' ')}' -a '(__ctpool_pool_words)' -d pool`,
		`complete -c ctpool -n '__ctpool_first_arg_of completion' -a '${SHELLS.join(' ')}'`,
		`complete -c ctpool -n '__ctpool_first_arg_of help' -a '${names.filter((n) => n !== 'help').join(' ')}'`,
	);
	for (const [cmd, specs] of Object.entries(m.flags)) {
		const cond = cmd === '' ? '__fish_use_subcommand' : `'__fish_seen_subcommand_from ${cmd}'`;
		for (const [key, spec] of Object.entries(specs)) {
			let line = `complete -c ctpool -n ${cond} -l ${kebab(key)}`;
			if (spec.shortFlag) line += ` -s ${spec.shortFlag}`;
			if (spec.type === 'string') {
				const v = flagValues(`--${kebab(key)}`);
				line += v === 'FILE' ? ' -r -F' : v.length > 0 ? ` -x -a '${v.join(' ')}'` : ' -x';
			}
			lines.push(line);
		}
	}
	return `${lines.join('\n')}\n`;
}

/** Runs `ctpool completion SHELL`. */
export function runCompletion(
	argv: readonly string[],
	io: CommandIo,
	model: CompletionModel,
): Promise<number> {
	return runCommand(completionCommand, argv, io, async (args) => {
		checkArgs('completion', args.input, ['shell']);
		const shell = args.input[0]!;
		if (shell === 'bash') io.stdout.write(bashScript(model));
		else if (shell === 'zsh') io.stdout.write(zshScript(model));
		else if (shell === 'fish') io.stdout.write(fishScript(model));
		else
			throw usageError(
				'completion',
				`${JSON.stringify(sanitize(shell).slice(0, 20))} is not a shell ctpool completes; use bash, zsh or fish`,
			);
		return EXIT_OK;
	});
}

/** How long the pool lookup of a completion may take (ms): a shell waits for it. */
const COMPLETE_TIMEOUT_MS = 3_000;

/**
 * The hidden `ctpool __complete pools [-n NS] [--context C] [--kubeconfig F]`: the pool names
 * of the namespace, one a line; on any error nothing, and exit 0 (a completion never prints
 * an error into the user's command line).
 */
export async function runComplete(argv: readonly string[], io: CommandIo): Promise<number> {
	try {
		const [what, ...rest] = argv;
		if (what !== 'pools') return EXIT_OK;
		const args = await parseArgs(rest, {}, '__complete', '');
		const [{ loadKube }, { listPoolRefs }] = await Promise.all([
			import('../kube/config.js'),
			import('../engine/list-definitions.js'),
		]);
		const kube = await loadKube({
			...kubeOptions(args.flags, io.env),
			requestTimeoutMs: COMPLETE_TIMEOUT_MS,
		});
		// Only valid pool names: a name is a word the shell offers, never text it runs.
		for (const ref of await listPoolRefs(kube, kube.namespace))
			if (poolNameProblem(ref.pool) === null) println(io.stdout, sanitize(ref.pool));
	} catch {
		// nothing to offer
	}
	return EXIT_OK;
}
