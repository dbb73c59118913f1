import { defineConfig } from 'vitest/config';

export default defineConfig({
	test: {
		include: ['test/**/*.test.{ts,tsx}'],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: 'forks',
		// The tests' pools live in namespace corral, named the way an admin names Corral's
		// namespace; the tests of the default (corral-vms) clear it themselves.
		env: { CORRAL_NAMESPACE: 'corral' },
		reporters: ['default', './test/support/summary-reporter.ts'],
	},
});
