/**
 * The release confirmation names the pool's namespace where a pool name alone may be
 * ambiguous: across namespaces (-A), two namespaces may each hold a `desk` (issue 24,
 * finding 5).
 */

import { describe, expect, it } from 'vitest';
import { promptLines } from '../../source/tui/views/prompt-line.js';

const prompt = { kind: 'release', member: 'desk-1', holder: 'bob@example.com' } as const;

describe('the release confirmation', () => {
	it('across namespaces names the pool with its namespace', () => {
		expect(promptLines(prompt, 300, 'team-b/desk').join(' ')).toContain(
			'Release desk-1 of team-b/desk (held by bob@example.com) with --force?',
		);
	});

	it('in one namespace stays as it was', () => {
		expect(promptLines(prompt, 300, 'desk').join(' ')).toContain(
			'Release desk-1 (held by bob@example.com) with --force?',
		);
	});
});
