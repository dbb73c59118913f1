import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sanitize } from '../../source/text/sanitize.js';
import { consoleArgs } from '../../source/tui/session/console.js';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 2 });

/** The words a POSIX shell makes of a copied line's arguments (its command word swapped for printf). */
function shellWords(line: string, cwd: string): string[] {
	const args = line.replace(/^(kubectl|ctpool) /, '');
	const out = execFileSync('sh', ['-c', `printf '%s\\0' ${args}`], { cwd, encoding: 'utf8' });
	return out.split('\0').slice(0, -1);
}

describe('K: the kubectl commands of the selected member', () => {
	it('lists get/describe of its pod, PVC and Lease, its logs, the console s runs, claim and release; Esc returns', async () => {
		const store = storeWith(
			[...member('desk', 1, s), ...member('desk', 2, s, { holder: 'alice@example.com' })],
			{ spec: s, session: { identity: 'bob@example.com' } },
		);
		const { ops } = recordingOps();
		r = await renderConsole(store, { columns: 140, rows: 40, ops: ops as never });
		await r.press('j', 'K');
		const st = store.getState();
		expect(st.screen).toBe('text');
		const lines = st.textView?.lines ?? [];
		const frame = r.lastFrame();
		for (const l of lines) expect(frame).toContain(l);
		expect(lines).toEqual(
			expect.arrayContaining([
				'kubectl get pod desk-2 -n corral --context sim',
				'kubectl describe pvc desk-2-data -n corral --context sim',
				'kubectl get lease corral-vdi-ct-desk-2 -n corral --context sim',
				'kubectl logs desk-2 -c ct --previous -n corral --context sim',
				[
					'kubectl',
					...consoleArgs({
						member: 'desk-2',
						namespace: 'corral',
						context: 'sim',
						privileged: false,
					}),
				].join(' '),
				'ctpool claim desk bob@example.com -n corral --context sim',
				'ctpool release desk desk-2 alice@example.com --force -n corral --context sim',
			]),
		);
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
		expect(store.getState().selected).toBe('desk-2');
	});

	it('quotes hostile names so that no copied line runs anything else', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'ctpool-k-'));
		try {
			const holder = "a'b; touch PWNED1 #`touch PWNED2`$(touch PWNED3)\n touch PWNED4 \u001b[31m";
			const context = "sim'; touch PWNED5; echo '";
			const store = storeWith(member('desk', 1, s, { holder }), { spec: s, session: { context } });
			r = await renderConsole(store, { columns: 140, rows: 40 });
			await r.press('K');
			const lines = (store.getState().textView?.lines ?? []).filter((l) => !l.startsWith('#'));
			expect(lines.length).toBeGreaterThan(8);
			for (const line of lines) {
				expect(line).not.toMatch(/[\u0000-\u001f]/);
				const words = shellWords(line, dir);
				// the hostile context is one word, right after --context
				expect(words[words.indexOf('--context') + 1]).toBe(context);
			}
			const release = lines.find((l) => l.startsWith('ctpool release')) ?? '';
			const words = shellWords(release, dir).slice(0, 4);
			expect(words).toEqual(['release', 'desk', 'desk-1', sanitize(holder)]);
			expect(words[3]).toContain('$(touch PWNED3)');
			for (let i = 1; i <= 5; i++) expect(existsSync(join(dir, `PWNED${i}`))).toBe(false);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('leaves out a line whose name would read as an option, and is refused with no member selected', async () => {
		const store = storeWith(member('desk', 1, s, { holder: '--kubeconfig=stolen' }), { spec: s });
		r = await renderConsole(store, { columns: 140, rows: 40 });
		await r.press('K');
		const lines = store.getState().textView?.lines ?? [];
		expect(lines.filter((l) => l.includes('--kubeconfig'))).toEqual([
			'# left out: --kubeconfig=stolen would read as an option',
			'# left out: --kubeconfig=stolen would read as an option',
		]);
		await r.press(KEY.escape, KEY.escape);
		expect(store.getState().screen).toBe('pools');
		await r.press('K');
		expect(store.getState().screen).toBe('pools');
		expect(r.lastFrame()).toContain('kubectl: select a member first');
	});
});
