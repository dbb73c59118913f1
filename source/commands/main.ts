/** The ctpool command line: dispatch to a command, or open the console or the demo. */

import { ctpoolVersion, versionLine } from '../build-info.js';
import type { Kube } from '../kube/config.js';
import { PoolError } from '../pool/errors.js';
import { poolNameProblem } from '../pool/names.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandSpec, runCommand, stringFlag } from './command.js';
import { didYouMean, flagKinds, splitCommand } from './command-line.js';
import {
	applyCommand,
	auditCommand,
	claimCommand,
	deleteCommand,
	findCommand,
	maintenanceCommand,
	rbacCommand,
	reconcileCommand,
	releaseCommand,
	statusCommand,
} from './command-specs.js';
import { EXIT_OK, usageError } from './failure.js';
import { GLOBAL_FLAGS, GLOBAL_HELP } from './flags.js';
import { type CommandIo, println } from './io.js';
import { forProgram } from './program.js';
import { actorOf, commandScopeOf, kubeOptions } from './session.js';
import { parseSize } from './values.js';

/** A command name and how to run it. */
interface Entry {
	spec: CommandSpec;
	run(argv: readonly string[], io: CommandIo): Promise<number>;
}

/** A command's run, its module loaded when it runs (the console's start loads none of them). */
type Run = Entry['run'];
const onDemand =
	(load: () => Promise<Run>): Run =>
	async (argv, io) =>
		(await load())(argv, io);

/** The pool commands, by name. */
export const COMMANDS: Record<string, Entry> = {
	apply: { spec: applyCommand, run: onDemand(async () => (await import('./apply.js')).runApply) },
	reconcile: {
		spec: reconcileCommand,
		run: onDemand(async () => (await import('./reconcile.js')).runReconcile),
	},
	status: {
		spec: statusCommand,
		run: onDemand(async () => (await import('./status.js')).runStatus),
	},
	find: { spec: findCommand, run: onDemand(async () => (await import('./find.js')).runFind) },
	claim: { spec: claimCommand, run: onDemand(async () => (await import('./claim.js')).runClaim) },
	release: {
		spec: releaseCommand,
		run: onDemand(async () => (await import('./release.js')).runRelease),
	},
	delete: {
		spec: deleteCommand,
		run: onDemand(async () => (await import('./delete.js')).runDelete),
	},
	maintenance: {
		spec: maintenanceCommand,
		run: onDemand(async () => (await import('./maintenance.js')).runMaintenance),
	},
	audit: { spec: auditCommand, run: onDemand(async () => (await import('./audit.js')).runAudit) },
	rbac: { spec: rbacCommand, run: onDemand(async () => (await import('./rbac.js')).runRbac) },
};

/** ctpool's version (the bundle's, else package.json's). */
export function version(): string {
	return ctpoolVersion();
}

const TOP_HELP = `
Usage: ctpool [pool] [flags]
       ctpool [flags] <command> <arguments> [flags]
       ctpool --demo

A terminal console for Corral's CT-backed ephemeral desktop pools. Without a command it
opens the live console (on the pool when one is named).

Commands
${Object.entries(COMMANDS)
	.map(([name, e]) => `  ${name.padEnd(13)}${e.spec.summary}`)
	.join('\n')}
  sim          run the embedded simulated cluster
  completion   print a shell completion script (bash, zsh or fish)

Run ctpool <command> --help for the command's arguments and flags. Flags may stand
before the command or after it, as kubectl's do.

Flags
  -A, --all-namespaces   the console on every pool in every namespace the identity can
                         list (a NAMESPACE column; one watch per kind for the cluster)
  --bell                 ring the terminal bell each time a watched pool becomes exhausted
  --demo                 open the console on an embedded simulated cluster with a demo pool
  --kubeconfig-out FILE  with --demo: where the demo's kubeconfig is written
  --narrate              with --demo: play a release, a drift, a scale-down and a takeover,
                         telling each step in one plain sentence every few seconds, in a
                         pane beside the table (Space pauses, n tells the next)
  --size N               with --demo: the size of the demo pool (default 6)
  --version              print the version and the build

${GLOBAL_HELP}
`;

