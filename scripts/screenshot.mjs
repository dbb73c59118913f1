#!/usr/bin/env node
/**
 * The README's screenshots, made from real runs: each scene starts the built `ctpool`
 * (`npm run build` first) in a pseudo-terminal, presses its keys, waits for what they
 * should bring on screen (a condition on the screen's text, never a fixed sleep), and
 * draws the terminal's cells, with their colours, as an SVG: media/<scene>-<cols>x<rows>.svg.
 *
 *   npm run screenshots                          # every scene at 80x24 and 120x40
 *   node scripts/screenshot.mjs --scene find     # one scene (repeatable)
 *   node scripts/screenshot.mjs --size 80x24     # one size (repeatable)
 *   node scripts/screenshot.mjs --list           # the scenes and what each shows
 *
 * A scene starts either `ctpool --demo` (its own in-process cluster) or ctpool against one
 * simulated cluster the script starts for every such scene: `ctpool sim --demo` (pool desk
 * and its users in corral-vms) plus pool lab in corral-vms and pools desk and render in
 * team-a, with claims held, two of them expired, a forced release by another identity and
 * a pool too big for its nodes. A scene whose feature this build does not have fails
 * saying so, and the other scenes still run; the exit code is 1 when any scene failed.
 *
 * Nothing machine-specific may reach a frame: the consoles act as admin@example.com, every
 * ctpool reports host jumphost in its Events, the demo's kubeconfig lives under /tmp, and a
 * frame that shows this checkout's path, the home directory or this host is refused. With
 * rsvg-convert on the PATH a PNG is written beside each SVG.
 */

