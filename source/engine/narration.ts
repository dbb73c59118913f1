/**
 * The reconcile story told in plain sentences, for a presenter (`ctpool --demo --narrate`):
 * each event of the trace stream (see reconcile-plan.ts) becomes one or more lines, one
 * plain sentence each: a plan gives one line per member a step touches and one per member
 * left alone (with why), a step's start, progress and end one line each, and the pass's end
 * one. Pure: no clock, no I/O. Every name and reason is sanitised and bounded here, since
 * they come from the cluster.
 */

import { bounded } from '../text/sanitize.js';
import type { LeftAlone, PlannedMember, StepProgress, TraceEvent } from './reconcile-plan.js';

/** One narrated sentence. */
export interface NarrationLine {
	/** The time of the event it tells (ms). */
	time: number;
	pool: string;
	/** The member it is about, when one. */
	member?: string;
	/**
	 * What the line tells: a scene of the demo's script (what a person or a dead reconciler did
	 * before the pass), the plan's lead, a planned step, a member left alone, a step's course,
	 * the pass's end.
	 */
	kind: 'scene' | 'plan' | 'step' | 'left-alone' | 'progress' | 'end' | 'done';
	/** One plain sentence, sanitised, at most NARRATION_MAX characters. */
	text: string;
}

/** The longest sentence a line holds (a longer one is cut with an ellipsis). */
export const NARRATION_MAX = 400;
/** The longest name (pool, member) or reason shown inside a sentence. */
const NAME_MAX = 80;
const REASON_MAX = 200;

const name = (v: unknown): string => bounded(v, NAME_MAX);
const why = (v: unknown): string => bounded(v, REASON_MAX);

/** One plain sentence: sanitised, bounded, with a full stop. */
export function sentence(text: string): string {
	const t = bounded(text, NARRATION_MAX);
	return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/** `12:00:05` of a time (UTC), for the until of a backoff or a Lease. */
function clock(ms: number): string {
	return Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 19) : '?';
}

/**
 * What drifted, shortened for speech: `image ghcr.io/x/desktop:1 -> ghcr.io/x/desktop:2`
 * becomes `image :1 → :2` (the repository said once when both sides share it).
 */
export function spokenDrift(drift: string): string {
	return drift
		.split('; ')
		.map((part) => {
			const m = /^image (\S+) -> (\S+)$/.exec(part);
			if (m) {
				const [from, to] = [m[1] ?? '', m[2] ?? ''];
				const colon = (s: string) => s.lastIndexOf(':');
				const fi = colon(from);
				const ti = colon(to);
				if (fi > 0 && ti > 0 && from.slice(0, fi) === to.slice(0, ti) && !from.includes('@'))
					return `image ${from.slice(fi)} → ${to.slice(ti)}`;
				return `image ${from} → ${to}`;
			}
			return part.replace(/ -> /g, ' → ');
		})
		.join('; ');
}

/** The sentence of one member a planned step touches. */
export function plannedSentence(kind: string, m: PlannedMember): string {
	const who = name(m.member);
	const reason = m.reason;
	if (reason.startsWith('taken over: '))
		return sentence(
			`${who}'s Lease was left by a reconciler that stopped mid-step, and it has expired: this reconciler takes the Lease over (a compare-and-swap update, so only one can) and ${kind === 'delete' ? 'deletes the member, as it is above size' : kind === 'create' ? 'creates the member again' : 'makes the member again from the current definition, since it may hold half-done work or a user’s data'}`,
		);
	switch (kind) {
		case 'create':
			return sentence(
				`${who} is missing: the reconciler takes its Lease, then creates its PVC and pod from the pool's image`,
			);
		case 'start':
			return sentence(
				reason.startsWith('stopped (claimed')
					? `${who} is stopped and claimed: the reconciler creates its pod from its PVC anyway, since a start destroys nothing`
					: `${who} is stopped (its PVC is there, its pod is not): the reconciler creates its pod from the PVC`,
			);
		case 'replace':
			if (reason.startsWith('drifted'))
				return sentence(
					`${who} drifted${reason.startsWith('drifted: ') ? ` (${why(spokenDrift(reason.slice(9)))})` : ''} and is unclaimed: the reconciler takes its Lease, so no one can claim it while it is rebuilt, then deletes its pod and PVC and makes it again from the current definition`,
				);
			return sentence(
				`${who} ${reason.startsWith('failed: ') ? `failed (${why(reason.slice(8))})` : `needs a replace (${why(reason)})`} and is unclaimed: the reconciler takes its Lease, deletes its pod and PVC, and makes it again`,
			);
		case 'delete':
			return sentence(
				`${who} is above the pool's size${/\(index \d+\)$/.test(reason) ? ` ${reason.slice(reason.lastIndexOf('('))}` : ''} and unclaimed: the reconciler takes its Lease and deletes its pod and PVC, so the pool shrinks`,
			);
		case 'takeover':
			return sentence(
				`${who} has an expired reconciler Lease and nothing left to make: the reconciler takes the Lease over and removes it`,
			);
		default:
			return sentence(`${who}: ${why(kind)} (${why(reason)})`);
	}
}

