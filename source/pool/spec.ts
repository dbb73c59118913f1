/** The pool definition (`spec`): parse, default, validate, serialise. */

import { PERSISTENT_MESSAGE, PoolError } from './errors.js';
import { isImageReference } from './image-ref.js';
import { isDnsSubdomain } from './names.js';
import { parseQuantity } from './quantity.js';

/** A pool's mode. Only ephemeral is supported. */
export type PoolMode = 'ephemeral' | 'persistent';

/** A validated pool definition with every default filled in. */
export interface PoolSpec {
	image: string;
	/** Whole cores, as written: a positive integer, or a string of one. */
	cpu: string | number;
	memory: string;
	disk: string;
	storageClass: string;
	privileged: boolean;
	init: boolean;
	mode: PoolMode;
	size: number;
	/**
	 * An extension: how many unclaimed members a rollout (drift replaces) may make
	 * unavailable at once, a whole number or a percentage of the size (`25%`, the default
	 * when absent; at least 1). Absent from the spec text unless set.
	 */
	maxUnavailable?: number | string;
}

/** The fields a member is built from: a change to any of them is drift. */
export type SourceFields = Pick<
	PoolSpec,
	'image' | 'cpu' | 'memory' | 'disk' | 'storageClass' | 'privileged' | 'init'
>;

/** The source field names, in the order the hash sorts them. */
export const SOURCE_FIELDS = [
	'cpu',
	'disk',
	'image',
	'init',
	'memory',
	'privileged',
	'storageClass',
] as const satisfies ReadonlyArray<keyof SourceFields>;

/** The source field names by weight: the image, the resources, the rest (drift names them so). */
export const SOURCE_FIELDS_BY_WEIGHT = [
	'image',
	'cpu',
	'memory',
	'disk',
	'storageClass',
	'privileged',
	'init',
] as const satisfies ReadonlyArray<keyof SourceFields>;

/** Defaults of the optional fields. */
export const SPEC_DEFAULTS = {
	cpu: '1',
	memory: '512Mi',
	disk: '5Gi',
	storageClass: '',
	privileged: false,
	init: false,
	mode: 'ephemeral',
} as const;

/** Largest pool size. */
export const MAX_SIZE = 1000;

const KNOWN_KEYS = new Set<string>([...SOURCE_FIELDS_BY_WEIGHT, 'mode', 'size', 'maxUnavailable']);

/** Options for validation. */
export interface ValidateOptions {
	/** Accept mode: persistent (to read and show such a definition); operations refuse it. */
	allowPersistent?: boolean;
	/**
	 * How the fix's ctpool command is written, so that it runs as printed (its -n and
	 * --context); default `ctpool <words>`.
	 */
	command?: (words: string) => string;
}

/**
 * Every problem with a candidate definition, each naming the field, what is wrong and the
 * fix. An empty list means the definition is valid. Unknown keys are problems too: a
 * hand-edited definition with a typo must not be half-understood.
 */
export function specProblems(raw: unknown, opts: ValidateOptions = {}): string[] {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
		return ['the definition is not a JSON object; write it as {"image": "...", "size": N, ...}'];
	const o = raw as Record<string, unknown>;
	const problems: string[] = [];
	for (const key of Object.keys(o)) {
		if (!KNOWN_KEYS.has(key))
			problems.push(
				`unknown field ${JSON.stringify(key.slice(0, 40))}; the fields are ${[...KNOWN_KEYS].join(', ')}`,
			);
	}
	if (o.image === undefined)
		problems.push('image is missing; set it, for example --image ghcr.io/example/desktop:1');
	else if (typeof o.image !== 'string' || !isImageReference(o.image))
		problems.push(
			`image ${show(o.image)} is not a valid image reference; use a form such as ghcr.io/example/desktop:1`,
		);
	const cpuProblem = o.cpu === undefined ? null : cpuCoresProblem(o.cpu);
	if (cpuProblem) problems.push(cpuProblem);
	for (const [key, example] of [
		['memory', '2Gi'],
		['disk', '5Gi'],
	] as const) {
		const v = o[key];
		if (v === undefined) continue;
		const n = typeof v === 'string' ? parseQuantity(v) : null;
		if (n === null)
			problems.push(
				`${key} ${show(v)} is not a Kubernetes quantity; use a value such as ${example}`,
			);
		else if (n <= 0)
			problems.push(`${key} ${show(v)} must be greater than zero; use a value such as ${example}`);
	}
	if (o.storageClass !== undefined) {
		if (
			typeof o.storageClass !== 'string' ||
			(o.storageClass !== '' && !isDnsSubdomain(o.storageClass))
		)
			problems.push(
				`storageClass ${show(o.storageClass)} is not a StorageClass name; use a DNS name such as fast-ssd, or leave it empty for the cluster default`,
			);
	}
	for (const key of ['privileged', 'init'] as const) {
		if (o[key] !== undefined && typeof o[key] !== 'boolean')
			problems.push(`${key} ${show(o[key])} must be true or false`);
	}
	if (o.mode !== undefined) {
		if (o.mode === 'persistent') {
			if (!opts.allowPersistent) problems.push(PERSISTENT_MESSAGE);
		} else if (o.mode !== 'ephemeral')
			problems.push(
				`mode ${show(o.mode)} is not a pool mode; the only supported mode is ephemeral`,
			);
	}
	if (o.maxUnavailable !== undefined && maxUnavailableProblem(o.maxUnavailable))
		problems.push(maxUnavailableProblem(o.maxUnavailable)!);
	if (o.size === undefined) problems.push('size is missing; set it, for example --size 3');
	else if (
		typeof o.size !== 'number' ||
		!Number.isInteger(o.size) ||
		o.size < 0 ||
		o.size > MAX_SIZE
	)
		problems.push(`size ${show(o.size)} must be a whole number from 0 to ${MAX_SIZE}`);
	return problems;
}

