import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_FLAG } from '../../source/tui/session/heap-tuning.js';

/** The young generation's size (MB) after a churn of short-lived objects, in a fresh process. */
function youngGenerationAfterChurn(flag: string | null): number {
	const script = `
		const v8 = require('node:v8');
		${flag ? `v8.setFlagsFromString(${JSON.stringify(flag)});` : ''}
		let kept = [];
		for (let i = 0; i < 2e6; i++) { kept.push({ i, text: 'row ' + i }); if (kept.length > 20000) kept = []; }
		const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
		process.stdout.write(String(young.space_size / 1e6));`;
	return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

describe('keepYoungGenerationSmall', () => {
	it('keeps the young generation at its first size when set after start (V8 grows it to 32 MB otherwise)', () => {
		const grown = youngGenerationAfterChurn(null);
		const kept = youngGenerationAfterChurn(YOUNG_GENERATION_FLAG);
		expect(grown).toBeGreaterThan(8);
		expect(kept).toBeLessThan(4);
	});
});
