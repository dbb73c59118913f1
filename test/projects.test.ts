/** The test projects of vitest.config.ts: every name in them exists, and unit tests start nothing. */

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E2E, projectOf, SIM, testFiles, UNIT } from '../vitest.config.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('test projects', () => {
	it('name only folders and files that exist', () => {
		const missing = [...UNIT, ...SIM, ...E2E].filter((p) => !existsSync(join(ROOT, p)));
		expect(missing).toEqual([]);
	});

	it('put every test file in one project, each project holding some', () => {
		const files = testFiles(ROOT);
		const counts = { unit: 0, sim: 0, e2e: 0, real: 0 };
		for (const f of files) counts[projectOf(f)]++;
		expect(counts.unit + counts.sim + counts.e2e + counts.real).toBe(files.length);
		expect(Math.min(counts.unit, counts.sim, counts.e2e, counts.real)).toBeGreaterThan(0);
		// test/real/ needs the real control plane: never in npm test's projects.
		expect(files.filter((f) => f.startsWith('test/real/') && projectOf(f) !== 'real')).toEqual([]);
	});

	it('keep the unit project free of the simulated cluster, terminals and the built binary', () => {
		const starts =
			/support\/(sim|cluster|terminal)\.js|behaviour-support|startSimCluster|runSim\(|dist\/cli\.js|safety-cluster|ctpool-console|child_process/;
		const offenders = testFiles(ROOT)
			.filter((f) => projectOf(f) === 'unit' && f !== 'test/projects.test.ts')
			.filter((f) => starts.test(readFileSync(join(ROOT, f), 'utf8')));
		expect(offenders).toEqual([]);
	});
});
