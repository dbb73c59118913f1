/**
 * The component tests render through the Ink the bundle ships: vitest.config.ts puts the same
 * modules in the place of Ink's own as the build (INK_REPLACEMENTS, scripts/replacements.mjs).
 * Each test here fails if that replacement were dropped (Ink's own Output, squashTextNodes or
 * widest-line rendering instead).
 */

import type { ReactElement } from 'react';
import { afterAll, describe, expect, it, vi } from 'vitest';

const caches = '../../source/tui/render/ink-text-caches.js';
type Caches = typeof import('../../source/tui/render/ink-text-caches.js');

/** What the replaced modules were asked, counted through the module both the build and Ink import. */
const asked = { squash: 0, widest: 0 };

/**
 * Ink, ink-testing-library and the console's Output, loaded afresh (the unit project may share
 * a worker's modules between files: --no-isolate), with ink-text-caches.ts counting its calls.
 */
async function shippedInk() {
	vi.resetModules();
	vi.doMock(caches, async (original) => {
		const real = await original<Caches>();
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
	return {
		ink: await import('ink'),
		testing: await import('ink-testing-library'),
		Output: (await import('../../source/tui/render/ink-output.js')).default,
	};
}
const { ink, testing, Output } = await shippedInk();
const { Box, Text } = ink;

afterAll(() => {
	vi.restoreAllMocks();
	vi.doUnmock(caches);
	vi.resetModules();
});

/** A frame, once React's scheduler has flushed. */
async function frameOf(node: ReactElement): Promise<string> {
	const r = testing.render(node);
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
