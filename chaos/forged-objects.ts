/**
 * Forged objects of a chaos run (issue 22): what anyone with ordinary namespace rights can
 * write to mislead or crash ctpool. Events labelled for the pool with a bad audit annotation
 * (not JSON, an unknown action, a count of 1e309), a date in 2099 or a huge count; the pool's
 * recorded status replaced by ones of the wrong shape while the reconcilers run. At the end:
 * the audit as ctpool reads it holds no forged-bad line, no time beyond the skew allowance and
 * no count beyond its bound, and the last status reads.
 */

import { readAudit } from '../source/engine/audit.js';
import type { EngineContext } from '../source/engine/context.js';
import { mergePatchOptions } from '../source/engine/merge-patch.js';
import type { Kube } from '../source/kube/config.js';
import { sleep } from '../source/kube/retry.js';
import {
	AUDIT_ANNOTATION,
	AUDIT_COUNT_MAX,
	AUDIT_POOL_LABEL,
	AUDIT_SKEW_ALLOWANCE_MS,
} from '../source/pool/audit.js';
import { configMapName, STATUS_KEY } from '../source/pool/names.js';
import { readStatus } from '../source/pool/status.js';
import type { PlantStore } from './foreign-objects.js';
import type { Finding } from './invariants.js';

/** How many times a malformed status's patch is tried (the chaos's faults may refuse it). */
const MALFORM_ATTEMPTS = 5;

/** The statuses of the wrong shape written over the pool's, in turn. */
export const MALFORMED_STATUSES = [
	'{"members":[],"errors":"boom"}',
	'{"members":[],"errors":5}',
	'{"members":[{"name":"x","state":"Exploded"}],"desired":1e309}',
	'not json at all',
];

/** What the forged objects were, and what the checks found. */
export interface ForgedResult {
	/** Forged Events planted. */
	events: number;
	/** Of them, those whose audit annotation must never read as a line. */
	unreadable: number;
	/** Malformed statuses written over the pool's. */
	statuses: number;
	/** Of them, those a reconciler replaced with a readable status while the chaos ran. */
	rewritten: number;
	/** Audit lines read back at the end (genuine and forged-but-readable). */
	auditLines: number;
	checks: number;
	violations: Finding[];
}

const LATER = '2099-01-01T00:00:00Z';

/** One forged Event: its name, its audit annotation, and whether it reads as a line of the pool. */
interface Forged {
	name: string;
	annotation: string;
	readable: boolean;
	extra?: Record<string, unknown>;
}

function forgedEvents(pool: string): Forged[] {
	const record = (o: Record<string, unknown>) =>
		JSON.stringify({ v: 1, pool, actor: 'mallory@example.com', ...o });
	return [
		{ name: 'not-json', annotation: '{"action":', readable: false },
		{ name: 'unknown-action', annotation: record({ action: 'nuke' }), readable: false },
		{
			name: 'infinite-count',
			annotation: record({ action: 'claim-refused' }).replace('}', ',"count":1e309}'),
			readable: false,
		},
		{
			name: 'from-2099',
			annotation: record({ action: 'release', member: `${pool}-1`, force: true }),
			readable: true,
			extra: { lastTimestamp: LATER, firstTimestamp: LATER },
		},
		{
			name: 'huge-count',
			annotation: record({ action: 'claim-refused', identity: 'mallory@example.com' }),
			readable: true,
			extra: { count: 2_147_483_647 },
		},
		{
			name: 'hostile-pool',
			annotation: JSON.stringify({ v: 1, action: 'claim-refused', pool: 'x$(id)', actor: 'm' }),
			// a line of another (invalid) pool: not in this pool's audit
			readable: false,
		},
	];
}

/** Plants and checks the forged objects of a run. */
export class ForgedObjects {
	private planted: Forged[] = [];
	private statuses = 0;
	private rewritten = 0;
	private readonly waits: Promise<void>[] = [];

	constructor(
		private readonly store: PlantStore,
		private readonly kube: Kube,
		private readonly namespace: string,
		private readonly pool: string,
	) {}

