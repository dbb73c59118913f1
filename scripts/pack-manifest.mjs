// The package.json that goes into `npm pack`'s tarball: without the scripts (so no `prepare:
// npm run build` that a global install would warn about and could not run, having no
// sources) and without the devDependencies and their overrides (the bundle in dist/ holds
// them). Run as the prepack script with `strip`, and as the postpack script with `restore`,
// which puts the clone's package.json back byte for byte (a pack that died between the two
// is mended by the next strip).

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = join(root, 'package.json');
const saved = join(root, '.package.json.prepack');

/** Puts the clone's package.json back when a strip saved it. */
function restore() {
	if (existsSync(saved)) renameSync(saved, manifest);
}

/** Saves package.json and writes the published one in its place. */
function strip() {
	restore();
	const text = readFileSync(manifest, 'utf8');
	const pkg = JSON.parse(text);
	delete pkg.scripts;
	delete pkg.devDependencies;
	delete pkg.overrides;
	writeFileSync(saved, text);
	writeFileSync(manifest, `${JSON.stringify(pkg, null, '\t')}\n`);
}

const step = process.argv[2];
if (step === 'strip') strip();
else if (step === 'restore') restore();
else {
	console.error('usage: node scripts/pack-manifest.mjs strip|restore');
	process.exit(2);
}