/** The sentence of one member the plan leaves alone, with why. */
export function leftAloneSentence(l: LeftAlone): string {
	const who = name(l.member);
	const r = l.reason;
	const until = l.until !== undefined ? ` (until ${clock(l.until)})` : '';
	const held = /^held back by the rollout \(at most (\d+) unavailable/.exec(r);
	if (held)
		return sentence(
			`${who} drifted but waits for a later wave: at most ${held[1]} member${held[1] === '1' ? '' : 's'} may be down at once, and until its turn it stays claimable with the old image`,
		);
	const storm = /^replacing is stopped: most of the pool fails the same way \((.*)\)$/.exec(r);
	if (storm)
		return sentence(
			`${who} is left as it is: most of the pool fails the same way (${why(storm[1])}), so replacing stops until the definition changes or members recover`,
		);
	if (r === 'terminating')
		return sentence(`${who} is terminating: the reconciler waits until it is gone`);
	if (r.startsWith("a stranger's object under its name"))
		return sentence(
			`${who} is left alone: an object that is not the pool's has its name ${why(r.slice("a stranger's object under its name ".length))}, and ctpool never changes or deletes a stranger's object`,
		);
	if (r.startsWith('its Lease is unreadable: '))
		return sentence(
			`${who} is left alone: its Lease is unreadable (${why(r.slice('its Lease is unreadable: '.length))})`,
		);
	if (r === 'an older Corral claim')
		return sentence(
			`${who} is left alone: an older Corral tool claims it, and ctpool never touches such a claim`,
		);
	if (r === 'another reconciler holds its Lease')
		return sentence(
			`${who} is left alone: another reconciler holds its Lease${until}; should that one die, its Lease expires and a later pass takes it over`,
		);
	if (r === 'claimed')
		return sentence(
			`${who} needs work but is claimed: a user's Lease means hands off, so it waits for the release`,
		);
	if (r === 'in maintenance')
		return sentence(`${who} needs work but is in maintenance: it is left to the administrator`);
	if (r === 'replace backoff')
		return sentence(
			`${who} failed again soon after a replace: it waits out its backoff${until} before the next one`,
		);
	return sentence(`${who} is left alone: ${why(r)}${until}`);
}

const PROGRESS: Readonly<Record<StepProgress, string>> = {
	'lease-taken': 'the reconciler holds its Lease now, so no one can claim it meanwhile',
	'lease-held-elsewhere': 'someone else holds its Lease, so this step leaves it',
	deleted: 'its pod and PVC are deleted',
	waited: 'waited until its old objects were gone',
	created: 'its PVC and pod are created',
	started: 'its pod is created from its PVC',
	'lease-released': 'the reconciler lets go of its Lease: the member is claimable again',
	'dry-run-ok': 'a dry run of its first write passed (nothing stored)',
};

/** What a step's progress says; a deleted member is not claimable again when its Lease goes. */
function progressText(step: string, progress: StepProgress): string | undefined {
	if (progress === 'lease-released' && step === 'delete')
		return 'the reconciler lets go of its Lease: the member is gone';
	return PROGRESS[progress];
}

const PAST: Readonly<Record<string, string>> = {
	create: 'created',
	start: 'started',
	replace: 'replaced',
	delete: 'deleted',
	takeover: 'taken over',
};

function seconds(ms: number): string {
	return Number.isFinite(ms) && ms >= 0 ? `${(ms / 1000).toFixed(1)} s` : '? s';
}

/** The lines of one trace event: one sentence each (a plan: one per member it names). */
export function narrate(e: TraceEvent): NarrationLine[] {
	const pool = name(e.pool);
	const line = (kind: NarrationLine['kind'], text: string, member?: string): NarrationLine => ({
		time: e.time,
		pool,
		...(member !== undefined ? { member: name(member) } : {}),
		kind,
		text,
	});
	switch (e.type) {
		case 'plan': {
			const count = e.steps.reduce((n, s) => n + s.members.length, 0);
			const lead =
				count === 0
					? `Pool ${pool} is as its definition says: this pass${e.dryRun ? ' would change' : ' changes'} nothing${e.leftAlone.length > 0 ? `, and leaves ${e.leftAlone.length} member${e.leftAlone.length === 1 ? '' : 's'} alone` : ''}`
					: `The reconciler reads pool ${pool} and plans ${count} step${count === 1 ? '' : 's'}${e.leftAlone.length > 0 ? `, leaving ${e.leftAlone.length} member${e.leftAlone.length === 1 ? '' : 's'} alone` : ''}${e.dryRun ? ' (a dry run: nothing is changed)' : ''}`;
			return [
				line('plan', sentence(lead)),
				...e.steps.flatMap((s) =>
					s.members.map((m) => line('step', plannedSentence(s.kind, m), m.member)),
				),
				...e.leftAlone.map((l) => line('left-alone', leftAloneSentence(l), l.member)),
			];
		}
		case 'step-start':
			return [
				line('progress', sentence(`${name(e.member)}: the ${name(e.step)} begins`), e.member),
			];
		case 'step-progress':
			return [
				line(
					'progress',
					sentence(
						`${name(e.member)} (${name(e.step)}): ${progressText(e.step, e.progress) ?? why(e.detail)}`,
					),
					e.member,
				),
			];
		case 'step-end': {
			const who = name(e.member);
			const text =
				e.result === 'done'
					? `${who} is ${PAST[e.step] ?? name(e.step)}, in ${seconds(e.ms)}`
					: e.result === 'failed'
						? `${who}'s ${name(e.step)} failed${e.error ? `: ${why(e.error)}` : ''}; the next pass tries again`
						: `${who}'s ${name(e.step)} is skipped: nothing was left to do, or someone else holds it`;
			return [line('end', sentence(text), e.member)];
		}
		case 'done':
			return [
				line(
					'done',
					sentence(
						`The pass over pool ${pool} is ${e.ok ? 'done' : 'done with failures'} in ${seconds(e.ms)}: ${e.done} done, ${e.failed} failed, ${e.skipped} skipped${e.dryRun ? ' (a dry run)' : e.statusWritten ? '; the status is recorded' : ''}`,
					),
				),
			];
	}
}
