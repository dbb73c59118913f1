/**
 * ctpool's version and build id. The bundled build (scripts/build.mjs) writes both into the
 * bundle; run from source (tests, tools) they come from package.json and 'dev'.
 */

import { readFileSync } from 'node:fs';

// Replaced by the bundler's `define`; undeclared (typeof 'undefined') when run from source.
declare const __CTPOOL_VERSION__: string | undefined;
declare const __CTPOOL_BUILD__: string | undefined;

let cachedVersion: string | undefined;

/** ctpool's version: the bundle's, else package.json's ('dev' when it cannot be read). */
export function ctpoolVersion(): string {
	if (typeof __CTPOOL_VERSION__ === 'string') return __CTPOOL_VERSION__;
	if (cachedVersion !== undefined) return cachedVersion;
	let version = 'dev';
	try {
		// source/ and tsc's dist/ are both one level below the package root.
		const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
		if (typeof pkg.version === 'string') version = pkg.version;
	} catch {
		// keep 'dev'
	}
	cachedVersion = version;
	return version;
}

/** The build id written at build time (the git commit, short), or 'dev' when run from source. */
export function ctpoolBuild(): string {
	return typeof __CTPOOL_BUILD__ === 'string' ? __CTPOOL_BUILD__ : 'dev';
}

/** The --version line: `ctpool 0.1.0 (build abc1234, node v20.20.2)`. */
export function versionLine(): string {
	return `ctpool ${ctpoolVersion()} (build ${ctpoolBuild()}, node ${process.version})`;
}