/** The top level: the console, the demo, --help, --version. */
const topCommand: CommandSpec = {
	name: '',
	summary: 'the live console',
	mutates: false,
	flags: {
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
		bell: { type: 'boolean' },
		demo: { type: 'boolean' },
		kubeconfigOut: { type: 'string' },
		narrate: { type: 'boolean' },
		size: { type: 'string' },
		version: { type: 'boolean' },
	},
	help: TOP_HELP,
};

async function runTop(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(topCommand, argv, io, async (args) => {
		if (args.flags.version === true) {
			println(io.stdout, versionLine());
			return EXIT_OK;
		}
		const first = args.input[0];
		const quoted = JSON.stringify(sanitize(first ?? '').slice(0, 40));
		const meant = didYouMean(first ?? '', COMMAND_WORDS);
		if (args.input.length > 1)
			throw usageError('', `unknown command ${quoted}${meant}; ${COMMAND_LIST}`);
		const pool = first;
		if (pool !== undefined) {
			const problem = poolNameProblem(pool);
			if (problem)
				throw usageError(
					'',
					`${quoted} is not a command${meant || ` (${COMMAND_LIST})`}, nor a pool name: ${sanitize(problem)}`,
				);
		}
		const noColor = args.flags.color === false;
		const allNamespaces = args.flags.allNamespaces === true;
		const bell = args.flags.bell === true;
		if (allNamespaces && pool !== undefined)
			throw usageError(
				'',
				`-A/--all-namespaces opens every pool; to open ${sanitize(pool).slice(0, 40)} name its namespace with -n instead`,
			);
		if (args.flags.demo === true) {
			const out = stringFlag(args, 'kubeconfigOut');
			const sizeText = stringFlag(args, 'size');
			const opts: {
				kubeconfigOut?: string;
				pool?: string;
				size?: number;
				noColor?: boolean;
				namespace?: string;
				allNamespaces?: boolean;
				bell?: boolean;
				narrate?: boolean;
			} = { noColor, allNamespaces, bell };
			if (args.flags.narrate === true) opts.narrate = true;
			const namespace = kubeOptions(args.flags, io.env).namespace;
			if (namespace !== undefined) opts.namespace = namespace;
			if (out !== undefined) opts.kubeconfigOut = out;
			if (pool !== undefined) opts.pool = pool;
			if (sizeText !== undefined) opts.size = parseSize('', sizeText);
			const { runDemo } = await import('../demo/run.js');
			return runDemo(opts);
		}
		if (stringFlag(args, 'kubeconfigOut') !== undefined || stringFlag(args, 'size') !== undefined)
			throw usageError('', '--kubeconfig-out and --size go with --demo');
		if (args.flags.narrate === true)
			throw usageError(
				'',
				'--narrate goes with --demo: it narrates the demo pool (ctpool --demo --narrate)',
			);
		if (!io.stdout.isTTY && pool === undefined)
			throw new PoolError(
				'usage',
				'the console needs a terminal; for text output use ctpool status',
			);
		actorOf(args.flags, io.env);
		// The watch's lists are on their way before the console's modules (React, Ink) load:
		// the cluster answers while they do.
		const [{ loadKube }, { startConsoleWatch }] = await Promise.all([
			import('../kube/config.js'),
			import('../tui/session/console-watch.js'),
		]);
		const kube = await loadKube({ ...kubeOptions(args.flags, io.env), ...io.connection });
		if (!io.stdout.isTTY) {
			if (pool !== undefined) await checkPoolExists(kube, pool);
			throw new PoolError(
				'usage',
				`the console needs a terminal; for text output use ctpool status ${pool ?? '<pool>'}`,
			);
		}
		const watch = startConsoleWatch(kube, allNamespaces);
		// the check runs beside the watch's first lists and the console's load: the start waits
		// for no extra round trip
		const [{ runTui }] = await Promise.all([
			import('../tui/session/run.js'),
			pool !== undefined ? checkPoolExists(kube, pool, watch.definedPools) : undefined,
		]).catch((err: unknown) => {
			watch.watch.stop();
			throw err;
		});
		const opts: Parameters<typeof runTui>[0] = {
			watch,
			kube,
			noColor,
			readOnly: args.flags.readOnly === true,
			allNamespaces,
			bell,
		};
		if (pool !== undefined) opts.pool = pool;
		opts.commandScope = commandScopeOf(args.flags, io.env);
		const identity = stringFlag(args, 'identity');
		if (identity !== undefined) opts.identity = identity;
		const kubeconfig = stringFlag(args, 'kubeconfig');
		if (kubeconfig !== undefined) opts.kubeconfig = kubeconfig;
		return runTui(opts);
	});
}