import { spawn as spawnChild, spawnSync } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { homedir, hostname, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
const { values } = parseArgs({
	options: {
		scene: { type: 'string', multiple: true, default: [] },
		size: { type: 'string', multiple: true, default: [] },
		'out-dir': { type: 'string', default: join(root, 'media') },
		'timeout-ms': { type: 'string', default: '90000' },
		list: { type: 'boolean', default: false },
	},
});
const timeoutMs = Number(values['timeout-ms']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The 16 ANSI colours (a dark theme) and the 256-colour cube.
const ANSI = [
	'#1e1e2e',
	'#f38ba8',
	'#a6e3a1',
	'#f9e2af',
	'#89b4fa',
	'#f5c2e7',
	'#94e2d5',
	'#bac2de',
	'#7f849c',
	'#f38ba8',
	'#a6e3a1',
	'#f9e2af',
	'#89b4fa',
	'#f5c2e7',
	'#94e2d5',
	'#a6adc8',
];
const BACKGROUND = '#1e1e2e';
const FOREGROUND = '#cdd6f4';

function palette(i) {
	if (i < 16) return ANSI[i];
	if (i < 232) {
		const n = i - 16;
		const v = (x) => (x === 0 ? 0 : 55 + x * 40);
		return `rgb(${v(Math.floor(n / 36))},${v(Math.floor(n / 6) % 6)},${v(n % 6)})`;
	}
	const g = 8 + (i - 232) * 10;
	return `rgb(${g},${g},${g})`;
}

function colour(cell, which) {
	const isDefault = which === 'fg' ? cell.isFgDefault() : cell.isBgDefault();
	if (isDefault) return null;
	const value = which === 'fg' ? cell.getFgColor() : cell.getBgColor();
	const rgb = which === 'fg' ? cell.isFgRGB() : cell.isBgRGB();
	if (rgb) return `#${value.toString(16).padStart(6, '0')}`;
	return palette(value);
}

function escapeXml(s) {
	return s.replace(
		/[&<>"]/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
	);
}

/** The terminal's visible cells as an SVG, in a window titled with the command. */
function toSvg(term, cols, rows, title) {
	const cw = 8.4;
	const lh = 18;
	const pad = 14;
	const width = Math.ceil(cols * cw + pad * 2);
	const height = Math.ceil(rows * lh + pad * 2 + 22);
	const top = pad + 22;
	const parts = [];
	parts.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
		`<rect width="100%" height="100%" rx="8" fill="${BACKGROUND}"/>`,
		'<circle cx="20" cy="16" r="5" fill="#f38ba8"/><circle cx="38" cy="16" r="5" fill="#f9e2af"/><circle cx="56" cy="16" r="5" fill="#a6e3a1"/>',
		`<text x="${width / 2}" y="20" fill="#7f849c" font-family="DejaVu Sans, sans-serif" font-size="12" text-anchor="middle">${escapeXml(title)}</text>`,
		`<g font-family="'DejaVu Sans Mono', 'SFMono-Regular', Menlo, Consolas, monospace" font-size="14" xml:space="preserve">`,
	);
	const buf = term.buffer.active;
	for (let y = 0; y < rows; y++) {
		const line = buf.getLine(buf.viewportY + y);
		if (!line) continue;
		let x = 0;
		while (x < cols) {
			const cell = line.getCell(x);
			if (!cell) break;
			const w = cell.getWidth();
			if (w === 0) {
				x++;
				continue;
			}
			let fg = colour(cell, 'fg') ?? FOREGROUND;
			let bg = colour(cell, 'bg');
			if (cell.isInverse()) {
				const f = fg;
				fg = bg ?? BACKGROUND;
				bg = f;
			}
			const bold = cell.isBold() !== 0;
			const dim = cell.isDim() !== 0;
			// a run of cells in the same style
			let text = cell.getChars() || ' ';
			let span = w;
			let nx = x + w;
			while (nx < cols) {
				const c = line.getCell(nx);
				if (c?.getWidth() !== 1) break;
				let cfg = colour(c, 'fg') ?? FOREGROUND;
				let cbg = colour(c, 'bg');
				if (c.isInverse()) {
					const f = cfg;
					cfg = cbg ?? BACKGROUND;
					cbg = f;
				}
				if (
					cfg !== fg ||
					cbg !== bg ||
					(c.isBold() !== 0) !== bold ||
					(c.isDim() !== 0) !== dim ||
					w !== 1
				)
					break;
				text += c.getChars() || ' ';
				span++;
				nx++;
			}
			const px = pad + x * cw;
			const py = top + y * lh;
			if (bg)
				parts.push(
					`<rect x="${px.toFixed(1)}" y="${py - 13}" width="${(span * cw).toFixed(1)}" height="${lh}" fill="${bg}"/>`,
				);
			if (text.trim() !== '')
				parts.push(
					`<text x="${px.toFixed(1)}" y="${py}" fill="${fg}"${bold ? ' font-weight="bold"' : ''}${dim ? ' opacity="0.6"' : ''} textLength="${(span * cw).toFixed(1)}" lengthAdjust="spacingAndGlyphs">${escapeXml(text)}</text>`,
				);
			x = nx;
		}
	}
	parts.push('</g></svg>');
	return `${parts.join('\n')}\n`;
}

// Every ctpool child: colour on, no CI switches, a neutral temp dir and acting identity.
const tmp = existsSync('/tmp') ? '/tmp' : tmpdir();
const env = {};
for (const [k, v] of Object.entries(process.env)) {
	if (k === 'CI' || k.startsWith('CI_') || k === 'CONTINUOUS_INTEGRATION' || k === 'NO_COLOR')
		continue;
	if (k === 'KUBECONFIG' || k === 'CORRAL_NAMESPACE' || k === 'CTPOOL_IDENTITY') continue;
	env[k] = v;
}
Object.assign(env, {
	TERM: 'xterm-256color',
	COLORTERM: 'truecolor',
	FORCE_COLOR: '3',
	TMPDIR: tmp,
	CTPOOL_IDENTITY: 'admin@example.com',
	// ctpool's Events name the host they came from (the audit shows it): a neutral one
	NODE_OPTIONS: [
		process.env.NODE_OPTIONS ?? '',
		`--import=data:text/javascript,${encodeURIComponent(
			"import os from 'node:os'; import m from 'node:module'; os.hostname = () => 'jumphost'; m.syncBuiltinESMExports();",
		)}`,
	]
		.join(' ')
		.trim(),
});

/** Strings that must never be in a frame: this checkout, the home directory, this host. */
const FORBIDDEN = [
	root,
	process.cwd(),
	homedir(),
	`${userInfo().username}@${hostname()}`,
	`from ${hostname()}`,
].filter((s) => s.length > 1 && s !== '/' && s !== tmp);

/** What this build can do: `ctpool --help` and the bundle's text, read once. */
let built = null;
function build() {
	if (built) return built;
	if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
	const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8', env }).stdout;
	const chunks = join(root, 'dist', 'chunks');
	const files = [cli, ...readdirSync(chunks).map((f) => join(chunks, f))];
	const bundle = files
		.filter((f) => /\.m?js$/.test(f))
		.map((f) => readFileSync(f, 'utf8'))
		.join('\n');
	built = { help, bundle };
	return built;
}

/** Runs the CLI against a kubeconfig; its stdout, or an error with its stderr. */
function ctl(kubeconfig, ...args) {
	const r = spawnSync(process.execPath, [cli, ...args], {
		encoding: 'utf8',
		env: { ...env, KUBECONFIG: kubeconfig },
	});
	if (r.status !== 0) throw new Error(`ctpool ${args.join(' ')}: ${r.stderr.trim()}`);
	return r.stdout;
}

/** Waits until test() holds, checking every 100 ms; throws with the last state on timeout. */
async function until(test, what, state = () => '') {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await test()) return;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}\n${state()}`);
		await sleep(100);
	}
}

/**
 * The simulated cluster of the scenes that need one, started once: `ctpool sim --demo` (pool
 * desk of corral-vms and its users), pool lab in corral-vms (claims by erin, frank and grace,
 * erin's and frank's two hours old so expired; ivan's released --force by nightshift), and
 * in team-a pool desk (bob and heidi) and pool render (each member wants 6 of a node's 8 CPU).
 */
let cluster = null;
/** The started cluster, to stop at the end even when its setup failed. */
let started = null;
function simCluster() {
	cluster ??= startCluster();
	return cluster;
}

async function startCluster() {
	const dir = mkdtempSync(join(tmp, 'ctpool-screens-'));
	const kubeconfig = join(dir, 'kubeconfig');
	const child = spawnChild(
		process.execPath,
		[
			cli,
			'sim',
			'--demo',
			'--kubeconfig',
			kubeconfig,
			// creates namespace team-a (the account itself is not used)
			'--kubeconfig-for',
			`team-a/viewer=${join(dir, 'team-a.kubeconfig')}`,
		],
		{ stdio: ['ignore', 'pipe', 'pipe'], env },
	);
	let out = '';
	let code = null;
	child.stdout.on('data', (d) => {
		out += d;
	});
	child.stderr.on('data', (d) => {
		out += d;
	});
	child.on('exit', (c) => {
		code = c ?? 1;
	});
	const c = {
		kubeconfig,
		/** Whether two claims of lab could be aged (kubectl is needed for that). */
		expired: false,
		async stop() {
			if (code === null) child.kill('SIGINT');
			await until(() => code !== null, 'the simulated cluster to stop').catch(() =>
				child.kill('SIGKILL'),
			);
			rmSync(dir, { recursive: true, force: true });
		},
	};
	started = c;
	await until(
		() => {
			if (code !== null) throw new Error(`ctpool sim exited (${code}):\n${out}`);
			return out.includes('Press Ctrl-C to stop.');
		},
		'the simulated cluster',
		() => out,
	);
	const image = ['--image', 'ghcr.io/example/desktop:1', '--cpu', '1', '--mem', '2Gi'];
	ctl(kubeconfig, 'apply', 'lab', ...image, '--size', '4');
	ctl(kubeconfig, 'apply', 'desk', ...image, '--size', '3', '-n', 'team-a');
	ctl(
		kubeconfig,
		'apply',
		'render',
		'--image',
		'ghcr.io/example/render:3',
		'--cpu',
		'6',
		'--mem',
		'8Gi',
		'--size',
		'2',
		'-n',
		'team-a',
	);
	const held = {};
	for (const who of ['erin', 'frank', 'grace', 'ivan']) {
		const member = /lab-\d+/.exec(ctl(kubeconfig, 'claim', 'lab', `${who}@example.com`))?.[0];
		if (!member) throw new Error(`claim lab ${who}@example.com printed no member`);
		held[who] = member;
	}
	ctl(kubeconfig, 'claim', 'desk', 'bob@example.com', '-n', 'team-a');
	ctl(kubeconfig, 'claim', 'desk', 'heidi@example.com', '-n', 'team-a');
	ctl(
		kubeconfig,
		'release',
		'lab',
		held.ivan,
		'nightshift@example.com',
		'--force',
		'--identity',
		'nightshift@example.com',
	);
	// A claim lasts an hour: two claims renewed two hours ago have expired.
	const old = new Date(Date.now() - 2 * 3_600_000).toISOString().replace(/Z$/, '000Z');
	c.expired = ['erin', 'frank'].every(
		(who) =>
			spawnSync(
				'kubectl',
				[
					'--kubeconfig',
					kubeconfig,
					'patch',
					'lease',
					`corral-vdi-ct-${held[who]}`,
					'--type',
					'merge',
					'-p',
					JSON.stringify({ spec: { acquireTime: old, renewTime: old } }),
				],
				{ encoding: 'utf8', env },
			).status === 0,
	);
	return c;
}

/** A ctpool console in a pseudo-terminal of the given size, read through a headless xterm. */
function open(args, { cols, rows, kubeconfig }) {
	const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
	const pty = spawn(process.execPath, [cli, ...args], {
		name: 'xterm-256color',
		cols,
		rows,
		cwd: tmp,
		env: kubeconfig ? { ...env, KUBECONFIG: kubeconfig } : env,
	});
	let exited = false;
	pty.onExit(() => {
		exited = true;
	});
	let written = Promise.resolve();
	pty.onData((d) => {
		written = new Promise((r) => term.write(d, r));
	});
	const screen = () => {
		const buf = term.buffer.active;
		const out = [];
		for (let y = 0; y < rows; y++)
			out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
		return out.join('\n');
	};
	return {
		term,
		screen,
		/** Waits until the screen passes test (a RegExp or a function of the screen's text). */
		async wait(test, what) {
			const ok = typeof test === 'function' ? test : (s) => test.test(s);
			await until(
				async () => {
					await written;
					if (ok(screen())) return true;
					if (exited) throw new Error(`ctpool exited before ${what}:\n${screen()}`);
					return false;
				},
				what,
				() => `the screen:\n${screen()}`,
			);
		},
		/** Presses keys one at a time, at a typist's pace. */
		async keys(...keys) {
			for (const k of keys) {
				pty.write(k);
				await sleep(60);
			}
		},
		async close() {
			for (const k of ['\u001b', '\u001b', 'q']) {
				if (exited) break;
				pty.write(k);
				await sleep(150);
			}
			await until(() => exited, 'ctpool to quit').catch(() => pty.kill());
		},
	};
}

/** The rows of the screen that show a member of pool (name-N), in screen order. */
function memberRows(screen, pool) {
	const re = new RegExp(`(^|\\s)${pool}-\\d+\\b`);
	return screen.split('\n').filter((l) => re.test(l));
}

/** Moves the selection from the first of rows (the lines isRow picks) to the first that matches. */
async function select(s, isRow, match, what) {
	const rows = s
		.screen()
		.split('\n')
		.filter((l) => isRow(l));
	const i = rows.findIndex((l) => match.test(l));
	if (i < 0) throw new Error(`no ${what} on screen:\n${s.screen()}`);
	await s.keys(...Array(i).fill('j'));
}

/** A member row of pool. */
const memberOf = (pool) => (line) => memberRows(line, pool).length > 0;

const hasAll = (help) => help.includes('--all-namespaces');

/**
 * The scenes: how each starts (the demo, or arguments against the simulated cluster), what
 * its build must have, and the keys it presses with what each must bring on screen.
 */
const SCENES = [
	{
		name: 'members',
		title: 'ctpool --demo',
		shows:
			'the demo pool live: users holding desktops, a member being made again, the activity log',
		args: ['--demo'],
		async run(s) {
			await s.wait((t) => /desk-6\s+\S/.test(t) && t.includes('● live'), 'the demo pool');
			await s.keys('l');
			await s.wait((t) => {
				const rows = memberRows(t, 'desk');
				return (
					rows.filter((l) => /@example\./.test(l)).length >= 3 &&
					rows.some((l) => /Starting|Failed|Terminating|Missing/.test(l)) &&
					/release desk-\d ✓/.test(t)
				);
			}, 'three users holding desktops, a member being replaced, and a release in the log');
		},
	},
	{
		name: 'pools-all-namespaces',
		title: 'ctpool -A',
		shows: 'the pools of every namespace, with their NAMESPACE',
		args: ['-A'],
		sim: true,
		needs: { what: 'ctpool -A', test: ({ help }) => hasAll(help) },
		async run(s) {
			await poolsShown(s);
		},
	},
	{
		name: 'find',
		title: 'ctpool -A, then /bob',
		shows: "bob's desktops in every pool",
		args: ['-A'],
		sim: true,
		needs: { what: 'ctpool -A and find on the pools screen', test: ({ help }) => hasAll(help) },
		async run(s) {
			await poolsShown(s);
			await s.keys('/', 'b', 'o', 'b');
			await s.wait(/find bob: [2-9]\d* hits/, "bob's desktops in both namespaces");
		},
	},
	{
		name: 'audit',
		title: 'ctpool, then e and /pool:lab',
		shows: "who did what, from the cluster's Events (a forced release by the CLI)",
		args: [],
		sim: true,
		needs: { what: 'the audit view (e)', test: ({ bundle }) => bundle.includes('Events kept') },
		async run(s) {
			await s.wait((t) => /\blab\b/.test(t) && /\bdesk\b/.test(t), 'the pools of corral-vms');
			await s.keys('e');
			await s.wait((t) => t.includes('Events kept'), 'the audit');
			// lab's lines only (the demo users of desk keep adding theirs), the forced release
			// selected: its line is shown whole under the table
			await s.keys('/', ...'pool:lab', '\r');
			await s.wait(
				(t) => /lines matching pool:lab/.test(t) && t.includes('release --force'),
				"the audit filtered to lab's lines, with nightshift's forced release",
			);
			await select(s, (l) => /^\d+[smhd]\s/.test(l), /release --force/, 'forced release');
			await s.wait(
				/released lab-\d+ from ivan@example\.com by\s+nightshift@example\.com \(--force[,)]/,
				'the forced release whole',
			);
		},
	},
	{
		name: 'details',
		title: 'ctpool render -n team-a, then Enter',
		shows: 'the details of an Unschedulable member, with what to do now',
		args: ['render', '-n', 'team-a'],
		sim: true,
		needs: {
			what: 'the "what to do now" hints',
			test: ({ bundle }) => bundle.includes('the roomiest node'),
		},
		async run(s) {
			await s.wait(
				(t) => memberRows(t, 'render').some((l) => l.includes('Unschedulable')),
				'an Unschedulable member',
			);
			await select(s, memberOf('render'), /Unschedulable/, 'Unschedulable member');
			await s.keys('\r');
			await s.wait(/the roomiest node/, 'the hint of the Unschedulable member');
		},
	},
	{
		name: 'marks',
		title: 'ctpool lab, then * Space x',
		shows:
			'* marks the expired claims, Space one more, x force-releases them after one confirmation',
		args: ['lab'],
		sim: true,
		needs: {
			what: 'marks and bulk force-release (Space, *, x)',
			test: ({ bundle }) => bundle.includes('x force-releases every mark'),
		},
		async run(s, _size, c) {
			if (!c.expired) throw new Error('kubectl is needed to make two claims expire');
			await s.wait(
				(t) => memberRows(t, 'lab').filter((l) => /expired/i.test(l)).length >= 2,
				'two expired claims',
			);
			await s.keys('*');
			await s.wait(/marked 2 members whose claim expired/, 'the two expired claims marked');
			await select(s, memberOf('lab'), /grace@/, "grace's desktop");
			await s.keys(' ', 'x');
			await s.wait(/Force-release 3 marked members of lab/, 'the confirmation of three');
		},
	},
	{
		name: 'trace',
		title: 'ctpool desk -n team-a, a new image, then r and t',
		shows:
			"the reconcile's plan: the drifted member replaced step by step, the claimed ones left alone and why, then other reconcilers' passes seen through Events",
		args: ['desk', '-n', 'team-a'],
		sim: true,
		needs: {
			what: 'the trace view (t)',
			test: ({ bundle }) => bundle.includes('last plan of this console'),
		},
		async run(s, _size, c) {
			await s.wait(
				(t) => memberRows(t, 'desk').filter((l) => /Ready/.test(l)).length >= 3,
				'the three members of desk Ready',
			);
			const image = changeImage(c.kubeconfig, 'desk', 'team-a');
			await s.wait((t) => /drift|Drifted|⚠/.test(t), `desk drifted to ${image}`);
			await s.keys('r');
			await s.keys('t');
			await s.wait(
				(t) => t.includes('Trace · pool desk') && /claimed/.test(t) && /✓/.test(t),
				'the plan with the replaced member done and the claimed ones left alone',
			);
		},
	},
	{
		name: 'narrate',
		title: 'ctpool --demo --narrate, n up to the drift, then Space',
		shows:
			'the narrated demo: the sentence of a drifted member being rebuilt, in the pane beside (or below) the table, paused',
		args: ['--demo', '--narrate'],
		needs: {
			what: 'the narration pane (ctpool --demo --narrate)',
			test: ({ bundle }) => bundle.includes('Space pauses, n next'),
		},
		async run(s) {
			await s.wait((t) => /desk-6\s+\S/.test(t) && t.includes('── narration'), 'the narrated demo');
			// n tells the next sentence at once: on to the first drifted member's
			let pressed = 0;
			await s.wait((t) => {
				if (DRIFT_TOLD.test(narrationText(t))) return true;
				if (Date.now() - pressed > 800) {
					pressed = Date.now();
					void s.keys('n');
				}
				return false;
			}, 'the sentence of a drifted member');
			await s.keys(' ');
			await s.wait(
				(t) => /── narration · ⏸ paused/.test(t) && DRIFT_TOLD.test(narrationText(t)),
				'the narration paused on the drift',
			);
		},
	},
];

/** The pane's current sentence about a drifted member (first after the title). */
const DRIFT_TOLD = /^── narration[^\n]*?──\s+desk-\d drifted \(image :1 → :2\) and is unclaimed/;

/**
 * The narration pane's text: from its title on, each line from the title's column (the pane
 * stands beside the table on a wide terminal), joined with spaces.
 */
function narrationText(screen) {
	const rows = screen.split('\n');
	const at = rows.findIndex((l) => l.includes('── narration'));
	if (at < 0) return '';
	const col = rows[at].indexOf('── narration');
	return rows
		.slice(at)
		.map((l) => l.slice(col).trimEnd())
		.join(' ');
}

/**
 * Changes the image of a pool's definition straight in its ConfigMap, as an edit by another
 * admin would (no reconcile follows): the next image tag each time. Returns the new image.
 */
function changeImage(kubeconfig, pool, namespace) {
	const args = ['--kubeconfig', kubeconfig, '-n', namespace];
	const cm = `corral-vdi-ctpool-${pool}`;
	const got = spawnSync(
		'kubectl',
		[...args, 'get', 'configmap', cm, '-o', 'jsonpath={.data.spec}'],
		{
			encoding: 'utf8',
			env,
		},
	);
	if (got.status !== 0) throw new Error(`kubectl is needed to change the image: ${got.stderr}`);
	const spec = JSON.parse(got.stdout);
	const tag = Number(/:(\d+)$/.exec(spec.image)?.[1] ?? 1);
	spec.image = spec.image.replace(/:\d+$/, `:${tag + 1}`);
	const patch = JSON.stringify({ data: { spec: JSON.stringify(spec) } });
	const put = spawnSync(
		'kubectl',
		[...args, 'patch', 'configmap', cm, '--type', 'merge', '-p', patch],
		{
			encoding: 'utf8',
			env,
		},
	);
	if (put.status !== 0) throw new Error(`kubectl patch of ${cm} failed: ${put.stderr}`);
	return spec.image;
}

/** Waits until the -A pools screen lists the four pools in two namespaces. */
async function poolsShown(s) {
	await s.wait(
		(t) =>
			t.includes('all namespaces') &&
			/\brender\b/.test(t) &&
			/\blab\b/.test(t) &&
			(t.match(/\bdesk\b/g) ?? []).length >= 2 &&
			!t.includes('…'),
		'the four pools of corral-vms and team-a',
	);
}

/**
 * Writes the screen as it is when the scene's last wait passed, as an SVG (and a PNG beside
 * it when rsvg-convert is installed); a frame showing a machine path or this host is refused.
 */
function capture(s, scene, size) {
	const text = s.screen();
	const leak = FORBIDDEN.find((f) => text.includes(f));
	if (leak) throw new Error(`the frame shows a machine path or identity (${leak}):\n${text}`);
	const out = join(values['out-dir'], `${scene.name}-${size.cols}x${size.rows}.svg`);
	mkdirSync(dirname(out), { recursive: true });
	writeFileSync(out, toSvg(s.term, size.cols, size.rows, scene.title));
	process.stdout.write(`${text}\n\nwrote ${out}\n`);
	if (rsvg) {
		const png = out.replace(/\.svg$/, '.png');
		const r = spawnSync('rsvg-convert', ['--zoom', '1.5', out, '-o', png], { stdio: 'inherit' });
		if (r.status === 0) process.stdout.write(`wrote ${png}\n`);
	}
}

if (values.list) {
	for (const s of SCENES) process.stdout.write(`${s.name.padEnd(22)} ${s.title}: ${s.shows}\n`);
	process.exit(0);
}
const unknown = values.scene.filter((n) => !SCENES.some((s) => s.name === n));
if (unknown.length > 0) {
	process.stderr.write(
		`unknown scene ${unknown.join(', ')}; the scenes are ${SCENES.map((s) => s.name).join(', ')}\n`,
	);
	process.exit(2);
}
const sizes = (values.size.length > 0 ? values.size : ['80x24', '120x40']).map((v) => {
	const m = /^(\d+)x(\d+)$/.exec(v);
	if (!m) {
		process.stderr.write(`--size ${v}: give COLSxROWS, such as 80x24\n`);
		process.exit(2);
	}
	return { cols: Number(m[1]), rows: Number(m[2]) };
});
const rsvg = spawnSync('rsvg-convert', ['--version']).status === 0;
if (!rsvg) process.stdout.write('no PNGs: rsvg-convert is not installed (the SVGs are made)\n');

const failed = [];
try {
	const b = build();
	for (const scene of SCENES) {
		if (values.scene.length > 0 && !values.scene.includes(scene.name)) continue;
		if (scene.needs && !scene.needs.test(b)) {
			failed.push(`${scene.name}: this build has no ${scene.needs.what} (not merged yet?)`);
			continue;
		}
		for (const size of sizes) {
			const label = `${scene.name} ${size.cols}x${size.rows}`;
			process.stdout.write(`\n== ${label}: ${scene.shows}\n`);
			let s = null;
			try {
				const c = scene.sim ? await simCluster() : null;
				s = open(scene.args, { ...size, kubeconfig: c?.kubeconfig });
				await scene.run(s, size, c);
				capture(s, scene, size);
			} catch (err) {
				failed.push(`${label}: ${err.message.split('\n')[0]}`);
				process.stdout.write(`FAILED ${label}: ${err.message}\n`);
			} finally {
				await s?.close();
			}
		}
	}
} catch (err) {
	failed.push(err.message);
} finally {
	await cluster?.catch(() => null);
	await started?.stop();
}
if (failed.length > 0) {
	process.stderr.write(`\n${failed.length} failed:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
	process.exit(1);
}
process.exit(0);
