import { describe, expect, it } from 'vitest';
import {
	PERSISTENT_MESSAGE,
	PoolError,
	parseSpec,
	serialiseSpec,
	specProblems,
	validateSpec,
} from '../../source/pool/index.js';

const base = { image: 'ghcr.io/example/desktop:1', size: 3 };

describe('validateSpec', () => {
	it('fills in every default', () => {
		expect(validateSpec(base)).toEqual({
			image: 'ghcr.io/example/desktop:1',
			cpu: '1',
			memory: '512Mi',
			disk: '5Gi',
			storageClass: '',
			privileged: false,
			init: false,
			mode: 'ephemeral',
			size: 3,
		});
	});

	it('keeps given values', () => {
		const spec = validateSpec({
			...base,
			cpu: '2',
			memory: '2Gi',
			disk: '10Gi',
			storageClass: 'fast-ssd',
			privileged: true,
			init: true,
			mode: 'ephemeral',
		});
		expect(spec).toMatchObject({
			cpu: '2',
			memory: '2Gi',
			storageClass: 'fast-ssd',
			privileged: true,
			init: true,
		});
	});

	it.each([
		['size 0 (a pool being deleted)', { ...base, size: 0 }],
		['size 1000', { ...base, size: 1000 }],
		['an image with a digest', { ...base, image: `busybox@sha256:${'a'.repeat(64)}` }],
		['a registry with a port', { ...base, image: 'localhost:5000/desk/top:latest' }],
		['a bare image', { ...base, image: 'ubuntu' }],
		['a cpu of whole cores as a number', { ...base, cpu: 4 }],
		['a cpu of whole cores as a string', { ...base, cpu: '16' }],
		['an exponent memory', { ...base, memory: '1e9' }],
	])('accepts %s', (_what, raw) => {
		expect(specProblems(raw)).toEqual([]);
	});

	it.each([
		['not an object', 'desk', /not a JSON object/],
		['an array', [base], /not a JSON object/],
		['null', null, /not a JSON object/],
		['no image', { size: 3 }, /image is missing/],
		['no size', { image: 'ubuntu' }, /size is missing/],
		['a negative size', { ...base, size: -1 }, /size -1 must be a whole number from 0 to 1000/],
		['a huge size', { ...base, size: 1001 }, /from 0 to 1000/],
		['a fractional size', { ...base, size: 1.5 }, /whole number/],
		['a string size', { ...base, size: '3' }, /size "3" must be a whole number/],
		[
			'an upper-case image',
			{ ...base, image: 'Ghcr.io/Example/Desk:1' },
			/not a valid image reference/,
		],
		['an image with spaces', { ...base, image: 'ubuntu latest' }, /not a valid image reference/],
		['an empty image', { ...base, image: '' }, /not a valid image reference/],
		['a numeric image', { ...base, image: 7 }, /not a valid image reference/],
		['a bad cpu', { ...base, cpu: 'two' }, /cpu "two" is not a Kubernetes quantity/],
		[
			'a cpu in millicores',
			{ ...base, cpu: '500m' },
			/cpu "500m" is not whole cores; cpu is whole cores, as for every Corral CT: a positive integer such as 1 or 2, written as a number or a string of one/,
		],
		['a decimal cpu', { ...base, cpu: '0.5' }, /cpu "0.5" is not whole cores/],
		['a fractional cpu number', { ...base, cpu: 1.5 }, /cpu 1.5 is not whole cores/],
		['a cpu with a suffix', { ...base, cpu: '1k' }, /cpu "1k" is not whole cores/],
		['a zero cpu', { ...base, cpu: 0 }, /cpu 0 must be greater than zero/],
		['a boolean cpu', { ...base, cpu: true }, /cpu true is not a number of cores/],
		['a zero memory', { ...base, memory: '0' }, /memory "0" must be greater than zero/],
		['a negative disk', { ...base, disk: '-5Gi' }, /disk "-5Gi" must be greater than zero/],
		['a numeric memory', { ...base, memory: 2 }, /memory 2 is not a Kubernetes quantity/],
		['a bad storage class', { ...base, storageClass: 'Fast SSD' }, /not a StorageClass name/],
		[
			'a string privileged',
			{ ...base, privileged: 'yes' },
			/privileged "yes" must be true or false/,
		],
		['a numeric init', { ...base, init: 1 }, /init 1 must be true or false/],
		['an unknown mode', { ...base, mode: 'sticky' }, /mode "sticky" is not a pool mode/],
		['an unknown field', { ...base, imgae: 'x' }, /unknown field "imgae"/],
	])('refuses %s with a message naming the problem', (_what, raw, message) => {
		expect(() => validateSpec(raw)).toThrow(message);
		try {
			validateSpec(raw);
		} catch (e) {
			expect(e).toBeInstanceOf(PoolError);
			expect((e as PoolError).kind).toBe('invalid-spec');
		}
	});

	it('refuses persistent mode with the contract text and its own kind', () => {
		try {
			validateSpec({ ...base, mode: 'persistent' });
			expect.unreachable();
		} catch (e) {
			expect((e as PoolError).kind).toBe('persistent');
			expect((e as PoolError).message).toBe(PERSISTENT_MESSAGE);
		}
	});

	it('reads a persistent definition when asked to', () => {
		expect(validateSpec({ ...base, mode: 'persistent' }, { allowPersistent: true }).mode).toBe(
			'persistent',
		);
	});

	it('reports every problem at once', () => {
		expect(specProblems({ image: '', size: -2, cpu: 'x' })).toHaveLength(3);
	});
});

describe('parseSpec', () => {
	it('round-trips through serialiseSpec', () => {
		const spec = validateSpec({ ...base, memory: '2Gi' });
		expect(parseSpec(serialiseSpec(spec), 'desk')).toEqual(spec);
	});

	it.each([
		['no spec', undefined, /has no "spec"/],
		['an empty spec', '  ', /has no "spec"/],
		['bad JSON', '{"image":', /not valid JSON/],
		['wrong types', '{"image":"ubuntu","size":"three"}', /size "three" must be a whole number/],
		['a missing field', '{"size":3}', /image is missing/],
	])('names the pool and the fix for %s', (_what, text, message) => {
		expect(() => parseSpec(text, 'desk')).toThrow(message);
		expect(() => parseSpec(text, 'desk')).toThrow(/pool desk/);
		expect(() => parseSpec(text, 'desk')).toThrow(/ctpool apply desk/);
	});

	it('keeps the persistent error as is', () => {
		expect(() => parseSpec('{"image":"u","size":1,"mode":"persistent"}', 'desk')).toThrow(
			PERSISTENT_MESSAGE,
		);
	});
});