/**
 * Why a maxUnavailable value is unusable, or null: a whole number of at least 1, or a
 * percentage from 1% to 100% written as a string.
 */
export function maxUnavailableProblem(v: unknown): string | null {
	if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_SIZE) return null;
	if (typeof v === 'string' && /^\d{1,3}%$/.test(v)) {
		const p = Number(v.slice(0, -1));
		if (p >= 1 && p <= 100) return null;
	}
	return `maxUnavailable ${show(v)} must be a whole number of at least 1 or a percentage of the size such as 25%`;
}

/** Fills in the defaults of a candidate that specProblems accepted. */
function withDefaults(o: Record<string, unknown>): PoolSpec {
	const spec = base(o);
	if (o.maxUnavailable !== undefined) spec.maxUnavailable = o.maxUnavailable as number | string;
	return spec;
}

function base(o: Record<string, unknown>): PoolSpec {
	return {
		image: o.image as string,
		cpu: (o.cpu as string | number | undefined) ?? SPEC_DEFAULTS.cpu,
		memory: (o.memory as string | undefined) ?? SPEC_DEFAULTS.memory,
		disk: (o.disk as string | undefined) ?? SPEC_DEFAULTS.disk,
		storageClass: (o.storageClass as string | undefined) ?? SPEC_DEFAULTS.storageClass,
		privileged: (o.privileged as boolean | undefined) ?? SPEC_DEFAULTS.privileged,
		init: (o.init as boolean | undefined) ?? SPEC_DEFAULTS.init,
		mode: (o.mode as PoolMode | undefined) ?? SPEC_DEFAULTS.mode,
		size: o.size as number,
	};
}

/**
 * Validates a candidate definition object and fills in defaults.
 * Throws PoolError (kind 'persistent' when that is the only problem, else 'invalid-spec').
 */
export function validateSpec(raw: unknown, opts: ValidateOptions = {}): PoolSpec {
	const problems = specProblems(raw, opts);
	if (problems.length > 0) {
		const kind =
			problems.length === 1 && problems[0] === PERSISTENT_MESSAGE ? 'persistent' : 'invalid-spec';
		throw new PoolError(kind, problems.length === 1 ? problems[0]! : problems.join('; '));
	}
	return withDefaults(raw as Record<string, unknown>);
}

/**
 * Parses the `spec` text of a definition ConfigMap. A text that is not JSON, or a definition
 * that does not validate, is a PoolError naming the pool, the problem and the fix.
 */
export function parseSpec(
	text: string | undefined,
	pool: string,
	opts: ValidateOptions = {},
): PoolSpec {
	const command = opts.command ?? ((words: string) => `ctpool ${words}`);
	if (text === undefined || text.trim() === '')
		throw new PoolError(
			'invalid-spec',
			`pool ${pool}: the definition has no "spec"; run ${command(`apply ${pool} --image IMAGE --size N`)} to write one`,
		);
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (e) {
		throw new PoolError(
			'invalid-spec',
			`pool ${pool}: the definition's spec is not valid JSON (${(e as Error).message}); fix it with ${command(`apply ${pool} --image IMAGE --size N`)}`,
		);
	}
	try {
		return validateSpec(raw, opts);
	} catch (e) {
		const err = e as PoolError;
		if (err.kind === 'persistent') throw err;
		throw new PoolError(
			'invalid-spec',
			`pool ${pool}: the definition is invalid: ${err.message}; fix it with ${command(`apply ${pool}`)}`,
		);
	}
}

/** The definition as the JSON text stored under `spec`, keys in a fixed order. */
export function serialiseSpec(spec: PoolSpec): string {
	const { image, cpu, memory, disk, storageClass, privileged, init, mode, size } = spec;
	const text = { image, cpu, memory, disk, storageClass, privileged, init, mode, size };
	if (spec.maxUnavailable === undefined) return JSON.stringify(text);
	return JSON.stringify({ ...text, maxUnavailable: spec.maxUnavailable });
}

/** The source fields of a definition. */
export function sourceFields(spec: SourceFields): SourceFields {
	return {
		image: spec.image,
		cpu: spec.cpu,
		memory: spec.memory,
		disk: spec.disk,
		storageClass: spec.storageClass,
		privileged: spec.privileged,
		init: spec.init,
	};
}

/** The rule for cpu, named in every error about it. */
export const CPU_RULE =
	'cpu is whole cores, as for every Corral CT: a positive integer such as 1 or 2, written as a number or a string of one';

/**
 * Why a cpu value is not whole cores, or null when it is: a positive integer, as a number or
 * a string of digits. A value that is no quantity at all, or not above zero, says so first.
 */
export function cpuCoresProblem(v: unknown): string | null {
	if (typeof v === 'number') {
		if (!Number.isFinite(v)) return `cpu ${show(v)} is not a number of cores; ${CPU_RULE}`;
		if (v <= 0) return `cpu ${show(v)} must be greater than zero; ${CPU_RULE}`;
		return Number.isSafeInteger(v) ? null : `cpu ${show(v)} is not whole cores; ${CPU_RULE}`;
	}
	if (typeof v !== 'string') return `cpu ${show(v)} is not a number of cores; ${CPU_RULE}`;
	const n = parseQuantity(v);
	if (n === null) return `cpu ${show(v)} is not a Kubernetes quantity; ${CPU_RULE}`;
	if (n <= 0) return `cpu ${show(v)} must be greater than zero; ${CPU_RULE}`;
	if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n))
		return `cpu ${show(v)} is not whole cores; ${CPU_RULE}`;
	return null;
}

function show(v: unknown): string {
	const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
	return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
