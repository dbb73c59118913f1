/**
 * A watch's list asks for each next page as soon as a page's text names its continue token
 * (the server makes it while the page before is parsed), and the page parsed decides: a page
 * asked for on a token it does not name is dropped, and one asked for ahead of a page that
 * does not parse is too.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { leadingContinue } from '../../source/kube/api-request.js';
import { loadKube } from '../../source/kube/config.js';
import type { ConnectionState } from '../../source/kube/connection-state.js';
import type { KubeObject } from '../../source/kube/objects.js';
import { type ResilientWatch, startResilientWatch } from '../../source/kube/resilient-watch.js';
import { startTestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

describe('leadingContinue', () => {
	test("reads the token of the list's metadata, the simulated cluster's and kube-apiserver's alike", () => {
		expect(
			leadingContinue(
				'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OSwic3RhcnQiOiJkZXNrLTEwXHUwMDAwIn0","remainingItemCount":5},"items":[{}]}',
			),
		).toBe('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OSwic3RhcnQiOiJkZXNrLTEwXHUwMDAwIn0');
		expect(leadingContinue('{"metadata":{"continue":"a-b_c+d/e="},"items":[]}')).toBe('a-b_c+d/e=');
	});

	test('names nothing for a last page, a token after the items, or one with characters to unescape', () => {
		expect(leadingContinue('{"metadata":{"resourceVersion":"9"},"items":[]}')).toBeUndefined();
		expect(
			leadingContinue('{"metadata":{},"items":[{"metadata":{"continue":"x"}}],"y":1}'),
		).toBeUndefined();
		expect(leadingContinue('{"metadata":{"continue":"a\\u0041"},"items":[]}')).toBeUndefined();
		expect(leadingContinue('{"metadata":{"continue":""},"items":[]}')).toBeUndefined();
		expect(
			leadingContinue(`{"x":"${'y'.repeat(10_000)}","metadata":{"continue":"z"}}`),
		).toBeUndefined();
	});
});

const servers: http.Server[] = [];
const watches: ResilientWatch[] = [];
afterEach(async () => {
	for (const w of watches.splice(0)) w.stop();
	for (const s of servers.splice(0)) {
		s.closeAllConnections();
		await new Promise((r) => s.close(r));
	}
});

/** What the server saw of one request: its continue token, and whether it was dropped unanswered. */
interface Asked {
	cont: string | null;
	dropped: boolean;
}

/**
 * A plain-HTTP API server whose ConfigMap list pages are the texts of `pages` by continue
 * token ('' for the first; a token not there is never answered); watches are held open. Its
 * kubeconfig's path, and what it was asked.
 */
async function serve(
	pages: Record<string, string>,
): Promise<{ kubeconfig: string; asked: Asked[] }> {
	const asked: Asked[] = [];
	const server = http.createServer((req, res) => {
		const q = new URL(req.url ?? '/', 'http://x').searchParams;
		if (q.get('watch') === 'true') {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			return;
		}
		const cont = q.get('continue');
		const entry: Asked = { cont, dropped: false };
		asked.push(entry);
		const text = pages[cont ?? ''];
		if (text === undefined) {
			req.socket.once('close', () => {
				entry.dropped = true;
			});
			return;
		}
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(text);
	});
	servers.push(server);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const { port } = server.address() as AddressInfo;
	const kubeconfig = join(mkdtempSync(join(tmpdir(), 'ctpool-pages-')), 'kubeconfig');
	writeFileSync(
		kubeconfig,
		JSON.stringify({
			apiVersion: 'v1',
			kind: 'Config',
			clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }],
			users: [{ name: 'u', user: { token: 't' } }],
			contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 't' } }],
			'current-context': 'x',
		}),
	);
	return { kubeconfig, asked };
}

const cm = (name: string) =>
	JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 't' } });
const page = (metadata: string, ...names: string[]) =>
	`{"kind":"ConfigMapList","apiVersion":"v1","metadata":${metadata},"items":[${names.map(cm).join(',')}]}`;

/**
 * Watches the server's ConfigMaps; the names of each full list, the states, and what was told
 * in order: each page as it came, then each list.
 */
async function watchServer(kubeconfig: string) {
	const kube = await loadKube({ kubeconfig });
	const lists: string[][] = [];
	const phases: string[] = [];
	const told: string[] = [];
	const names = (objects: readonly KubeObject[]) => objects.map((o) => o.metadata.name).join(',');
	const watch = startResilientWatch(
		kube,
		{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespace: 't' },
		{ pageSize: 2, backoffMs: { initial: 60_000, max: 60_000 } },
		{
			onReset: (objects: KubeObject[]) => {
				told.push(`list ${names(objects)}`);
				lists.push(objects.map((o) => o.metadata.name ?? ''));
			},
			onPage: (objects) => told.push(`page ${names(objects)}`),
			onChange() {},
			onState: (s) => phases.push(s.phase),
		},
	);
	watches.push(watch);
	return { lists, phases, told };
}

