/** Making strings from the cluster safe to draw on a terminal. */

// C0 and C1 controls, DEL, and the escape sequences they start (CSI, OSC, DCS, APC, PM, SOS).
const ESCAPE_SEQUENCE =
	/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[@-Z\\-_]?/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A cluster string made inert for the terminal: escape sequences removed, every other
 * control character (newlines and tabs included) replaced by a space, bidirectional
 * overrides and zero-width characters dropped. Non-strings become ''.
 */
export function sanitize(value: unknown): string {
	if (typeof value !== 'string')
		return value === undefined || value === null ? '' : sanitize(String(value));
	if (!/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/.test(value))
		return value;
	return value.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, (c) => (c <= '\u009f' ? ' ' : ''));
}

/** The most characters of one cluster string that a table cell, row or message shows. */
export const DISPLAY_BOUND = 256;

/**
 * A cluster string cut to a display bound before anything else is done with it, then
 * sanitised; ends in an ellipsis when cut. Cheap whatever the size of the value (JSON and
 * YAML outputs keep the full value: use sanitize there).
 */
export function bounded(value: unknown, max: number = DISPLAY_BOUND): string {
	const text = typeof value === 'string' ? value : sanitize(value);
	if (text.length <= max) return sanitize(text);
	return `${sanitize(text.slice(0, max))}…`;
}

/** Strings made inert for the terminal, everywhere in a JSON value. */
export function sanitizeDeep(value: unknown): unknown {
	if (typeof value === 'string') return sanitize(value);
	if (Array.isArray(value)) return value.map(sanitizeDeep);
	if (value && typeof value === 'object')
		return Object.fromEntries(
			Object.entries(value).map(([k, v]) => [sanitize(k), sanitizeDeep(v)]),
		);
	return value;
}
