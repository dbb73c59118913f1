/**
 * The rollout as the header leads the spec line with it: where it goes (the image, not a
 * hash), how far it is, and what the members still on the old source wait for:
 * `rolling 2/4 to ghcr.io/example/desktop:2 · 3 on the old image, replaced after release or
 * in its wave`. Shortened (the image's registry and path, then words) to fit the width.
 */

import { rolloutText } from '../../pool/rollout.js';
import { displayWidth } from '../render/text-fit.js';
import { type PoolDerivation, poolRollout } from './pool-derivation.js';

/** The image without its registry and path: `ghcr.io/example/desktop:2` -> `desktop:2`. */
function shortImage(image: string): string {
	const name = image.split('@')[0] ?? image;
	const slash = name.lastIndexOf('/');
	return slash >= 0 ? image.slice(slash + 1) : image;
}

/** What the members on the old source wait for, longest first; [] when none is left. */
function oldNotes(p: PoolDerivation): string[] {
	const waves = p.spec?.maxUnavailable !== undefined;
	let old = 0;
	let claimed = 0;
	let image = false;
	for (const r of p.rows) {
		if (!r.drifted || r.aboveSize) continue;
		old++;
		if (r.holder) claimed++;
		if (r.drift[0]?.startsWith('image ')) image = true;
	}
	const what = image ? 'old image' : 'old definition';
	if (waves && old > 0)
		return [
			`${old} on the ${what}, replaced after release or in its wave`,
			`${old} ${what}, replaced after release or in its wave`,
		];
	// all at once: the unclaimed ones are being replaced now; the claimed ones wait
	if (claimed > 0)
		return [
			`${claimed} claimed on the ${what}, replaced after release`,
			`${claimed} ${what}, replaced after release`,
		];
	return [];
}

/**
 * The lead of the header's spec line while a rollout runs (null when none does), the longest
 * form that fits width: the full image, then the short one; the long wording, then the short.
 */
export function rolloutLead(p: PoolDerivation, width: number): string | null {
	const rollout = poolRollout(p);
	if (!rollout) return null;
	const notes = oldNotes(p);
	const images = rollout.image ? [rollout.image, shortImage(rollout.image)] : [undefined];
	const forms: string[] = [];
	for (const image of images) {
		const head = rolloutText({ ...rollout, ...(image ? { image } : {}) });
		if (notes.length === 0) forms.push(head);
		for (const note of notes) forms.push(`${head} · ${note}`);
	}
	return forms.find((f) => displayWidth(f) <= width) ?? forms[forms.length - 1] ?? null;
}