describe('a paged list asks for the next page ahead', () => {
	test('a page whose head names another token than it parses to: the page it parses to is read, the other dropped', async () => {
		// JSON.parse keeps the last of two keys of one name; the head's first names "hint"
		const { kubeconfig, asked } = await serve({
			'': page('{"resourceVersion":"5","continue":"hint","continue":"real"}', 'a', 'b'),
			real: page('{"resourceVersion":"5","continue":"last"}', 'c', 'd'),
			last: page('{"resourceVersion":"5"}', 'e'),
		});
		const { lists, told } = await watchServer(kubeconfig);
		await waitFor(() => lists.length === 1, { what: 'the whole list' });
		expect(lists[0]).toEqual(['a', 'b', 'c', 'd', 'e']);
		// each page told as it came, the objects the list then holds, the list after them
		expect(told).toEqual(['page a,b', 'page c,d', 'page e', 'list a,b,c,d,e']);
		await waitFor(() => asked.find((a) => a.cont === 'hint')?.dropped, {
			what: 'the page asked for on the hint dropped',
		});
		expect(asked.map((a) => a.cont)).toEqual([null, 'hint', 'real', 'last']);
	});

	test('the next page is asked for before the page naming it is parsed, and dropped when that page does not parse', async () => {
		const { kubeconfig, asked } = await serve({
			// a head that names the next page, then a body cut short
			'': '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"next"},"items":[{"metadata":',
		});
		const { lists, phases, told } = await watchServer(kubeconfig);
		await waitFor(() => phases.includes('reconnecting'), { what: 'the list failed' });
		// a page that does not parse is never told
		await waitFor(() => asked.find((a) => a.cont === 'next')?.dropped, {
			what: 'the page asked for ahead dropped',
		});
		expect(lists).toEqual([]);
		expect(told).toEqual([]);
	});
});

describe('a list page of the wrong shape', () => {
	test('entries that are no objects go on to the list as they are (its consumer names them); the rest get their kind', async () => {
		const { kubeconfig } = await serve({
			'': `{"kind":"ConfigMapList","metadata":{"resourceVersion":"5"},"items":[null,"x",7,[],${cm('a')},{"metadata":{"name":"b"}}]}`,
		});
		const kube = await loadKube({ kubeconfig });
		const lists: unknown[][] = [];
		const watch = startResilientWatch(
			kube,
			{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespace: 't' },
			{ backoffMs: { initial: 60_000, max: 60_000 } },
			{ onReset: (objects) => lists.push(objects), onChange() {}, onState() {} },
		);
		watches.push(watch);
		await waitFor(() => lists.length === 1, { what: 'the list' });
		expect(lists[0]?.slice(0, 4)).toEqual([null, 'x', 7, []]);
		expect(lists[0]?.[5]).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'b' } });
		expect(watch.resourceVersion()).toBe('5');
	});

	test.each([
		[
			'items that are no list',
			'{"metadata":{"resourceVersion":"5"},"items":{"a":1}}',
			'items is not a list',
		],
		['an answer that is no object', 'null', 'the answer is not an object'],
		[
			'a continue token that is no text',
			'{"metadata":{"continue":7},"items":[]}',
			'metadata.continue is not text',
		],
		[
			'a resourceVersion that is no text',
			'{"metadata":{"resourceVersion":{}},"items":[]}',
			'metadata.resourceVersion is not text',
		],
	])('%s: the list fails, naming it, and is never taken as empty', async (_what, text, named) => {
		const { kubeconfig } = await serve({ '': text });
		const kube = await loadKube({ kubeconfig });
		const lists: unknown[][] = [];
		const states: ConnectionState[] = [];
		const watch = startResilientWatch(
			kube,
			{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespace: 't' },
			{ backoffMs: { initial: 60_000, max: 60_000 } },
			{ onReset: (objects) => lists.push(objects), onChange() {}, onState: (s) => states.push(s) },
		);
		watches.push(watch);
		await waitFor(() => states.some((s) => s.phase === 'reconnecting'), {
			what: 'the list failed',
		});
		expect(JSON.stringify(states.at(-1))).toContain(named);
		expect(lists).toEqual([]);
	});
});

describe('a paged list on the simulated cluster', { timeout: 60_000 }, () => {
	test('delivers every object once, each page asked for once', async () => {
		const sim = await startTestSim();
		try {
			const names = Array.from({ length: 7 }, (_, i) => `pages-${i}`);
			for (const name of names)
				sim.cluster.store.create('configmaps', {
					apiVersion: 'v1',
					kind: 'ConfigMap',
					metadata: { name, namespace: 'corral', labels: { 'pages-test': 'x' } },
					data: {},
				});
			const kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
			const lists: string[][] = [];
			const mark = sim.cluster.audit.mark();
			const watch = startResilientWatch(
				kube,
				{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespace: 'corral' },
				{ labelSelector: 'pages-test', pageSize: 2 },
				{
					onReset: (objects) => lists.push(objects.map((o) => o.metadata.name ?? '')),
					onChange() {},
					onState() {},
				},
			);
			watches.push(watch);
			await waitFor(() => lists.length === 1, { what: 'the whole list' });
			expect([...(lists[0] ?? [])].sort()).toEqual(names);
			const pagesAsked = sim.cluster.audit
				.since(mark)
				.requests.filter((r) => r.verb === 'list' && r.resource === 'configmaps');
			// 7 objects at 2 a page: 4 pages, none asked for twice, the watch after them
			expect(pagesAsked).toHaveLength(4);
		} finally {
			await sim.cleanup();
		}
	});
});
