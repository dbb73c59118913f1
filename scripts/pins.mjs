#!/usr/bin/env node
/**
 * `npm run pins`: checks that the packages ctpool patches or replaces modules of (PINNED in
 * scripts/replacements.mjs) are installed at the versions, and with the files, recorded in
 * scripts/pins.json; exits 1 naming each difference.
 * `npm run pins -- --write`: records the installed ones instead (after an upgrade: README.md,
 * "Upgrading Ink").
 */

import { writeFileSync } from 'node:fs';
import { checkPins, installedPins, PINS_FILE } from './replacements.mjs';

if (process.argv.includes('--write')) {
	const pins = installedPins();
	const missing = Object.entries(pins).filter(
		([, p]) => p.version === null || Object.values(p.files).includes(null),
	);
	if (missing.length > 0) {
		console.error(`pins: not installed: ${missing.map(([m]) => m).join(', ')} (npm ci first)`);
		process.exit(1);
	}
	writeFileSync(PINS_FILE, `${JSON.stringify(pins, null, '\t')}\n`);
	console.log(`pins: recorded ${Object.keys(pins).length} packages in ${PINS_FILE}`);
} else {
	try {
		checkPins();
		console.log('pins: every patched package is the pinned one');
	} catch (error) {
		console.error(error instanceof Error ? error.message : error);
		process.exit(1);
	}
}