/**
 * The console opens on a pool only when the namespace has it: else the error lists the
 * namespace's pools and the commands (with "did you mean" when the word is close to one).
 * The pools are those of the console watch's first list of ConfigMaps when it has one (the
 * same list: the pool label, the namespace), else of a list of its own.
 */
async function checkPoolExists(
	kube: Kube,
	pool: string,
	listed?: Promise<string[] | null>,
): Promise<void> {
	const meant = didYouMean(pool, COMMAND_WORDS);
	let pools: string[];
	try {
		const fromWatch = listed ? await listed : null;
		if (fromWatch) pools = fromWatch;
		else {
			const { listPoolRefs } = await import('../engine/list-definitions.js');
			pools = (await listPoolRefs(kube, kube.namespace)).map((r) => r.pool);
		}
	} catch (err) {
		if (!meant) throw err;
		throw new PoolError(
			'failed',
			`unknown command "${pool}"${meant} (whether a pool ${pool} exists could not be checked: ${(err as Error).message})`,
		);
	}
	if (pools.includes(pool)) return;
	const shown =
		pools.slice(0, 20).join(', ') + (pools.length > 20 ? `, and ${pools.length - 20} more` : '');
	const there =
		pools.length > 0
			? `the pools there are ${shown}`
			: 'it has no pools (ctpool apply <pool> --image IMAGE --size N defines one)';
	const where = `namespace ${kube.namespace}`;
	throw new PoolError(
		'not-found',
		meant
			? `unknown command "${pool}"${meant} (nor is it a pool in ${where}: ${there}); ${COMMAND_LIST}`
			: `no pool ${pool} in ${where}: ${there}; ${COMMAND_LIST}; pick another namespace with -n, or open every pool with -A`,
	);
}

/** The words that name a command (what did-you-mean suggests). */
const COMMAND_WORDS: ReadonlySet<string> = new Set([
	...Object.keys(COMMANDS),
	'sim',
	'completion',
	'help',
]);

/** The list of commands, as errors give it. */
const COMMAND_LIST = `the commands are ${Object.keys(COMMANDS).join(', ')}, sim, completion`;

/**
 * Every flag of the pool commands and the console by spelling, so that flags before the
 * command are skipped right (`ctpool sim` takes its own flags after its name: its --nodes
 * takes a value where rbac's takes none).
 */
const FLAG_KINDS = flagKinds(
	GLOBAL_FLAGS,
	topCommand.flags,
	...Object.values(COMMANDS).map((e) => e.spec.flags),
);

/**
 * Runs ctpool with the arguments after the program name; resolves with the exit code. Flags
 * may stand before the command (`ctpool -n team-b status`), as kubectl's do.
 */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
	if (argv[0] === '__complete') {
		const completion = await import('./completion.js');
		return completion.runComplete(argv.slice(1), io);
	}
	const { command: first, rest } = splitCommand(argv, COMMAND_WORDS, FLAG_KINDS);
	if (first === undefined) return runTop(argv, io);
	if (Object.hasOwn(COMMANDS, first)) return COMMANDS[first]!.run(rest, io);
	if (first === 'sim') {
		const { runSim } = await import('./sim.js');
		return runSim(rest, io);
	}
	if (first === 'completion') {
		const completion = await import('./completion.js');
		const model = completion.completionModel(COMMANDS, topCommand.flags);
		return completion.runCompletion(rest, io, model);
	}
	if (first === 'help') {
		const topic = rest.find((a) => !a.startsWith('-'));
		if (topic !== undefined && Object.hasOwn(COMMANDS, topic))
			return COMMANDS[topic]!.run(['--help'], io);
		io.stdout.write(`${forProgram(TOP_HELP.trim())}\n`);
		return EXIT_OK;
	}
	return runTop(argv, io);
}
