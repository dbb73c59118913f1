/**
 * The component tests render through the Ink the bundle ships: vitest.config.ts puts the same
 * modules in the place of Ink's own as the build (INK_REPLACEMENTS, scripts/replacements.mjs).
 * Each test here fails if that replacement were dropped (Ink's own Output, squashTextNodes or
 * widest-line rendering instead).
 */

import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Output from '../../source/tui/render/ink-output.js';

/** What the replaced modules were asked, counted through the module both the build and Ink import. */
const asked = vi.hoisted(() => ({ squash: 0, widest: 0 }));
vi.mock('../../source/tui/render/ink-text-caches.js', async (original) => {
	const real = await original<typeof import('../../source/tui/render/ink-text-caches.js')>();
	return {
		...real,
		memoizeSquash: (sanitize: (text: string) => string) => {
			const squash = real.memoizeSquash(sanitize);
			return (node: Parameters<typeof squash>[0]) => {
				asked.squash++;
				return squash(node);
			};
		},
		memoizeByText: <T,>(of: (text: string) => T) => {
			const kept = real.memoizeByText(of);
			return (text: string) => {
				asked.widest++;
				return kept(text);
			};
		},
	};
});

afterEach(() => {
	vi.restoreAllMocks();
});

/** A frame, once React's scheduler has flushed. */
async function frameOf(node: React.ReactElement): Promise<string> {
	const r = render(node);
	await new Promise((resolve) => setImmediate(resolve));
	const frame = r.lastFrame() ?? '';
	r.unmount();
	return frame;
}

describe('the Ink of the component tests', () => {
	it("draws its frames with the console's Output (source/tui/render/ink-output.ts)", async () => {
		const get = vi.spyOn(Output.prototype, 'get');
		const frame = await frameOf(
			<Box borderStyle="single" width={12}>
				<Text color="red">desk-1</Text>
			</Box>,
		);
		expect(frame).toContain('desk-1');
		expect(get).toHaveBeenCalled();
		expect(get.mock.results.some((r) => String(r.value?.output).includes('desk-1'))).toBe(true);
	});

	it("squashes and measures text with the console's caches (ink-text-caches.ts)", async () => {
		const before = { ...asked };
		const frame = await frameOf(
			<Text>
				pool <Text bold>desk</Text> ready
			</Text>,
		);
		expect(frame).toContain('pool desk ready');
		expect(asked.squash).toBeGreaterThan(before.squash);
		expect(asked.widest).toBeGreaterThan(before.widest);
	});
});
