/**
 * Issue 24, the console half, end to end: the built ctpool in a pseudo-terminal against the
 * simulated cluster with pools in two namespaces.
 * - finding 1: under -A a claim refused in another namespace than the session's counts in
 *   REFUSED/1H, and the audit screen shows it with its NAMESPACE;
 * - findings 6 and 7: at 80 columns the pools screen shows FAILED and EXPIRED; `*` there asks
 *   once for every expired claim of every namespace, naming each namespace/pool, member and
 *   holder, and releases them;
 * - finding 9: the maintenance prompt's prefilled reason goes with one Ctrl-U and a word
 *   with Ctrl-W; help fits 80x24 without scrolling; the audit screen's key bar shows no mark;
 *   the log view follows a container across a restart and a replace.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	claim,
	createEngineContext,
	type EngineContext,
	readPool,
	reconcile,
} from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { formatMicroTime, leaseName } from '../../source/pool/index.js';
import { itSim } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { consoleTests, quit } from './ctpool-console.js';

const SLOW = 45_000;
/** The last line the simulated kubelet writes for a crashed desktop container. */
const CRASHED = 'fatal: cannot write to /data: Input/output error; exiting with status 1';
const c = consoleTests({ namespaces: ['team-a', 'team-b'] });

/** An engine context in a namespace of the test cluster, acting as actor. */
async function inNamespace(namespace: string, actor = 'test'): Promise<EngineContext> {
	const kube = await loadKube({ kubeconfig: c.sim.kubeconfigPath, namespace });
	return createEngineContext(kube, { actor });
}

/** A pool in a namespace, every member Ready. */
async function ready(namespace: string, pool: string, size: number): Promise<void> {
	const ctx = await inNamespace(namespace);
	await apply(ctx, pool, poolSpec({ size }));
	await waitFor(async () => (await readPool(ctx, pool)).members.every((m) => m.state === 'Ready'), {
		what: `${namespace}/${pool} ready`,
		timeoutMs: SLOW,
	});
}

/** Makes a member's claim expired (acquired and renewed two hours ago). */
async function expire(namespace: string, member: string): Promise<void> {
	const lease = await c.cluster.api.get('leases', leaseName(member), namespace);
	if (!lease) throw new Error(`no Lease for ${namespace}/${member}`);
	const past = formatMicroTime(Date.now() - 2 * 3_600_000);
	await c.cluster.api.update('leases', {
		...lease,
		spec: { ...(lease.spec as object), acquireTime: past, renewTime: past },
	});
}

beforeAll(async () => {
	await ready('team-a', 'desk', 2);
	await ready('team-b', 'desk', 1);
}, 90_000);

