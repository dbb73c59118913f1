import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { commandsVitePlugin } from './scripts/command-records.mjs';
import { INLINE_FOR_ONE_INK, oneInkVitePlugin } from './scripts/replacements.mjs';

/**
 * The test projects. Every test file is in exactly one, by projectOf; `npm test` runs them
 * all, `npm run test:unit` / `test:sim` / `test:e2e` one each.
 * - unit: pure tests, no simulated cluster, no child process (the inner loop);
 * - sim: against the simulated cluster, in-process (a new test file lands here unless named below);
 * - e2e: slow tests of the whole product: a pseudo-terminal, the built binary (dist/cli.js,
 *   made by `npm run build`), the install tarball, the benchmark's smoke run, the chaos runs.
 *
 * - real (`npm run test:real`, not part of `npm test`): test/real/ (tests of the real control
 *   plane itself, such as the differential test), and the files named in REAL again, run
 *   against the real control plane (kube-apiserver, etcd, scheduler, controller-manager and
 *   kwok nodes built from the Kubernetes modules; see realcluster/), which its global setup
 *   starts when none is running.
 */
export type TestProject = 'unit' | 'sim' | 'e2e' | 'real';

/** The folder of the tests that need the real control plane and run nowhere else. */
const REAL_ONLY = 'test/real/';

/** Folders (ending in /) and files of the unit project (see projectOf). */
export const UNIT = [
	'test/projects.test.ts',
	'test/pool/',
	'test/text/',
	'test/tui/',
	'test/chaos/invariants.test.ts',
	'test/controller/controller.test.ts',
	'test/controller/metrics-server.test.ts',
	'test/engine/kube-event.test.ts',
	'test/engine/member-step.test.ts',
	'test/engine/narration.test.ts',
	'test/engine/pacer.test.ts',
	'test/engine/reconcile-plan-reasons.test.ts',
	'test/install/script-loader.test.ts',
	'test/kube/change-batcher.test.ts',
	'test/kube/config.test.ts',
	'test/kube/retry.test.ts',
	'test/safety/destructive-steps.test.ts',
	'test/sim/api-store.test.ts',
	'test/sim/exec-shell.test.ts',
	'test/sim/pod-log.test.ts',
	'test/sim/protobuf.test.ts',
	'test/sim/rbac-rules.test.ts',
	'test/sim/schema.test.ts',
];

/** Console tests in a unit folder that need more: the simulated cluster, a child process. */
export const SIM = [
	'test/tui/engine-operations.test.ts',
	'test/tui/truthful-header.test.ts',
	'test/tui/young-generation.test.ts',
	'test/tui/raw-mode.test.tsx',
	// run the copied command lines through sh
	'test/tui/kubectl-key.test.tsx',
	'test/tui/shell-word.test.ts',
];

/** Folders (ending in /) and files of the e2e project. */
export const E2E = [
	'test/e2e/',
	'test/install/',
	'test/bench/',
	'test/chaos/',
	'test/demo/demo.test.ts',
	'test/commands/binary.test.ts',
	'test/commands/completion.test.ts',
	'test/commands/pipes.test.ts',
	'test/controller/reconciler-binary.test.ts',
	'test/controller/uncaught-errors.test.ts',
	'test/controller/leader-failover.test.ts',
	'test/safety/access.test.ts',
	'test/safety/hostile-input.test.ts',
	'test/sim/exec-ct-rootfs.test.ts',
];

/**
 * Files (and folders, ending in /) that also run on the real control plane. Tests in them
 * that only make sense on the simulated cluster are marked itSim/describeSim with a reason.
 */
