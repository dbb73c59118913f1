/** The simulated shell on its own: commands, scripts, the tty line discipline, files. */

import { describe, expect, it, vi } from 'vitest';
import { type ShellPod, SimShell } from '../../source/sim/shell.js';
import { PodFiles } from '../../source/sim/shell-files.js';
import { parseCommandLine } from '../../source/sim/shell-parse.js';

const POD: ShellPod = {
	name: 'desk-1',
	namespace: 'corral',
	uid: 'uid-1',
	nodeName: 'node-a',
	podIP: '10.244.0.7',
	image: 'ghcr.io/example/desktop:1',
	env: { GREETING: 'hello there' },
	mounts: ['/data'],
	claimSize: '5Gi',
};

function filesFor(pod: ShellPod = POD): PodFiles {
	return new PodFiles({
		name: pod.name,
		namespace: pod.namespace,
		podIP: pod.podIP,
		mounts: pod.mounts,
		claimName: `${pod.name}-data`,
	});
}

/** The files of a privileged CT: its PVC at /corral-rootfs, seeded by Corral's bootstrap. */
function bootstrappedFiles(pod: ShellPod = PRIVILEGED): PodFiles {
	return new PodFiles({
		name: pod.name,
		namespace: pod.namespace,
		mounts: pod.mounts,
		volumes: {
			'/corral-rootfs': { root: { kind: 'dir', entries: new Map(), mtime: 0 }, fresh: true },
		},
		bootstrap: { rootfs: '/corral-rootfs', marker: '/corral-rootfs/.corral-seeded' },
	});
}

const PRIVILEGED: ShellPod = { ...POD, mounts: ['/corral-rootfs'] };

interface Session {
	shell: SimShell;
	out(): string;
	err(): string;
	type(text: string): void;
	waitOut(text: string): Promise<void>;
}

function session(
	o: { tty?: boolean; files?: PodFiles; pod?: ShellPod; timeScale?: number } = {},
): Session {
	let out = '';
	let err = '';
	const pod = o.pod ?? POD;
	const shell = new SimShell({
		pod,
		files: o.files ?? filesFor(pod),
		tty: o.tty ?? false,
		timeScale: o.timeScale ?? 0.001,
		stdout: (t) => {
			out += t;
		},
		stderr: (t) => {
			err += t;
		},
	});
	return {
		shell,
		out: () => out,
		err: () => err,
		type: (text) => shell.write(Buffer.from(text, 'utf8')),
		waitOut: (text) =>
			vi.waitFor(
				() => {
					if (!out.includes(text))
						throw new Error(`no ${JSON.stringify(text)} in ${JSON.stringify(out)}`);
				},
				{ timeout: 5000, interval: 5 },
			),
	};
}

async function run(argv: string[], o: { files?: PodFiles; pod?: ShellPod } = {}) {
	const s = session(o);
	s.shell.endInput();
	const code = await s.shell.run(argv);
	return { code, out: s.out(), err: s.err() };
}