describe('issue 24 in a terminal', { timeout: 150_000 }, () => {
	it('-A: a claim refused in another namespace counts in REFUSED/1H and is in the audit with its NAMESPACE (finding 1)', async () => {
		const teamB = await inNamespace('team-b', 'zoe@example.com');
		await claim(teamB, 'desk', 'zoe@example.com');
		const t = c.start({ args: ['-A', '-n', 'team-a'], columns: 120, rows: 30 });
		await t.waitFor(/^team-b\s+desk\s/m, SLOW);
		await t.waitFor('● live', SLOW);
		// another process is refused: team-b's desk has no free member
		await expect(
			claim(await inNamespace('team-b', 'amy@example.com'), 'desk', 'amy@example.com'),
		).rejects.toThrow(/no free members/);
		const titles =
			(await t.waitFor(/^NAMESPACE\s+POOL\s/m, SLOW))
				.split('\n')
				.find((l) => /^NAMESPACE\s+POOL\s/.test(l)) ?? '';
		const at = titles.indexOf('REFUSED/1H');
		expect(at).toBeGreaterThan(0);
		const refused = (pool: RegExp) =>
			(t.lines().find((l) => pool.test(l)) ?? '').slice(at, at + 10).trim();
		// the refusal was recorded in team-b, not the session's team-a
		await t.waitFor(() => refused(/^team-b\s+desk\s/) === '1', SLOW);
		expect(refused(/^team-a\s+desk\s/)).toBe('0');
		t.write('e');
		await t.waitFor(/^AGE\s+NAMESPACE\s+POOL\s/m, SLOW);
		await t.waitFor(
			(s) => s.split('\n').some((l) => /team-b\s+desk\s/.test(l) && /amy@example\.com/.test(l)),
			SLOW,
		);
		// the audit screen's key bar offers only what acts there
		const bar =
			t
				.lines()
				.filter((l) => l.trim())
				.at(-1) ?? '';
		expect(bar).toContain('filter');
		expect(bar).not.toMatch(/Space|mark|claim|release/);
		expect(await quit(t)).toBe(0);
	});

	it('at 80x24: FAILED and EXPIRED on the pools screen; * releases the expired claims of both namespaces after one confirmation (findings 6 and 7)', async () => {
		await claim(await inNamespace('team-a', 'bob@example.com'), 'desk', 'bob@example.com');
		await expire('team-a', 'desk-1');
		await expire('team-b', 'desk-1');
		const t = c.start({ args: ['-A'], columns: 80, rows: 24 });
		await t.waitFor('● live', SLOW);
		const header = await t.waitFor(/^NAMESPACE\s+POOL\s/m, SLOW);
		const titles = header.split('\n').find((l) => /^NAMESPACE\s+POOL\s/.test(l)) ?? '';
		for (const title of ['READY', 'UNSCHED', 'DRIFTED', 'FAILED', 'EXPIRED', 'EXHAUSTED'])
			expect(titles).toContain(title);
		expect(titles).not.toContain('IMAGE');
		const expiredAt = titles.indexOf('EXPIRED');
		const cell = (pool: RegExp) =>
			(t.lines().find((l) => pool.test(l)) ?? '').slice(expiredAt, expiredAt + 7).trim();
		await t.waitFor(
			() => cell(/^team-a\s+desk\s/) === '1' && cell(/^team-b\s+desk\s/) === '1',
			SLOW,
		);
		t.write('*');
		const confirm = await t.waitFor('y releases all 2', SLOW);
		expect(confirm).toContain('Force-release 2 expired claims in 2 pools?');
		expect(confirm).toMatch(/^ {2}team-a\/desk {2}desk-1 {2}held by bob@example\.com/m);
		expect(confirm).toMatch(/^ {2}team-b\/desk {2}desk-1 {2}held by zoe@example\.com/m);
		for (const l of t.lines()) expect(l.length).toBeLessThanOrEqual(80);
		t.write('y');
		await t.waitFor(/release expired: 2 of 2 done/, SLOW);
		await t.waitFor(
			() => cell(/^team-a\s+desk\s/) === '0' && cell(/^team-b\s+desk\s/) === '0',
			SLOW,
		);
		expect(await quit(t)).toBe(0);
	});

	it('readline keys in the maintenance prompt; help in groups at 80x24 (finding 9)', async () => {
		const t = c.start({ args: ['desk', '-n', 'team-a'], columns: 80, rows: 24 });
		await t.waitFor(/desk-2\s+Ready/, SLOW);
		await t.waitFor('● live', SLOW);
		t.write('j');
		t.write('m');
		await t.waitFor('Maintenance on desk-2, reason: set by', SLOW);
		// Ctrl-U clears the prefilled reason; Ctrl-W takes the last word back
		t.write('\u0015');
		t.write('disk swap typo');
		t.write('\u0017');
		await t.waitFor('reason: disk swap ▏', SLOW);
		t.write('\u0001');
		t.write('planned ');
		await t.waitFor('reason: planned ▏disk swap', SLOW);
		t.write('\r');
		await waitFor(
			async () =>
				(await c.cluster.api.get('persistentvolumeclaims', 'desk-2-data', 'team-a'))?.metadata
					.annotations?.['corral.dev/vdi-maintenance'] === 'planned disk swap',
			{ what: 'the reason on the PVC', timeoutMs: SLOW },
		);
		t.write('?');
		const help = await t.waitFor('[Move]', SLOW);
		expect(help).not.toMatch(/lines \d+-\d+ of|↑↓ scroll/);
		t.write('\u001b[C');
		await t.waitFor('[Find, sort, mark]', SLOW);
		expect(await quit(t)).toBe(0);
	});
	itSim(
		"the log view follows the container across a restart and a replace; p shows the replaced pod's last lines (finding 9)",
		'a crash is made by the simulated kubelet',
		async () => {
			await ready('team-a', 'logs', 1);
			const t = c.start({ args: ['logs', '-n', 'team-a'], columns: 100, rows: 30 });
			await t.waitFor(/logs-1\s+Ready/, SLOW);
			t.write('L');
			await t.waitFor('log logs-1 · following', SLOW);
			c.sim.cluster.controllers.crash('team-a', 'logs-1');
			await t.waitFor("── logs-1's container restarted (restart", SLOW);
			expect(t.screen()).toContain(CRASHED);
			// the pod is deleted and made again: the view goes on with the new pod's log
			await c.cluster.api.delete('pods', 'logs-1', { namespace: 'team-a', gracePeriodSeconds: 0 });
			await waitFor(async () => !(await c.cluster.api.get('pods', 'logs-1', 'team-a')), {
				what: 'the pod gone',
				timeoutMs: SLOW,
			});
			await reconcile(await inNamespace('team-a'), 'logs');
			await t.waitFor('── logs-1 was replaced', SLOW);
			expect(t.screen()).not.toContain(CRASHED);
			t.write('p');
			const previous = await t.waitFor('log logs-1 --previous (the replaced pod)', SLOW);
			expect(previous).toContain(CRASHED);
			expect(await quit(t)).toBe(0);
		},
	);
});
