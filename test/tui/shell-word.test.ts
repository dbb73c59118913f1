import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, shellWord } from '../../source/tui/commands/shell-word.js';

/** What sh makes of a line of words: each word, as the program would receive it. */
function words(line: string): string[] {
	const out = execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
	return out.split('\0').slice(0, -1);
}

describe('shellWord', () => {
	it('leaves a plain name bare and quotes anything a shell would read otherwise', () => {
		expect(shellWord('desk-1')).toBe('desk-1');
		expect(shellWord('alice@example.com')).toBe('alice@example.com');
		for (const v of ["it's", '$(id)', '`id`', 'a b', 'a;b', '*', '', '~', 'x|y', '"q"'])
			expect(words(shellWord(v))).toEqual([v]);
	});

	it('makes control characters inert (sanitised) before quoting', () => {
		expect(words(shellWord('a\nb\u001b[31mc'))).toEqual(['a bc']);
	});
});

describe('commandLine', () => {
	it('quotes each word, and leaves out a line whose name starts with -', () => {
		expect(commandLine(['kubectl', 'get'], ['pod', "x'y"], ['-n', 'ns'])).toBe(
			"kubectl get pod 'x'\\''y' -n ns",
		);
		expect(commandLine(['ctpool', 'release'], ['desk', '-rf'], [])).toBe(
			'# left out: -rf would read as an option',
		);
	});
});
