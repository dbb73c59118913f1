/**
 * K: the kubectl and ctpool commands of the selected member, to copy, with the session's -n
 * and --context; names from the cluster are sanitised and shell-quoted (shell-word.ts).
 */

import { CONTAINER_NAME, leaseName, pvcName } from '../../pool/index.js';
import { poolName, poolNamespace } from '../model/pool-index.js';
import { consoleArgs } from '../session/console.js';
import { selectedRow } from '../store/store.js';
import { defineCommand, memberRow } from './command.js';
import { commandLine } from './shell-word.js';
import { showText } from './show-text.js';

declare module './command.js' {
	interface CommandIds {
		Kubectl: 'kubectl';
	}
}

export const kubectl = defineCommand({
	name: 'Kubectl',
	id: 'kubectl',
	match: [{ char: 'K' }],
	keys: 'K',
	hint: 'kubectl',
	description: 'the kubectl and ctpool commands for the selected member, to copy (Esc returns)',
	group: 'Views',
	order: 280,
	screens: ['members', 'details'],
	bar: [],
	mutating: false,
	available: (state, screen) => (memberRow(state, screen) ? null : 'select a member first'),
	run(ctx) {
		const s = ctx.store.getState();
		const row = selectedRow(s);
		if (!row || !s.pool) return;
		const [m, pool, context] = [row.name, poolName(s.pool), s.session.context];
		const ns = poolNamespace(s.pool, s.session.namespace);
		const scope = ['-n', ns, ...(context ? ['--context', context] : [])];
		const kc = (verb: string, names: string[], flags: string[] = []) =>
			commandLine(['kubectl', verb], names, [...flags, ...scope]);
		const privileged = s.pools[s.pool]?.spec?.privileged ?? false;
		const exec = consoleArgs({
			member: m,
			namespace: ns,
			privileged,
			...(context ? { context } : {}),
		});
		const who = row.leaseHolder || s.session.identity || 'IDENTITY';
		showText(ctx, `kubectl and ctpool for ${m} · copy a line`, [
			'# its pod, PVC and claim Lease',
			...[
				['pod', m],
				['pvc', pvcName(m)],
				['lease', leaseName(m)],
			].flatMap(([kind = '', name = '']) => [
				kc('get', [kind, name]),
				kc('describe', [kind, name]),
			]),
			'# its container log (--previous: the crashed one), a shell in it (what s runs)',
			kc('logs', [m], ['-c', CONTAINER_NAME]),
			kc('logs', [m], ['-c', CONTAINER_NAME, '--previous']),
			commandLine(['kubectl'], [], exec),
			'# claim a free member of the pool; release this one (--force: whoever holds it)',
			commandLine(['ctpool', 'claim'], [pool, s.session.identity || 'IDENTITY'], scope),
			commandLine(['ctpool', 'release'], [pool, m, who], scope),
			commandLine(['ctpool', 'release'], [pool, m, who], ['--force', ...scope]),
		]);
	},
});
