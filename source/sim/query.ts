/**
 * Query parameters as kube-apiserver's parameter codec reads them: the first value of a
 * repeated parameter wins; booleans are false only when absent, `0` or `false` (any case),
 * and true otherwise (even `yes` or empty); integers parse like Go's strconv.ParseInt and
 * a bad one is 400 BadRequest with Go's text. The dryRun and fieldValidation options are
 * checked as metav1 validation checks them (422 on the options kind).
 */

import { badRequest, SimError, type StatusCause } from './errors.js';

/** The first value of a parameter, or undefined when absent. */
export function queryString(q: URLSearchParams, name: string): string | undefined {
	return q.get(name) ?? undefined;
}

/** A boolean parameter: false when absent, `0` or `false` (any case); true for any other value. */
export function queryBool(q: URLSearchParams, name: string): boolean {
	const v = q.get(name);
	if (v === null) return false;
	return !(v === '0' || v.toLowerCase() === 'false');
}

/** A boolean parameter that may be absent (`*bool` in the options): undefined when absent. */
export function queryOptionalBool(q: URLSearchParams, name: string): boolean | undefined {
	return q.has(name) ? queryBool(q, name) : undefined;
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Parses a decimal int64 the way Go's strconv.ParseInt(s, 10, 64) does, with its error text. */
export function parseInt64(s: string): number {
	const quoted = JSON.stringify(s);
	if (!/^[+-]?\d+$/.test(s)) {
		throw badRequest(`strconv.ParseInt: parsing ${quoted}: invalid syntax`);
	}
	const big = BigInt(s);
	if (big > INT64_MAX || big < INT64_MIN) {
		throw badRequest(`strconv.ParseInt: parsing ${quoted}: value out of range`);
	}
	return Number(big);
}

/** An integer parameter (int64): undefined when absent, 400 BadRequest when malformed. */
export function queryInt(q: URLSearchParams, name: string): number | undefined {
	const v = q.get(name);
	return v === null ? undefined : parseInt64(v);
}

/** 422 Invalid on an options kind: `CreateOptions.meta.k8s.io "" is invalid: dryRun: ...`. */
export function invalidOptions(kind: string, causes: StatusCause[]): SimError {
	const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
	const list = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
	return new SimError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${list}`, {
		group: 'meta.k8s.io',
		kind,
		causes,
	});
}

/** A []string as kube-apiserver 1.36 prints it in a validation message: `["a","b"]`. */
function goStringSlice(values: string[]): string {
	return JSON.stringify(values);
}

/** The dryRun causes of a list of values (only `All` is allowed). */
export function dryRunCauses(values: readonly string[]): StatusCause[] {
	if (values.every((v) => v === 'All')) return [];
	return [
		{
			reason: 'FieldValueNotSupported',
			message: `Unsupported value: ${goStringSlice([...values])}: supported values: "All"`,
			field: 'dryRun',
		},
	];
}

/** How unknown and duplicate fields in a body are treated. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The fieldValidation causes of a value ('' is allowed and means the default, Warn). */
export function fieldValidationCauses(value: string): StatusCause[] {
	if (['', 'Ignore', 'Strict', 'Warn'].includes(value)) return [];
	return [
		{
			reason: 'FieldValueNotSupported',
			message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
			field: 'fieldValidation',
		},
	];
}

/** The write options of a create, update or patch, from its query, checked as the real server does. */
export interface WriteQuery {
	/** Whether `dryRun=All` was asked for. */
	dryRun: boolean;
	/** How unknown and duplicate fields are treated (default Warn, as in 1.27+). */
	fieldValidation: FieldValidation;
}

/**
 * Reads and checks the options of a create, update or patch (`kind` names the options kind
 * in errors: CreateOptions, UpdateOptions, PatchOptions).
 */
export function writeQuery(q: URLSearchParams, kind: string): WriteQuery {
	const dry = q.getAll('dryRun');
	const fv = q.get('fieldValidation') ?? '';
	const causes = [...dryRunCauses(dry), ...fieldValidationCauses(fv)];
	if (causes.length > 0) throw invalidOptions(kind, causes);
	return { dryRun: dry.length > 0, fieldValidation: (fv || 'Warn') as FieldValidation };
}
