/** The frame every command runs in: parse, --help, --read-only, errors to exit codes. */

import { PoolError } from '../pool/errors.js';
import { report } from './failure.js';
import { type FlagSpecs, type ParsedArgs, parseArgs } from './flags.js';
import { type CommandIo, println } from './io.js';
import { forProgram } from './program.js';

/** A command of the CLI. */
export interface CommandSpec {
	name: string;
	/** One line for the command list. */
	summary: string;
	/** The full --help text. */
	help: string;
	flags: FlagSpecs;
	/**
	 * Whether it changes the cluster (refused under --read-only); a function when some of its
	 * flags make it change nothing (release --expired --dry-run).
	 */
	mutates: boolean | ((flags: ParsedArgs['flags']) => boolean);
}

/**
 * Runs a command body with its arguments parsed: prints help for --help, refuses a mutating
 * command under --read-only, and turns every thrown error into `ctpool: <message>` and its
 * exit code (2 usage, 1 failure).
 */
export async function runCommand(
	spec: CommandSpec,
	argv: readonly string[],
	io: CommandIo,
	body: (args: ParsedArgs) => Promise<number>,
): Promise<number> {
	try {
		const args = await parseArgs(argv, spec.flags, spec.name, spec.help);
		if (args.flags.help === true) {
			io.stdout.write(`${forProgram(spec.help.trim())}\n`);
			return 0;
		}
		const mutates = typeof spec.mutates === 'function' ? spec.mutates(args.flags) : spec.mutates;
		if (mutates && args.flags.readOnly === true)
			throw new PoolError(
				'usage',
				`--read-only refuses ctpool ${spec.name}, which changes the cluster; leave out --read-only`,
			);
		return await body(args);
	} catch (err) {
		return report(io, err);
	}
}

/** A string flag's value, or undefined when it was not given. */
export function stringFlag(args: ParsedArgs, key: string): string | undefined {
	const v = args.flags[key];
	return typeof v === 'string' ? v : undefined;
}

/** Prints a line on stdout. */
export function out(io: CommandIo, line = ''): void {
	println(io.stdout, line);
}
