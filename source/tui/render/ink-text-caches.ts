/**
 * Two more of Ink's per-frame computations, kept between frames; the build puts them in the
 * place of Ink's own (scripts/build.mjs), as it does Output (ink-output.ts).
 *
 * On every frame Ink walks every text node: it squashes its children into one string
 * (applying each nested Text's colours and stripping control sequences) and measures the
 * widest line of it. Under a live watch most text nodes are the same as on the frame before.
 *
 * - squashTextNodes: a node's string is kept with what it was made of (each child's text,
 *   and the transform of each nested Text); when those are the same, so is the string.
 *   React gives a Text that did not render again the same transform function, and Ink's
 *   transforms are pure (colours of a string), so this holds.
 * - widestLine: a pure function of its text.
 *
 * test/tui/ink-text-caches.test.ts holds both to Ink's own on generated trees.
 */

import { memoizeByText } from '../../text/memo.js';

// the build's stand-in of widest-line takes it from here, with squashTextNodes' memo: one
// module holds what the console keeps of Ink's text work (test/tui/one-ink.test.tsx counts both)
export { memoizeByText };

/** The part of Ink's DOM node that squashing reads. */
export interface InkTextNode {
	nodeName: string;
	nodeValue?: string;
	childNodes?: (InkTextNode | undefined)[];
	internal_transform?: (text: string, index: number) => string;
}

type Transform = (text: string, index: number) => string;

interface Squashed {
	/** Per child: its text before its transform, and the transform. */
	parts: (string | Transform | undefined)[];
	text: string;
}

/** Ink's squashTextNodes, each node's result kept while its children are the same. */
export function memoizeSquash(
	sanitizeAnsi: (text: string) => string,
): (node: InkTextNode) => string {
	const kept = new WeakMap<InkTextNode, Squashed>();
	const squash = (node: InkTextNode): string => {
		const children = node.childNodes ?? [];
		const parts: (string | Transform | undefined)[] = [];
		for (const child of children) {
			if (child === undefined) {
				parts.push(undefined, undefined);
				continue;
			}
			if (child.nodeName === '#text') parts.push(child.nodeValue ?? '', undefined);
			else
				parts.push(
					child.nodeName === 'ink-text' || child.nodeName === 'ink-virtual-text'
						? squash(child)
						: '',
					child.internal_transform,
				);
		}
		const before = kept.get(node);
		if (before && sameParts(before.parts, parts)) return before.text;
		// as Ink: each nested Text's transform on its own (non-empty) text, then sanitised
		let text = '';
		for (let index = 0; index < children.length; index++) {
			const nodeText = parts[index * 2];
			if (nodeText === undefined) continue;
			const transform = parts[index * 2 + 1] as Transform | undefined;
			text +=
				(nodeText as string).length > 0 && typeof transform === 'function'
					? transform(nodeText as string, index)
					: nodeText;
		}
		text = sanitizeAnsi(text);
		kept.set(node, { parts, text });
		return text;
	};
	return squash;
}

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}
