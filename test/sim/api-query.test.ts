import { describe, expect, it } from 'vitest';
import { parseInt64, queryBool } from '../../source/sim/query.js';
import { simFetch, withSim } from '../support/sim.js';

const NS = 'corral';
const env = withSim();

describe('query parameters as the real server parses them', () => {
	it('booleans: false only when absent, 0 or false in any case; anything else is true', () => {
		const b = (v?: string) =>
			queryBool(new URLSearchParams(v === undefined ? '' : `watch=${v}`), 'watch');
		for (const v of [undefined, '0', 'false', 'False', 'FALSE', 'fAlSe']) expect(b(v)).toBe(false);
		for (const v of ['1', 'true', 'True', 'TRUE', 't', 'yes', '', 'f', 'no'])
			expect(b(v)).toBe(true);
		// a repeated parameter: the first value wins
		expect(queryBool(new URLSearchParams('watch=false&watch=true'), 'watch')).toBe(false);
	});

	it('integers: Go strconv.ParseInt, with its error text', () => {
		expect(parseInt64('42')).toBe(42);
		expect(parseInt64('+7')).toBe(7);
		expect(parseInt64('-3')).toBe(-3);
		expect(() => parseInt64('1.5')).toThrow('strconv.ParseInt: parsing "1.5": invalid syntax');
		expect(() => parseInt64('')).toThrow('strconv.ParseInt: parsing "": invalid syntax');
		expect(() => parseInt64('99999999999999999999')).toThrow(
			'strconv.ParseInt: parsing "99999999999999999999": value out of range',
		);
	});

	it('watch=True (as the Python client sends it) watches', async () => {
		const controller = new AbortController();
		const res = await fetch(`${env.cluster.url}/api/v1/namespaces?watch=True`, {
			headers: { Authorization: `Bearer ${env.cluster.token}` },
			signal: controller.signal,
		});
		expect(res.headers.get('transfer-encoding')).toBe('chunked');
		const { value } = await res.body!.getReader().read();
		expect(JSON.parse(new TextDecoder().decode(value).split('\n')[0]!)).toMatchObject({
			type: 'ADDED',
		});
		controller.abort();
	});

	it('a malformed integer is 400 BadRequest with the Go text, on list, watch and delete', async () => {
		for (const [method, path] of [
			['GET', `/api/v1/namespaces/${NS}/configmaps?limit=ten`],
			['GET', `/api/v1/namespaces/${NS}/configmaps?watch=1&timeoutSeconds=ten`],
			['DELETE', `/api/v1/namespaces/${NS}/configmaps/x?gracePeriodSeconds=ten`],
		] as const) {
			const r = await simFetch(env.cluster, path, { method });
			expect(r.status).toBe(400);
			expect(r.json()).toMatchObject({
				reason: 'BadRequest',
				message: 'strconv.ParseInt: parsing "ten": invalid syntax',
			});
		}
	});

	it('limit: the first of repeated values wins', async () => {
		for (const n of ['a', 'b', 'c']) {
			await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps`, {
				method: 'POST',
				body: JSON.stringify({ metadata: { name: `q-${n}` } }),
				headers: { 'Content-Type': 'application/json' },
			});
		}
		const r = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps?limit=1&limit=50`);
		expect((r.json() as { items: unknown[] }).items).toHaveLength(1);
	});
});
