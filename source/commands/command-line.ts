/**
 * kubectl's command line: flags may stand before the command as well as after it, and a word
 * that is close to a command gets a "did you mean" (as cobra suggests, by edit distance).
 */

import type { FlagSpec, FlagSpecs } from './flags.js';
import { kebab } from './flags.js';

/** The command a command line names, and its arguments with the command word taken out. */
export interface SplitCommand {
	/** The command word, or undefined when the first word is not one (the console's pool). */
	command: string | undefined;
	/** Every other token, in order: the flags before the command stay in front. */
	rest: string[];
}

/** How each flag spelling (`--name`, `-x`) is read: whether it takes the next word as its value. */
export type FlagKinds = Map<string, FlagSpec['type']>;

/**
 * The spellings of every flag of every command, by whether each takes a value. A spelling
 * that takes a value in one command and none in another could not be skipped before the
 * command: that is a mistake in the commands' specs, thrown at once.
 */
export function flagKinds(...specs: readonly FlagSpecs[]): FlagKinds {
	const kinds: FlagKinds = new Map();
	const add = (spelling: string, type: FlagSpec['type']) => {
		if (kinds.has(spelling) && kinds.get(spelling) !== type)
			throw new Error(`the flag ${spelling} takes a value in one command and none in another`);
		kinds.set(spelling, type);
	};
	for (const group of specs)
		for (const [key, spec] of Object.entries(group)) {
			add(`--${kebab(key)}`, spec.type);
			if (spec.shortFlag) add(`-${spec.shortFlag}`, spec.type);
		}
	return kinds;
}

/** A token that is a flag rather than a value (`-1Gi` and `-5` are values), as scanFlags reads it. */
function isFlag(tok: string): boolean {
	return tok.startsWith('-') && tok.length > 1 && !/^-[0-9.]/.test(tok);
}

/**
 * Finds the first word that is not a flag or a flag's value, skipping `-n team-b`,
 * `--kubeconfig=X`, `-A`: when it is one of the commands, it is taken out of argv. A flag
 * no command knows is read as taking no value (the command's own check then names it).
 */
export function splitCommand(
	argv: readonly string[],
	commands: ReadonlySet<string>,
	kinds: FlagKinds,
): SplitCommand {
	for (let i = 0; i < argv.length; i++) {
		const tok = argv[i]!;
		if (tok === '--') break;
		if (isFlag(tok)) {
			if (!tok.includes('=') && kinds.get(tok) === 'string') i++;
			continue;
		}
		if (!commands.has(tok)) break;
		return { command: tok, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
	}
	return { command: undefined, rest: [...argv] };
}

/** Levenshtein distance of two short words. */
export function editDistance(a: string, b: string): number {
	let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++)
			row[j] = Math.min(
				prev[j]! + 1,
				row[j - 1]! + 1,
				prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
			);
		prev = row;
	}
	return prev[b.length]!;
}

/** How far a word may be from a command to be suggested (cobra's SuggestionsMinimumDistance). */
export const SUGGESTION_DISTANCE = 2;

/**
 * The commands a mistyped word may have meant, nearest first: within SUGGESTION_DISTANCE
 * edits (case ignored), or of which it is the start (`recon`), as cobra's SuggestionsFor.
 */
export function suggestionsFor(word: string, commands: Iterable<string>): string[] {
	const typed = word.toLowerCase();
	if (typed.length === 0) return [];
	const hits: Array<[string, number]> = [];
	for (const command of commands) {
		const distance = editDistance(typed, command);
		if (distance <= SUGGESTION_DISTANCE || command.startsWith(typed))
			hits.push([command, distance]);
	}
	return hits.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([c]) => c);
}

/** ` (did you mean "status"?)`, or '' when nothing is close. */
export function didYouMean(word: string, commands: Iterable<string>): string {
	const hits = suggestionsFor(word, commands);
	if (hits.length === 0) return '';
	return `; did you mean ${hits.map((h) => JSON.stringify(h)).join(' or ')}?`;
}
