import { describe, expect, it } from 'vitest';
import {
	configMapName,
	isImageReference,
	leaseName,
	memberIndex,
	memberName,
	memberOfLease,
	memberOfPvc,
	parseQuantity,
	poolNameProblem,
	poolOfConfigMap,
	pvcName,
	serviceName,
} from '../../source/pool/index.js';

describe('names', () => {
	it('derives every object name from the pool and member', () => {
		expect(configMapName('desk')).toBe('corral-vdi-ctpool-desk');
		expect(memberName('desk', 3)).toBe('desk-3');
		expect(pvcName('desk-3')).toBe('desk-3-data');
		expect(serviceName('desk-3')).toBe('desk-3-svc');
		expect(leaseName('desk-3')).toBe('corral-vdi-ct-desk-3');
	});

	it('reads names back', () => {
		expect(poolOfConfigMap('corral-vdi-ctpool-desk')).toBe('desk');
		expect(poolOfConfigMap('kube-root-ca.crt')).toBeNull();
		expect(memberOfLease('corral-vdi-ct-desk-3')).toBe('desk-3');
		expect(memberOfLease('other')).toBeNull();
		expect(memberOfPvc('desk-3-data')).toBe('desk-3');
		expect(memberOfPvc('desk-3')).toBeNull();
	});

	it.each([
		['desk', 'desk-1', 1],
		['desk', 'desk-1000', 1000],
		['desk', 'desk-0', null],
		['desk', 'desk-01', null],
		['desk', 'desk-1-1', null],
		['desk', 'desk-x', null],
		['desk', 'desk-', null],
		['desk', 'desktop-1', null],
		['desk-1', 'desk-1-2', 2],
		['desk', 'desk-1-data', null],
	])('member index of %s / %s is %s', (pool, name, index) => {
		expect(memberIndex(pool, name)).toBe(index);
	});

	it.each([
		['desk', null],
		['a', null],
		['a'.repeat(40), null],
		['', /empty/],
		['a'.repeat(41), /41 characters long; use at most 40/],
		['Desk', /not a DNS-1123 label/],
		['desk_1', /not a DNS-1123 label/],
		['-desk', /not a DNS-1123 label/],
		['desk-', /not a DNS-1123 label/],
		['de\u001bsk', /not a DNS-1123 label/],
	])('pool name %j', (name, problem) => {
		const p = poolNameProblem(name);
		if (problem === null) expect(p).toBeNull();
		else expect(p).toMatch(problem);
	});
});

describe('quantities and images', () => {
	it.each([
		['1', 1],
		['500m', 0.5],
		['2Gi', 2 * 2 ** 30],
		['1.5G', 1.5e9],
		['1e3', 1000],
		['.5', 0.5],
		['-1', -1],
	])('parses %s', (q, v) => {
		expect(parseQuantity(q)).toBeCloseTo(v);
	});

	it.each(['', 'Gi', '1 Gi', '1gi', '1.2.3', 'abc', '1Zi'])('refuses %j', (q) => {
		expect(parseQuantity(q)).toBeNull();
	});

	it('answers a text parsed before as it did, past the texts it keeps too', () => {
		const texts = Array.from({ length: 600 }, (_, i) => (i % 3 === 2 ? `${i}x` : `${i}Mi`));
		const first = texts.map(parseQuantity);
		expect(first[0]).toBe(0);
		expect(first[1]).toBe(2 ** 20);
		expect(first[2]).toBeNull();
		// again, in the other order: the kept texts and the ones parsed anew agree
		expect([...texts].reverse().map(parseQuantity)).toEqual([...first].reverse());
		expect(parseQuantity('1Gi')).toBe(2 ** 30);
		expect(parseQuantity('1Gi')).toBe(2 ** 30);
	});

	it.each([
		['ghcr.io/example/desktop:1', true],
		['ubuntu', true],
		['library/ubuntu:22.04', true],
		['localhost:5000/a/b', true],
		['[::1]:5000/a:b', true],
		['a/b@sha256:0123456789abcdef0123456789abcdef', true],
		['upper/Case', false],
		['a//b', false],
		['a:', false],
		[':tag', false],
		['a b', false],
		['a/b:t@g', false],
	])('image reference %s is %s', (ref, ok) => {
		expect(isImageReference(ref)).toBe(ok);
	});
});
