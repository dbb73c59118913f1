/**
 * A streamed line is bounded whatever the server sends: a log line over 64 KiB is handed on
 * cut, with a marker, as soon as the limit is passed (nothing waits for its newline), and the
 * rest of it is dropped as it arrives; a previous container's log is read with limitBytes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, test } from 'vitest';
import { LineSplitter } from '../../source/kube/api-request.js';
import { followPodLog, LOG_LINE_LIMIT } from '../../source/kube/pod-log.js';
import { waitFor } from '../support/wait.js';

const servers: http.Server[] = [];
afterEach(async () => {
	for (const s of servers.splice(0)) {
		s.closeAllConnections();
		await new Promise((r) => s.close(r));
	}
});

/** A plain-HTTP API server whose log endpoint is `handler`; its kubeconfig. */
async function serve(handler: http.RequestListener): Promise<KubeConfig> {
	const server = http.createServer(handler);
	servers.push(server);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const { port } = server.address() as AddressInfo;
	const kc = new KubeConfig();
	kc.loadFromOptions({
		clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
		users: [{ name: 'u' }],
		contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
		currentContext: 'x',
	});
	return kc;
}

describe('log lines are cut at 64 KiB', () => {
	test('a huge line is handed on cut with a marker before its end arrives; the next lines whole', async () => {
		const MiB = 'x'.repeat(1024 * 1024);
		let res: http.ServerResponse | undefined;
		const kc = await serve((_req, r) => {
			res = r;
			r.writeHead(200, { 'Content-Type': 'text/plain' });
			r.write('first\n');
			// 32 MiB of one line, and no newline yet
			for (let i = 0; i < 32; i++) r.write(MiB);
		});
		const lines: string[] = [];
		const stop = new AbortController();
		const done = followPodLog(kc, 'corral', 'desk-1', stop.signal, (l) => lines.push(l));
		try {
			await waitFor(() => lines.length >= 2, { what: 'the cut line', timeoutMs: 10_000 });
			expect(lines[0]).toBe('first');
			expect(lines[1]).toBe('x'.repeat(64 * 1024) + LOG_LINE_LIMIT.marker);
			expect(LOG_LINE_LIMIT.marker).toContain('cut');
			res?.write(`${MiB}\nafter\n`);
			res?.end('last');
			await done;
			expect(lines.slice(2)).toEqual(['after', 'last']);
		} finally {
			stop.abort();
			await done.catch(() => undefined);
		}
	});

	test('a previous container log is read with limitBytes; a followed one is not', async () => {
		const queries: URLSearchParams[] = [];
		const kc = await serve((req, r) => {
			queries.push(new URL(req.url ?? '/', 'http://x').searchParams);
			r.end('a\n');
		});
		const signal = new AbortController().signal;
		await followPodLog(kc, 'corral', 'desk-1', signal, () => {}, { previous: true });
		await followPodLog(kc, 'corral', 'desk-1', signal, () => {});
		expect(Number(queries[0]?.get('limitBytes'))).toBeGreaterThan(0);
		expect(queries[1]?.get('limitBytes')).toBeNull();
	});
});

describe('LineSplitter', () => {
	const split = (chunks: string[], maxChars = 4) => {
		const out: string[] = [];
		const s = new LineSplitter({ maxChars, marker: '~' }, (l) => out.push(l));
		for (const c of chunks) s.push(c);
		s.end();
		return out;
	};
	test('splits across chunks, skips empty lines, cuts and drops the rest of a long line', () => {
		expect(split(['ab\n\ncd', 'e\nf'])).toEqual(['ab', 'cde', 'f']);
		expect(split(['abcdefgh\nij'])).toEqual(['abcd~', 'ij']);
		expect(split(['ab', 'cd', 'ef', 'gh', '\nij\n'])).toEqual(['abcd~', 'ij']);
		expect(split(['abcd\n'])).toEqual(['abcd']);
		// a surrogate pair is not torn at the cut
		expect(split(['abc\u{1F600}zz\n'])).toEqual(['abc~']);
	});
});
