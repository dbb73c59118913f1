#!/usr/bin/env node
/**
 * Makes media/members.svg: runs `ctpool --demo` (the built binary) in a pseudo-terminal,
 * waits until the demo pool is lively (users holding desktops, the activity log filling),
 * and draws the terminal's cells, with their colours, as an SVG. A real run, not a drawing.
 *
 *   npm run build && node scripts/screenshot.mjs [--out media/members.svg] [--cols 110] [--rows 32]
 *
 * `--scene across` instead runs `ctpool sim --demo` with two more pools in two more
 * namespaces, opens `ctpool -A` on it and writes media/pools-all-namespaces.svg (the pools
 * screen with its NAMESPACE column) and media/find.svg (`/bob` on that screen).
 *
 * With rsvg-convert on the PATH it also writes the PNG beside the SVG.
 */

import { spawn as spawnChild, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
	options: {
		out: { type: 'string', default: join(root, 'media', 'members.svg') },
		cols: { type: 'string', default: '110' },
		rows: { type: 'string', default: '32' },
		'timeout-ms': { type: 'string', default: '120000' },
		scene: { type: 'string', default: 'members' },
	},
});
const across = values.scene === 'across';
if (!['members', 'across'].includes(values.scene)) {
	process.stderr.write(`--scene ${values.scene}: the scenes are members and across\n`);
	process.exit(2);
}
const cols = Number(values.cols);
const rows = Number(values.rows);

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

/** The terminal's visible cells as an SVG. */
function toSvg(term) {
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
		`<text x="${width / 2}" y="20" fill="#7f849c" font-family="DejaVu Sans, sans-serif" font-size="12" text-anchor="middle">${across ? 'ctpool -A' : 'ctpool --demo'}</text>`,
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

const env = {};
for (const [k, v] of Object.entries(process.env)) {
	if (k === 'CI' || k.startsWith('CI_') || k === 'CONTINUOUS_INTEGRATION' || k === 'NO_COLOR')
		continue;
	env[k] = v;
}
Object.assign(env, { TERM: 'xterm-256color', COLORTERM: 'truecolor', FORCE_COLOR: '3' });

const cli = join(root, 'dist', 'cli.js');

/**
 * The across scene's cluster: `ctpool sim --demo` (pool desk of corral-vms and its users),
 * plus pool lab in team-a and pool desk in team-b, each with a user holding a desktop.
 */
async function startAcrossCluster() {
	const dir = mkdtempSync(join(tmpdir(), 'ctpool-screenshot-'));
	const kubeconfig = join(dir, 'kubeconfig');
	const sim = spawnChild(
		process.execPath,
		[
			cli,
			'sim',
			'--demo',
			'--kubeconfig',
			kubeconfig,
			'--kubeconfig-for',
			`team-a/viewer=${join(dir, 'a')}`,
			'--kubeconfig-for',
			`team-b/viewer=${join(dir, 'b')}`,
		],
		{ stdio: 'ignore', env },
	);
	for (let i = 0; i < 300 && !existsSync(join(dir, 'b')); i++) await sleep(100);
	const run = (...args) => {
		const r = spawnSync(process.execPath, [cli, ...args, '--kubeconfig', kubeconfig], {
			encoding: 'utf8',
			env,
		});
		if (r.status !== 0) throw new Error(`ctpool ${args.join(' ')}: ${r.stderr}`);
	};
	const image = ['--image', 'ghcr.io/example/desktop:1', '--cpu', '1', '--mem', '2Gi'];
	run('apply', 'lab', ...image, '--size', '2', '-n', 'team-a');
	run('apply', 'desk', ...image, '--size', '3', '-n', 'team-b');
	run('reconcile', 'lab', '-n', 'team-a');
	run('reconcile', 'desk', '-n', 'team-b');
	run('claim', 'lab', 'erin@example.com', '-n', 'team-a');
	run('claim', 'desk', 'bob@example.com', '-n', 'team-b');
	run('claim', 'desk', 'frank@example.com', '-n', 'team-b');
	return {
		kubeconfig,
		stop() {
			sim.kill('SIGINT');
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cluster = across ? await startAcrossCluster() : null;

const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
const args = cluster ? ['-A', '--kubeconfig', cluster.kubeconfig] : ['--demo'];
const pty = spawn(process.execPath, [cli, ...args], {
	name: 'xterm-256color',
	cols,
	rows,
	cwd: root,
	env,
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

async function waitFor(test, what) {
	const deadline = Date.now() + Number(values['timeout-ms']);
	for (;;) {
		await written;
		if (test(screen())) return;
		if (exited) throw new Error(`ctpool exited before ${what}:\n${screen()}`);
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${screen()}`);
		await sleep(100);
	}
}

/** Writes the screen as an SVG (and a PNG beside it when rsvg-convert is installed). */
async function capture(out) {
	await sleep(300);
	await written;
	mkdirSync(dirname(out), { recursive: true });
	writeFileSync(out, toSvg(term));
	process.stdout.write(`${screen()}\n\nwrote ${out}\n`);
	// a PNG beside it when librsvg's rsvg-convert is installed (apt-get install librsvg2-bin)
	const png = out.replace(/\.svg$/, '.png');
	if (png !== out) {
		const r = spawnSync('rsvg-convert', ['--zoom', '1.5', out, '-o', png], { stdio: 'inherit' });
		if (r.status === 0) process.stdout.write(`wrote ${png}\n`);
		else process.stdout.write('no PNG: rsvg-convert is not installed\n');
	}
}

async function acrossScene() {
	const media = dirname(values.out);
	// every pool listed and counted, and bob's demo desktop held in two namespaces or one
	await waitFor(
		(s) =>
			s.includes('pools (3) · all namespaces') && /^team-b\s+desk\s.*3\/3\s+\d+\s+2\s/m.test(s),
		'the pools of every namespace',
	);
	await capture(join(media, 'pools-all-namespaces.svg'));
	pty.write('/bob');
	await waitFor((s) => /find bob: \d+ hits? in 3 pools/.test(s), 'the find');
	await capture(join(media, 'find.svg'));
}

try {
	if (across) await acrossScene();
	else await membersScene();
} finally {
	if (!exited) pty.write('\u001b');
	await sleep(200);
	if (!exited) pty.write('q');
	for (let i = 0; i < 50 && !exited; i++) await sleep(100);
	if (!exited) pty.kill();
	cluster?.stop();
}
process.exit(0);

async function membersScene() {
	await waitFor((s) => /desk-6\s+\S/.test(s) && s.includes('● live'), 'the demo pool');
	pty.write('l');
	// lively: three or more users hold desktops, and the log shows releases and reconciles
	await waitFor((s) => {
		const holders = s
			.split('\n')
			.filter((l) => /^desk-\d+\s+\S+\s+\S+@example\.com/.test(l)).length;
		return holders >= 3 && /release desk-\d ✓/.test(s) && /activity \(\d{2,}/.test(s);
	}, 'a lively table');
	await capture(values.out);
}
