/**
 * The packages whose modules the build (and the tests' Ink) replaces or patches are pinned:
 * exact versions in package.json, and scripts/pins.json holding each version and the sha256 of
 * each file the replacements touch. checkPins (run by the build) fails on anything else.
 */

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
	checkPins,
	INK_REPLACEMENTS,
	installedPins,
	LAZY,
	PINNED,
	packageFile,
	pinProblems,
	recordedPins,
	root,
	SOURCE_PATCHES,
} from '../../scripts/replacements.mjs';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	devDependencies: Record<string, string>;
	overrides?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
	packages: Record<string, { version?: string }>;
};

/** A copy of the pinned packages' package.json and pinned files, in a folder of its own. */
function copyOfInstalled(): string {
	const base = mkdtempSync(join(tmpdir(), 'ctpool-pins-'));
	copies.push(base);
	for (const [module, files] of Object.entries(PINNED))
		for (const file of ['package.json', ...files]) {
			const to = packageFile(module, file, base);
			mkdirSync(dirname(to), { recursive: true });
			cpSync(packageFile(module, file), to);
		}
	return base;
}
const copies: string[] = [];
afterAll(() => {
	for (const c of copies) rmSync(c, { recursive: true, force: true });
});

describe('the pinned packages', () => {
	it('are installed as scripts/pins.json records them', () => {
		expect(pinProblems(recordedPins(), installedPins())).toEqual([]);
		expect(() => checkPins()).not.toThrow();
	});

	it('are pinned to exactly those versions in package.json and package-lock.json', () => {
		for (const [module, { version }] of Object.entries(recordedPins())) {
			expect(version).toMatch(/^\d+\.\d+\.\d+$/);
			// a direct dependency is pinned where it is named, a dependency's by an override
			expect(pkg.devDependencies[module] ?? pkg.overrides?.[module], module).toBe(version);
			expect(lock.packages[`node_modules/${module}`]?.version, module).toBe(version);
		}
	});

	it('cover every file the build and the tests replace, patch or replace imports in', () => {
		const pinned = Object.entries(PINNED).flatMap(([m, files]) => files.map((f) => `${m}/${f}`));
		for (const key of Object.keys(INK_REPLACEMENTS)) {
			const [importer, specifier] = key.split(' ') as [string, string];
			expect(pinned).toContain(`ink/build/${importer}`);
			expect(pinned).toContain(
				specifier.startsWith('./') ? `ink/build/${specifier.slice(2)}` : `${specifier}/index.js`,
			);
		}
		for (const p of SOURCE_PATCHES) expect(pinned).toContain(`${p.module}/${p.file}`);
		for (const module of Object.keys(LAZY)) expect(Object.keys(PINNED)).toContain(module);
		expect(Object.keys(recordedPins()).sort()).toEqual(Object.keys(PINNED).sort());
	});
});

describe('checkPins', () => {
	it("fails on a changed file of Ink's, naming it, the hash expected and found, and how to upgrade", () => {
		const base = copyOfInstalled();
		// upstream's nested clips intersect: a behaviour change the import names do not show
		const output = packageFile('ink', 'build/output.js', base);
		const text = readFileSync(output, 'utf8');
		const changed = `${text}\n// clip = intersect(previousClip, clip)\n`;
		writeFileSync(output, changed);
		const recorded = recordedPins();
		const problems = pinProblems(recorded, installedPins(base));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain('ink/build/output.js');
		expect(problems[0]).toContain(recorded.ink?.files['build/output.js'] ?? 'no hash');
		expect(problems[0]).toContain(installedPins(base).ink?.files['build/output.js'] ?? 'no hash');
		expect(problems[0]).toContain('npm run pins -- --write');
		expect(() => checkPins(recorded, installedPins(base))).toThrow(/ink\/build\/output\.js/);
	});

	it('fails on another installed version, naming the package, the version expected and found', () => {
		const base = copyOfInstalled();
		const manifest = packageFile('string-width', 'package.json', base);
		const json = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
		writeFileSync(manifest, JSON.stringify({ ...json, version: '8.4.0' }));
		const problems = pinProblems(recordedPins(), installedPins(base));
		expect(problems).toEqual([
			expect.stringMatching(/^string-width: expected version 8\.3\.0, found 8\.4\.0; /),
		]);
	});

	it('fails on a missing file, and on a package patched but not recorded', () => {
		const base = copyOfInstalled();
		rmSync(packageFile('yoga-layout', 'dist/binaries/yoga-wasm-base64-esm.js', base));
		expect(pinProblems(recordedPins(), installedPins(base))).toEqual([
			expect.stringMatching(
				/^yoga-layout\/dist\/binaries\/yoga-wasm-base64-esm\.js: expected sha256 [0-9a-f]{64}, found \(no such file\)/,
			),
		]);
		const { hpagent: _, ...withoutOne } = recordedPins();
		expect(pinProblems(withoutOne, installedPins())).toEqual([
			expect.stringMatching(/^hpagent: not recorded in scripts\/pins\.json/),
		]);
	});
});