describe('simulated shell commands', () => {
	it('knows its pod', async () => {
		expect(await run(['hostname'])).toEqual({ code: 0, out: 'desk-1\n', err: '' });
		expect((await run(['hostname', '-i'])).out).toBe('10.244.0.7\n');
		expect((await run(['whoami'])).out).toBe('root\n');
		expect((await run(['id'])).out).toBe('uid=0(root) gid=0(root) groups=0(root)\n');
		expect((await run(['pwd'])).out).toBe('/\n');
		expect((await run(['uname', '-a'])).out).toMatch(
			/^Linux desk-1 6\.8\.0-51-generic #52-Ubuntu .* x86_64 GNU\/Linux\n$/,
		);
		expect((await run(['uname'])).out).toBe('Linux\n');
		expect((await run(['cat', '/etc/hostname'])).out).toBe('desk-1\n');
		expect((await run(['cat', '/etc/os-release'])).out).toContain('PRETTY_NAME=');
		const env = (await run(['env'])).out;
		expect(env).toContain('HOSTNAME=desk-1\n');
		expect(env).toContain('GREETING=hello there\n');
		expect(env).not.toContain('TERM=');
	});

	it('lists and reads the file tree, with /data', async () => {
		const root = (await run(['ls', '/'])).out.split('\n');
		expect(root).toEqual(expect.arrayContaining(['bin', 'data', 'etc', 'root', 'tmp']));
		expect((await run(['ls', '/data'])).out).toBe('README\n');
		expect((await run(['cat', '/data/README'])).out).toContain(
			'data volume of desk-1 (claim desk-1-data)',
		);
		expect((await run(['ls', '-l', '/etc/hostname'])).out).toMatch(
			/^-rw-r--r-- .* \/etc\/hostname\n$/,
		);
		expect(await run(['ls', '/nope'])).toEqual({
			code: 1,
			out: '',
			err: 'ls: /nope: No such file or directory\n',
		});
		expect(await run(['cat', '/nope'])).toEqual({
			code: 1,
			out: '',
			err: "cat: can't open '/nope': No such file or directory\n",
		});
	});

	it('shows the data volume in df', async () => {
		const df = (await run(['df', '-h'])).out;
		expect(df.split('\n')[0]).toMatch(/^Filesystem +Size +Used Available Use% Mounted on$/);
		expect(df).toMatch(/\/dev\/sdb +5\.0G .* \/data\n/);
	});

	it('runs scripts with sh -c: exit codes, $?, && and ||, cd, pipes, redirections', async () => {
		expect((await run(['sh', '-c', 'exit 3'])).code).toBe(3);
		expect((await run(['sh', '-c', 'exit 300'])).code).toBe(44);
		expect((await run(['sh', '-c', 'false; echo $?'])).out).toBe('1\n');
		expect((await run(['sh', '-c', 'true && echo yes || echo no'])).out).toBe('yes\n');
		expect((await run(['sh', '-c', 'false && echo yes || echo no'])).out).toBe('no\n');
		expect((await run(['sh', '-c', 'cd /data && pwd; cd /nope'])).err).toBe(
			"sh: cd: can't cd to /nope: No such file or directory\n",
		);
		expect((await run(['sh', '-c', 'cat /etc/os-release | grep -c NAME'])).out).toBe('2\n');
		expect((await run(['sh', '-c', 'echo "$GREETING, $HOSTNAME"'])).out).toBe(
			'hello there, desk-1\n',
		);
		expect((await run(['sh', '-c', "echo '$HOSTNAME'"])).out).toBe('$HOSTNAME\n');
		expect((await run(['sh', '-c', 'X=1; echo $X'])).out).toBe('1\n');
		const both = await run(['sh', '-c', 'echo out; echo oops >&2; nope 2>/dev/null; echo $?']);
		expect(both).toEqual({ code: 0, out: 'out\n127\n', err: 'oops\n' });
		expect((await run(['bash', '-c', 'exit 7'])).code).toBe(7);
	});

	it('reports unknown commands and syntax errors like sh', async () => {
		expect(await run(['sh', '-c', 'frobnicate --now'])).toEqual({
			code: 127,
			out: '',
			err: 'sh: frobnicate: not found\n',
		});
		const bad = await run(['sh', '-c', "echo 'open"]);
		expect(bad.code).toBe(2);
		expect(bad.err).toBe('sh: syntax error: unterminated quoted string\n');
	});

	it('knows which programs exist for exec', () => {
		const s = session();
		expect(s.shell.canStart('hostname')).toBe(true);
		expect(s.shell.canStart('/bin/sh')).toBe(true);
		expect(s.shell.canStart('/usr/bin/env')).toBe(true);
		expect(s.shell.canStart('frobnicate')).toBe(false);
		expect(s.shell.canStart('cd')).toBe(false);
	});

	it('keeps files between sessions of the same pod', async () => {
		const files = filesFor();
		await run(['sh', '-c', 'echo notes > /data/notes.txt; echo more >> /data/notes.txt'], {
			files,
		});
		expect((await run(['cat', '/data/notes.txt'], { files })).out).toBe('notes\nmore\n');
		expect((await run(['ls', '/data'], { files })).out).toBe('README\nnotes.txt\n');
		expect((await run(['cat', '/data/notes.txt'])).code).toBe(1);
	});

	it('runs chroot into a mounted root file system as the same shell, seeing only the new root', async () => {
		const pod = PRIVILEGED;
		const files = bootstrappedFiles(pod);
		const r = await run(
			['chroot', '/corral-rootfs', '/bin/sh', '-c', 'hostname; ls -a /; pwd; exit 4'],
			{ pod, files },
		);
		expect(r.code).toBe(4);
		expect(r.err).toBe('');
		expect(r.out).toMatch(/^desk-1\n/);
		expect(r.out).toContain('.corral-seeded');
		// The outer root is out of sight: a file written there after the seed is not inside.
		await run(['sh', '-c', 'echo outer > /outer'], { pod, files });
		expect((await run(['cat', '/outer'], { pod, files })).out).toBe('outer\n');
		const inside = await run(
			['chroot', '/corral-rootfs', '/bin/sh', '-c', 'ls /outer; cat /outer'],
			{
				pod,
				files,
			},
		);
		expect(inside).toMatchObject({ code: 1, out: '' });
		const missing = await run(['chroot', '/nowhere', 'true']);
		expect(missing.code).toBe(125);
		// An empty root has no shell to run.
		// (/tmp here is the simulated container's own empty directory, not the host's)
		const empty = await run(['chroot', '/tmp', '/bin/sh'], { pod });
		expect(empty).toMatchObject({
			code: 127,
			err: "chroot: can't execute '/bin/sh': No such file or directory\n",
		});
	});

	it('scales sleep with timeScale', async () => {
		// 100 s at timeScale 0.001 is 100 ms.
		const r = await run(['sleep', '100']);
		expect(r.code).toBe(0);
		expect((await run(['sleep', 'soon'])).code).toBe(1);
	});

	it('reads commands from stdin without a tty and ends with the last status', async () => {
		const s = session();
		const done = s.shell.run(['sh']);
		s.type('echo a\n');
		s.type('false\n');
		s.shell.endInput();
		expect(await done).toBe(1);
		expect(s.out()).toBe('a\n');
	});
});