export const REAL = [
	REAL_ONLY,
	'test/engine/apply-reconcile.test.ts',
	'test/engine/claim.test.ts',
	'test/engine/claim-requests.test.ts',
	'test/engine/release.test.ts',
	'test/engine/reconcile-steps.test.ts',
	'test/engine/reconcile-leases.test.ts',
	'test/engine/delete-pool.test.ts',
	'test/engine/claim-concurrency.test.ts',
	'test/engine/claim-race.test.ts',
	'test/engine/engine.test.ts',
	'test/engine/audit-events.test.ts',
	'test/engine/honest-audit.test.ts',
	'test/engine/ct-model.test.ts',
	'test/engine/member-facts.test.ts',
	'test/engine/pod-drift.test.ts',
	'test/engine/permissions.test.ts',
	'test/engine/rollout.test.ts',
	'test/engine/replace-backoff.test.ts',
	'test/engine/reconcile-plan.test.ts',
	'test/engine/definition-errors.test.ts',
	'test/engine/corral-interop.test.ts',
	'test/commands/commands.test.ts',
	'test/commands/usage-errors.test.ts',
	'test/commands/status-rollout.test.ts',
	'test/commands/audit.test.ts',
	'test/commands/huge-fields.test.ts',
	'test/commands/rbac.test.ts',
	'test/commands/corral-contexts.test.ts',
	'test/commands/across-namespaces.test.ts',
	'test/commands/command-line.test.ts',
	'test/commands/release-expired.test.ts',
	'test/commands/suggested-commands.test.ts',
	'test/commands/volume-wait.test.ts',
	'test/commands/reconcile-trace.test.ts',
	'test/safety/least-privilege.test.ts',
	'test/safety/foreign-objects.test.ts',
	'test/controller/pool-controller.test.ts',
	'test/controller/plan-metrics.test.ts',
	'test/controller/refused-claims-metric.test.ts',
	'test/controller/stranger-hot-loop.test.ts',
	'test/controller/leader-election.test.ts',
	'test/controller/leader-failover.test.ts',
	'test/controller/uncaught-errors.test.ts',
	'test/engine/failure-events.test.ts',
	'test/e2e/console.test.ts',
	'test/e2e/console-craft.test.ts',
	'test/e2e/console-backoff.test.ts',
	'test/e2e/console-audit.test.ts',
	'test/e2e/console-trace.test.ts',
	'test/chaos/chaos-short.test.ts',
];

const named = (list: string[], file: string) =>
	list.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

/** The project of a test file (a path from the repository root, with forward slashes). */
export function projectOf(file: string): TestProject {
	if (file.startsWith(REAL_ONLY)) return 'real';
	if (named(SIM, file)) return 'sim';
	// A file named outright wins over its folder (test/chaos/invariants.test.ts is a unit test).
	if (UNIT.includes(file)) return 'unit';
	if (named(E2E, file)) return 'e2e';
	if (named(UNIT, file)) return 'unit';
	return 'sim';
}

/** Every test file, from the repository root. */
export function testFiles(root = import.meta.dirname): string[] {
	return readdirSync(`${root}/test`, { recursive: true, encoding: 'utf8' })
		.map((f) => `test/${f.split('\\').join('/')}`)
		.filter((f) => /\.test\.tsx?$/.test(f))
		.sort();
}

const files = testFiles();
/**
 * The unit tests share one module cache, as `npm run test:unit` (--no-isolate) has always run
 * them: loading Ink, React and the console's modules again for each file was most of their
 * time (the unit project alone on the 2-core machine: 143 s isolated, 55 s not). They run
 * one after another in one fork of their own, after the sim and e2e files (each of those in a
 * new process, as before). Not the threads pool without isolation: tinypool's recycling of
 * its workers between groups once failed a whole run with an unhandled "Terminating worker
 * thread".
 */
const UNIT_POOL = { poolOptions: { forks: { singleFork: true, isolate: false } } };
const project = (name: TestProject) => ({
	extends: true as const,
	test: {
		name,
		include: files.filter((f) => projectOf(f) === name),
		...(name === 'unit' ? UNIT_POOL : {}),
	},
});

export default defineConfig({
	// The tests render through the Ink modules the bundle ships (scripts/replacements.mjs):
	// Ink and ink-testing-library are inlined so that Ink's own imports reach the plugin.
	plugins: [oneInkVitePlugin(), commandsVitePlugin()],
	test: {
		server: { deps: { inline: INLINE_FOR_ONE_INK } },
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: 'forks',
		// The tests' pools live in namespace corral, named the way an admin names Corral's
		// namespace; the tests of the default (corral-vms) clear it themselves.
		env: { CORRAL_NAMESPACE: 'corral' },
		reporters: ['default', './test/support/summary-reporter.ts'],
		projects: [
			project('unit'),
			project('sim'),
			project('e2e'),
			{
				extends: true as const,
				test: {
					name: 'real',
					include: files.filter((f) => named(REAL, f)),
					env: { CTPOOL_TEST_CLUSTER: 'real' },
					globalSetup: ['./test/support/real-setup.ts'],
					// The real control plane answers at its own pace (a pod's grace period is real time).
					testTimeout: 90_000,
					hookTimeout: 120_000,
				},
			},
		],
	},
});
