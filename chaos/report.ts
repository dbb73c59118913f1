/** The text report of a chaos run: the counts, then every violation and warning. */

import type { ChaosResult } from './chaos.js';
import type { Finding } from './invariants.js';

function findings(title: string, list: readonly Finding[], limit: number): string[] {
	if (list.length === 0) return [];
	const byRule = new Map<string, number>();
	for (const f of list) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
	const out = [`${title} (${list.length}): ${[...byRule].map(([r, n]) => `${r} ${n}`).join(', ')}`];
	for (const f of list.slice(0, limit))
		out.push(`  [${f.rule}]${f.revision ? ` rev ${f.revision}` : ''} ${f.message}`);
	if (list.length > limit) out.push(`  ... and ${list.length - limit} more`);
	return out;
}

function failureLines(failures: Record<string, number>): string[] {
	const sorted = Object.entries(failures).sort((a, b) => b[1] - a[1]);
	if (sorted.length === 0) return [];
	return [
		'why operations failed (most frequent first):',
		...sorted.slice(0, 12).map(([why, n]) => `  ${String(n).padStart(4)} ${why}`),
	];
}

/** The report of a run, one line per fact. */
export function formatReport(r: ChaosResult): string[] {
	const a = r.actors;
	const f = r.faults;
	const k = r.reconcilers;
	const s = r.invariants.seen;
	const o = r.options;
	return [
		`chaos seed ${r.seed}${r.cluster === 'real' ? ' on the real control plane' : ''}: ${r.passed ? 'PASSED' : 'FAILED'} in ${(r.elapsedMs / 1000).toFixed(1)} s (chaos ${o.durationMs / 1000} s, size ${o.size}, ${o.users} users, ${o.reconcilers} reconcilers)`,
		`claims: ${a.claims} ok (${a.claimsExisting} returned the member already held), ${a.noFree} no free member, ${a.claimErrors} failed; ${a.doubleClaims} double clicks`,
		`releases: ${a.releases} ok, ${a.releaseErrors} failed (${a.quarantined} put the member in maintenance); force-releases: ${a.forceReleases} ok, ${a.forceReleaseErrors} failed`,
		`admin: ${a.imageChanges} image changes, ${a.sizeChanges} size changes, ${a.applyErrors} applies failed, ${a.recoveries} members recovered (${a.recoveryErrors} failed); ${a.memberFailures} member pods crashed or failed`,
		`reconciles: ${r.reconciles} (${k.reconciles} by the processes, ${k.steps} steps done, ${k.stepErrors} failed); processes started ${k.starts}, killed ${k.kills} (${k.killsMidStep} mid-step holding a Lease), ${k.unexpectedExits} exited by themselves`,
		r.cluster === 'real'
			? `faults injected: none (real control plane, namespace ${r.namespace}: the simulator's 500/503s, delays, dropped watches, forced 410s, refused connections and member pod crashes are left out); the run's watches relisted ${r.relists} times`
			: `faults injected: ${f.errors} 500/503, ${f.delayed} delayed, ${f.droppedWatches} watches dropped, ${f.forced410} forced 410, ${f.refusedConnections} connections refused; spells ${r.spells.calm} calm / ${r.spells.flaky} flaky / ${r.spells.storm} storm`,
		`console store: ${r.mirror.batches} batches, ${r.mirror.resets} relists, ${r.mirror.reconnects} reconnects`,
		`timeline: ${s.userLeases} claims taken, ${s.handOvers} hand-overs to the reconciler, ${s.takeovers} reconciler Lease takeovers, ${s.deletes} deletes, ${s.desktops} desktops claimed, ${s.claimsChecked} claim results checked`,
		`foreign objects: ${r.foreign.planted} planted, ${r.foreign.untouched} untouched; reconcilers' rights revoked ${r.rightsRevoked} times; first reconciler's clock ${Math.round(o.skewMs / 1000)} s ahead`,
		`forged: ${r.forged.events} Events (${r.forged.unreadable} not audit lines of the pool), ${r.forged.statuses} malformed statuses (${r.forged.rewritten} rewritten by a reconciler during the chaos); ${r.forged.auditLines} audit lines read back, all bounded`,
		`invariant checks: ${r.invariants.checks} over the timeline, ${r.finalChecks} on the final state and the console store`,
		`final reconcile: ${r.finalSteps.length === 0 ? 'no steps' : r.finalSteps.join(', ')}; members ${Object.entries(
			r.finalStates,
		)
			.map(([st, n]) => `${n} ${st}`)
			.join(', ')}`,
		...failureLines(r.actors.failures),
		...findings('VIOLATIONS', r.violations, 25),
		...findings('warnings', r.warnings, 10),
	];
}
