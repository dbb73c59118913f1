/** Kubernetes resource quantities: parsing and validation. */

import { memoizeByText } from '../text/memo.js';

const QUANTITY =
	/^([+-]?)((?:[0-9]+(?:\.[0-9]*)?)|(?:\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

const SUFFIX: Record<string, number> = {
	Ki: 2 ** 10,
	Mi: 2 ** 20,
	Gi: 2 ** 30,
	Ti: 2 ** 40,
	Pi: 2 ** 50,
	Ei: 2 ** 60,
	n: 1e-9,
	u: 1e-6,
	m: 1e-3,
	'': 1,
	k: 1e3,
	M: 1e6,
	G: 1e9,
	T: 1e12,
	P: 1e15,
	E: 1e18,
};

/**
 * The value of a quantity by its text, kept for the texts used lately: a pool's pods and PVCs
 * share a handful of texts ("1", "256Mi", "1Gi"), and a derivation of every member compares
 * each of them (16,000 parses for 2,000 members).
 */
const quantityByText = memoizeByText(quantityValue, 256);

/** The value of a quantity as a number (bytes, cores), or null when it does not parse. */
export function parseQuantity(q: string): number | null {
	if (typeof q !== 'string' || q.length === 0 || q.length > 64) return null;
	return quantityByText(q);
}

function quantityValue(q: string): number | null {
	const m = QUANTITY.exec(q);
	if (!m) return null;
	const sign = m[1] === '-' ? -1 : 1;
	const num = Number(m[2]);
	const suffix = m[3] ?? '';
	let factor: number;
	if (suffix.startsWith('e') || suffix.startsWith('E')) factor = 10 ** Number(suffix.slice(1));
	else factor = SUFFIX[suffix] ?? Number.NaN;
	const value = sign * num * factor;
	return Number.isFinite(value) ? value : null;
}
