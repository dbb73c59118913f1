/**
 * Command lines a command shows for the user to copy: every word from the cluster sanitised,
 * then quoted for a POSIX shell, so a copied line runs only what it says. A name that would
 * read as an option (a leading -) leaves its line out, saying why.
 */

import { sanitize } from '../../text/sanitize.js';

/** A word as a POSIX shell reads it back unchanged: bare when safe, else in single quotes. */
export function shellWord(value: string): string {
	const v = sanitize(value);
	return /^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** A command line: its words, the names it acts on, then its flags; each word quoted. */
export function commandLine(words: string[], names: string[], flags: string[]): string {
	const option = names.find((n) => sanitize(n).startsWith('-'));
	if (option !== undefined) return `# left out: ${shellWord(option)} would read as an option`;
	return [...words, ...names, ...flags].map(shellWord).join(' ');
}