describe('simulated shell with a tty', () => {
	it('prompts, echoes what is typed, edits the line, and exits with the given code', async () => {
		const s = session({ tty: true });
		const done = s.shell.run(['sh']);
		await s.waitOut('desk-1:/# ');
		s.type('hostnamx\x7fe\r');
		await s.waitOut('desk-1\r\n');
		expect(s.out()).toBe('desk-1:/# hostnamx\b \be\r\ndesk-1\r\ndesk-1:/# ');
		s.type('cd /data\r');
		await s.waitOut('desk-1:/data# ');
		s.type('exit 5\r');
		expect(await done).toBe(5);
	});

	it('cancels the line on Ctrl-C and interrupts a running command', async () => {
		const s = session({ tty: true });
		const done = s.shell.run(['sh']);
		await s.waitOut('# ');
		s.type('echo never\x03');
		await s.waitOut('^C\r\n');
		s.type('sleep infinity\r');
		await s.waitOut('sleep infinity\r\n');
		s.type('\x03');
		await vi.waitFor(() => expect(s.out().match(/desk-1:\/# /g)?.length).toBe(3), {
			timeout: 5000,
		});
		s.type('echo $?\r');
		await s.waitOut('130\r\n');
		expect(s.out()).not.toContain('never\r\n');
		s.type('\x04');
		expect(await done).toBe(0);
		expect(s.out().endsWith('exit\r\n')).toBe(true);
	});

	it('answers stty size after a resize', async () => {
		const s = session({ tty: true });
		s.shell.resize(100, 30);
		const done = s.shell.run(['sh']);
		s.type('stty size\r');
		await s.waitOut('30 100\r\n');
		s.shell.resize(120, 40);
		s.type('stty size\r');
		await s.waitOut('40 120\r\n');
		s.type('exit\r');
		expect(await done).toBe(0);
	});

	it('treats bash as a nested shell of the same session', async () => {
		const s = session({ tty: true });
		const done = s.shell.run(['sh']);
		s.type('bash\r');
		s.type('exit 2\r');
		s.type('echo $?\r');
		await s.waitOut('2\r\n');
		s.type('exit\r');
		expect(await done).toBe(0);
	});

	it('opens the privileged console command as an interactive shell', async () => {
		const pod = PRIVILEGED;
		const s = session({ tty: true, pod, files: bootstrappedFiles(pod) });
		const done = s.shell.run([
			'chroot',
			'/corral-rootfs',
			'/bin/sh',
			'-c',
			'exec bash 2>/dev/null || exec sh',
		]);
		await s.waitOut('desk-1:/# ');
		s.type('whoami\r');
		await s.waitOut('root\r\n');
		s.type('exit 6\r');
		expect(await done).toBe(6);
	});

	it('swallows arrow keys', async () => {
		const s = session({ tty: true });
		const done = s.shell.run(['sh']);
		s.type('\x1b[Aecho ok\x1b[D\r');
		await s.waitOut('ok\r\n');
		s.type('exit\r');
		expect(await done).toBe(0);
	});
});

describe('command-line parser', () => {
	it('splits lists, pipelines and redirections', () => {
		const list = parseCommandLine('a 1 && b | c > f 2>&1; d');
		expect(list.items.map((i) => i.connector)).toEqual([';', '&&', ';']);
		expect(list.items[1]?.pipeline).toHaveLength(2);
		expect(list.items[1]?.pipeline[1]?.redirects.map((r) => [r.fd, r.op])).toEqual([
			[1, '>'],
			[2, 'dup'],
		]);
	});

	it('rejects a dangling operator', () => {
		expect(() => parseCommandLine('a &&')).toThrow('syntax error');
		expect(() => parseCommandLine('| a')).toThrow('syntax error');
	});
});
