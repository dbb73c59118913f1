import { defineConfig } from 'vitest/config';

export default defineConfig({
	test: {
		include: ['test/**/*.test.{ts,tsx}'],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: 'forks',
		reporters: ['default', './test/support/summary-reporter.ts'],
	},
});
