import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putDefinition } from '../engine/fixtures.js';
import { builtOrSay, CLI } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeWithClient } from '../support/kubectl.js';
import { ctpool } from './capture.js';

const built = builtOrSay('the pool-name completion tests');

/** Whether a shell is installed (completion is tested only in the shells that are). */
function has(shell: string): boolean {
	return spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
}
/** A describe block for one shell: skipped without it (saying so), failing under CI=true. */
function describeShell(shell: string, name: string, fn: () => void): void {
	describeWithClient(
		name,
		has(shell),
		`${shell} is not installed (apt-get install -y ${shell})`,
		fn,
	);
}

let c: TestCluster;
let dir: string;
/** A `ctpool` on the PATH of the shells: the built CLI. */
let binDir: string;
const scripts: Record<string, string> = {};

beforeAll(async () => {
	c = await startTestCluster();
	await putDefinition(c, 'desk', '{}');
	await putDefinition(c, 'lab', '{}');
	dir = mkdtempSync(join(tmpdir(), 'ctpool-completion-'));
	binDir = join(dir, 'bin');
	mkdirSync(binDir);
	const shim = join(binDir, 'ctpool');
	writeFileSync(
		shim,
		`#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
	);
	chmodSync(shim, 0o755);
	for (const shell of ['bash', 'zsh', 'fish']) {
		const r = await ctpool(['completion', shell]);
		expect(r.code).toBe(0);
		scripts[shell] = join(dir, `ctpool.${shell}`);
		writeFileSync(scripts[shell]!, r.stdout);
	}
});
afterAll(async () => {
	await c?.close();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Pool names a forged API answer could carry (the cluster itself refuses them): command
 * substitutions, backticks, quotes, `;`, a newline, and a plain name.
 */
const HOSTILE = [
	// biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, as a pool name would carry it
	'x$(touch${IFS}pwned)',
	// biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, as a pool name would carry it
	'y`touch${IFS}pwned2`',
	"q';touch pwned3;'",
	'd"$(touch pwned4)"',
	's;touch pwned5',
	'n\n$(touch pwned6)',
	'(touch pwned7)',
	'desk',
];

/**
 * A directory holding a `ctpool` whose pool lookup answers the hostile names (the forged
 * answer), for the shells' PATH; and an empty working directory for them to run in.
 */
function hostileLookup(): { bin: string; work: string } {
	const root = mkdtempSync(join(dir, 'forged-'));
	const bin = join(root, 'bin');
	const work = join(root, 'work');
	mkdirSync(bin);
	mkdirSync(work);
	writeFileSync(join(root, 'names'), `${HOSTILE.join('\n')}\n`);
	const shim = join(bin, 'ctpool');
	writeFileSync(shim, `#!/bin/sh\nexec cat ${JSON.stringify(join(root, 'names'))}\n`);
	chmodSync(shim, 0o755);
	return { bin, work };
}

/** Whether a candidate is one of the hostile lines, offered as it is. */
function literalLine(candidate: string): boolean {
	return HOSTILE.flatMap((h) => h.split('\n')).includes(candidate);
}

/** The shells' environment: the shim first on the PATH, no kubeconfig from the user. */
function shellEnv(bin = binDir): NodeJS.ProcessEnv {
	return {
		...process.env,
		PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
		KUBECONFIG: '',
		CORRAL_NAMESPACE: 'corral',
	};
}

/**
 * What a shell prints running the script (its stdout's lines, sorted); stderr output fails.
 * Asynchronous: the simulated cluster answering the pool lookup runs in this process.
 */
function shellLines(shell: string, args: string[], cwd?: string, bin?: string): Promise<string[]> {
	return new Promise((resolve, reject) => {
		execFile(
			shell,
			args,
			{ encoding: 'utf8', env: shellEnv(bin), timeout: 60_000, ...(cwd ? { cwd } : {}) },
			(err, stdout, stderr) => {
				if (err) reject(err);
				else if (stderr !== '') reject(new Error(`${shell} wrote to stderr: ${stderr}`));
				else resolve(stdout.split('\n').filter(Boolean).sort());
			},
		);
	});
}

/** The candidates bash's completion function offers for the words, the last being completed. */
function bashComplete(words: string[]): Promise<string[]> {
	const script = `src=$1; shift; source "$src"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; _ctpool; printf "%s\\n" "\${COMPREPLY[@]}"`;
	return shellLines('bash', [
		'--norc',
		'--noprofile',
		'-c',
		script,
		'bash',
		scripts.bash!,
		...words,
	]);
}

describe('ctpool completion', () => {
	it('refuses a shell it does not know, naming the ones it does', async () => {
		const r = await ctpool(['completion', 'tcsh']);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('"tcsh" is not a shell ctpool completes; use bash, zsh or fish');
		const none = await ctpool(['completion']);
		expect(none.code).toBe(2);
		expect(none.stderr).toContain('missing <shell>');
	});

	it('the hidden pool lookup prints nothing and exits 0 when the cluster cannot be read', async () => {
		const r = await ctpool(['__complete', 'pools', '--kubeconfig', join(dir, 'missing')]);
		expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
	});

	it('the hidden pool lookup lists the pools of the namespace', async () => {
		const r = await ctpool(['__complete', 'pools', '--kubeconfig', c.sim.kubeconfigPath]);
		expect(r).toEqual({ code: 0, stdout: 'desk\nlab\n', stderr: '' });
		const other = await ctpool([
			'__complete',
			'pools',
			'-n',
			'default',
			'--kubeconfig',
			c.sim.kubeconfigPath,
		]);
		expect(other).toEqual({ code: 0, stdout: '', stderr: '' });
	});
});

describe('bash completion', () => {
	it('completes the commands', async () => {
		expect(await bashComplete(['ctpool', 'st'])).toEqual(['status']);
		expect(await bashComplete(['ctpool', 'fi'])).toEqual(['find']);
		expect(await bashComplete(['ctpool', 're'])).toEqual(['reconcile', 'release']);
		expect(await bashComplete(['ctpool', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
	});

	it("completes each command's own flags and the global ones", async () => {
		const status = await bashComplete(['ctpool', 'status', '--']);
		expect(status).toEqual(expect.arrayContaining(['--output', '--namespace', '--kubeconfig']));
		expect(status).not.toContain('--image');
		expect(await bashComplete(['ctpool', 'apply', '--i'])).toEqual([
			'--identity',
			'--image',
			'--init',
		]);
		expect(await bashComplete(['ctpool', '--de'])).toEqual(['--demo']);
		// the console across namespaces, and its bell
		expect(await bashComplete(['ctpool', '--al'])).toEqual(['--all-namespaces']);
		expect(await bashComplete(['ctpool', '--be'])).toEqual(['--bell']);
		expect(await bashComplete(['ctpool', 'find', '--'])).toEqual(
			expect.arrayContaining(['--all-namespaces', '--output', '--namespace']),
		);
		expect(await bashComplete(['ctpool', 'status', '-'])).toContain('-A');
		expect(await bashComplete(['ctpool', 'sim', '--kubeconfig-'])).toEqual(['--kubeconfig-for']);
	});

	it("completes a flag's value, and nothing where no value is known", async () => {
		expect(await bashComplete(['ctpool', 'status', 'desk', '-o', ''])).toEqual([
			'json',
			'table',
			'yaml',
		]);
		expect(await bashComplete(['ctpool', 'apply', 'desk', '--image', ''])).toEqual([]);
		// Past the pool, status takes no more arguments.
		expect(await bashComplete(['ctpool', 'status', 'desk', ''])).toEqual([]);
	});

	it('offers a name from the cluster as one literal word, never running what it holds', async () => {
		// A forged answer (the cluster itself refuses such names): the lookup is replaced.
		const work = mkdtempSync(join(dir, 'hostile-'));
		const hostile = HOSTILE.slice(0, 2).concat('desk');
		const script = `src=$1; shift; source "$src"; _ctpool_pools() { printf '%s\\n' ${hostile.map((h) => `'${h}'`).join(' ')}; }; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; _ctpool; printf "%s\\n" "\${COMPREPLY[@]}"`;
		const offered = await shellLines(
			'bash',
			['--norc', '--noprofile', '-c', script, 'bash', scripts.bash!, 'ctpool', 'status', ''],
			work,
		);
		expect(offered).toEqual([...hostile].sort());
		expect(readdirSync(work)).toEqual([]);
	});

	// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
	// only when the file is run alone before `npm run build`.
	it.skipIf(!built)('completes pool names from the cluster the command line names', async () => {
		const kc = ['--kubeconfig', c.sim.kubeconfigPath];
		expect(await bashComplete(['ctpool', 'status', ...kc, ''])).toEqual(['desk', 'lab']);
		expect(await bashComplete(['ctpool', ...kc, 'release', 'l'])).toEqual(['lab']);
		expect(await bashComplete(['ctpool', ...kc, 'd'])).toEqual(['delete', 'desk']);
		expect(await bashComplete(['ctpool', '-n', 'default', ...kc, 'status', ''])).toEqual([]);
		// An unreachable cluster offers nothing, and prints nothing into the command line.
		expect(
			await bashComplete(['ctpool', 'status', '--kubeconfig', join(dir, 'missing'), '']),
		).toEqual([]);
	});
});

describeShell('fish', 'fish completion', () => {
	it('completes commands and pool names', async () => {
		const complete = async (line: string) =>
			(
				await shellLines('fish', [
					'--no-config',
					'-c',
					`source ${scripts.fish}; complete -C ${JSON.stringify(line)}`,
				])
			).map((l) => l.split('\t')[0]);
		expect(await complete('ctpool st')).toEqual(['status']);
		if (built)
			expect(await complete(`ctpool status --kubeconfig ${c.sim.kubeconfigPath} `)).toEqual([
				'desk',
				'lab',
			]);
	});

	it('offers a name from the cluster as one literal word or not at all, never running what it holds', async () => {
		const { bin, work } = hostileLookup();
		for (const line of ['ctpool status ', 'ctpool ']) {
			const offered = (
				await shellLines(
					'fish',
					['--no-config', '-c', `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`],
					work,
					bin,
				)
			).map((l) => l.split('\t')[0]!);
			expect(offered).toContain('desk');
			for (const o of offered.filter((x) => !/^[a-z][a-z-]*$/.test(x)))
				expect(literalLine(o), `offered ${JSON.stringify(o)}`).toBe(true);
		}
		expect(readdirSync(work)).toEqual([]);
	});
});

describeShell('zsh', 'zsh completion', () => {
	it('offers a name from the cluster as one literal word, never running what it holds', async () => {
		const { bin, work } = hostileLookup();
		const script = `autoload -U compinit && compinit -u; source ${scripts.zsh}; setopt ksharrays; COMP_WORDS=(ctpool status ''); COMP_CWORD=2; _ctpool; print -rl -- "\${COMPREPLY[@]}"`;
		const offered = await shellLines('zsh', ['-f', '-c', script], work, bin);
		expect(offered).toContain('desk');
		for (const o of offered) expect(literalLine(o), `offered ${JSON.stringify(o)}`).toBe(true);
		expect(readdirSync(work)).toEqual([]);
	});

	it('loads through bashcompinit and completes the commands', async () => {
		const script = `autoload -U compinit && compinit -u; source ${scripts.zsh}; setopt ksharrays; COMP_WORDS=(ctpool st); COMP_CWORD=1; _ctpool; print -l -- "\${COMPREPLY[@]}"`;
		expect(await shellLines('zsh', ['-f', '-c', script])).toEqual(['status']);
	});
});