	/** Plants the forged Events (labelled for the pool, as ctpool's own are). */
	async plantEvents(): Promise<void> {
		const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
		for (const f of forgedEvents(this.pool)) {
			const name = `${this.pool}.forged-${f.name}`;
			await this.store.create('events', {
				apiVersion: 'v1',
				kind: 'Event',
				metadata: {
					name,
					namespace: this.namespace,
					labels: { [AUDIT_POOL_LABEL]: this.pool },
					annotations: { [AUDIT_ANNOTATION]: f.annotation },
				},
				involvedObject: {
					kind: 'ConfigMap',
					name: configMapName(this.pool),
					namespace: this.namespace,
				},
				reason: 'Released',
				message: `forged ${f.name}`,
				type: 'Normal',
				firstTimestamp: now,
				lastTimestamp: now,
				count: 1,
				source: { component: 'mallory' },
				...f.extra,
			});
			this.planted.push({ ...f, name });
		}
	}

	/**
	 * Writes the next malformed status over the pool's (a merge patch, as anyone may), and
	 * watches for a reconciler to write a readable one within deadlineMs.
	 */
	async malformStatus(deadlineMs: number): Promise<void> {
		const text = MALFORMED_STATUSES[this.statuses % MALFORMED_STATUSES.length]!;
		// the chaos's own faults (errors, dropped connections) may refuse the patch: tried again
		// a few times, so that every malformed status planned is written
		for (let attempt = 1; ; attempt++) {
			try {
				await this.kube.core.patchNamespacedConfigMap(
					{
						name: configMapName(this.pool),
						namespace: this.namespace,
						body: { data: { [STATUS_KEY]: text } },
					},
					mergePatchOptions(),
				);
				break;
			} catch (err) {
				if (attempt >= MALFORM_ATTEMPTS) throw err;
				await sleep(250);
			}
		}
		this.statuses++;
		this.waits.push(this.untilReadable(deadlineMs));
	}

	/** Counts the malformed status as rewritten once the pool's status reads again in time. */
	private async untilReadable(deadlineMs: number): Promise<void> {
		const until = Date.now() + deadlineMs;
		while (Date.now() < until) {
			await new Promise((r) => setTimeout(r, 200));
			const status = await this.readPoolStatus().catch(() => null);
			if (status?.status) {
				this.rewritten++;
				return;
			}
		}
	}

	private async readPoolStatus() {
		const cm = await this.kube.core.readNamespacedConfigMap({
			name: configMapName(this.pool),
			namespace: this.namespace,
		});
		return readStatus(cm.data?.[STATUS_KEY]);
	}

	/**
	 * Checks what ctpool reads now: every audit line within the skew allowance and the count
	 * bound, no forged-unreadable Event as a line; and the pool's status readable again.
	 */
	async check(ctx: EngineContext): Promise<ForgedResult> {
		const violations: Finding[] = [];
		let checks = 0;
		const trail = await readAudit(ctx, { pool: this.pool });
		// after the read: its lines are clamped to the clock at the read
		const now = ctx.now();
		for (const e of trail.entries) {
			checks++;
			if (!(e.time <= now + AUDIT_SKEW_ALLOWANCE_MS) || !Number.isFinite(e.time))
				violations.push(finding(`audit line ${e.name} is dated ${e.time}, beyond the allowance`));
			if (!(Number.isInteger(e.count) && e.count >= 1 && e.count <= AUDIT_COUNT_MAX))
				violations.push(finding(`audit line ${e.name} counts ${e.count}`));
		}
		for (const f of this.planted) {
			checks++;
			const shown = trail.entries.some((e) => e.name === f.name);
			if (shown !== f.readable)
				violations.push(
					finding(
						`the forged Event ${f.name} ${shown ? 'reads as an audit line' : 'is missing from the audit'}`,
					),
				);
		}
		await Promise.all(this.waits);
		checks++;
		const status = await this.readPoolStatus();
		if (!status.status)
			violations.push(
				finding(`the pool's last status does not read: ${status.problem ?? 'it is absent'}`),
			);
		return {
			events: this.planted.length,
			unreadable: this.planted.filter((f) => !f.readable).length,
			statuses: this.statuses,
			rewritten: this.rewritten,
			auditLines: trail.entries.length,
			checks,
			violations,
		};
	}
}

function finding(message: string): Finding {
	return { rule: 'forged', member: '', revision: 0, message };
}
