import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	type InkTextNode,
	memoizeByText,
	memoizeSquash,
} from '../../source/tui/render/ink-text-caches.js';

/** Ink's own modules (not exported by its package): what the build replaces. */
const inkBuild = dirname(createRequire(import.meta.url).resolve('ink'));
const inkModule = async <T>(name: string): Promise<T> =>
	((await import(pathToFileURL(join(inkBuild, name)).href)) as { default: T }).default;
const inkSquash = await inkModule<(node: InkTextNode) => string>('squash-text-nodes.js');
const sanitizeAnsi = await inkModule<(text: string) => string>('sanitize-ansi.js');

// pure transforms, as Ink's Text makes them (a colour, bold, the child's index)
const transforms = [
	(text: string) => `\u001b[31m${text}\u001b[39m`,
	(text: string) => `\u001b[1m${text}\u001b[22m`,
	(text: string, index: number) => `${index}${text}`,
];
const words = fc.constantFrom(
	'',
	'desk-1',
	'Ready',
	' ',
	'界',
	'\u001b[2J',
	'\u001b[7mx\u001b[27m',
);

/** A random tree of text nodes, as Ink's reconciler builds it under a Text. */
const tree: fc.Arbitrary<InkTextNode> = fc
	.letrec<{ node: InkTextNode }>((tie) => ({
		node: fc.oneof(
			{ depthSize: 'small', withCrossShrink: true },
			fc.record({ nodeName: fc.constant('#text'), nodeValue: words }),
			fc.record({
				nodeName: fc.constantFrom('ink-text', 'ink-virtual-text'),
				childNodes: fc.array(tie('node'), { maxLength: 4 }),
				internal_transform: fc.option(fc.constantFrom(...transforms), { nil: undefined }),
			}),
		),
	}))
	.node.map((n) => (n.nodeName === '#text' ? { nodeName: 'ink-text', childNodes: [n] } : n));

/** Every node of a tree, the root first. */
function nodes(root: InkTextNode): InkTextNode[] {
	return [root, ...(root.childNodes ?? []).flatMap((c) => (c ? nodes(c) : []))];
}

/** A change as the reconciler makes one: a text, a transform, a child added or removed. */
const edit = fc.record({
	at: fc.nat(),
	kind: fc.constantFrom('text', 'transform', 'append', 'remove'),
	word: words,
	transform: fc.option(fc.constantFrom(...transforms), { nil: undefined }),
});

describe("the console's squashTextNodes (in place of Ink's)", () => {
	it("gives Ink's string for every node, through any sequence of changes to the tree", () => {
		fc.assert(
			fc.property(tree, fc.array(edit, { maxLength: 8 }), (root, edits) => {
				const squash = memoizeSquash(sanitizeAnsi);
				const check = () => {
					for (const node of nodes(root))
						if (node.nodeName !== '#text') expect(squash(node)).toBe(inkSquash(node));
				};
				check();
				for (const e of edits) {
					const all = nodes(root);
					const node = all[e.at % all.length] as InkTextNode;
					if (node.nodeName === '#text') {
						if (e.kind === 'text') node.nodeValue = e.word;
					} else if (e.kind === 'transform') node.internal_transform = e.transform;
					else if (e.kind === 'append')
						node.childNodes?.push({ nodeName: '#text', nodeValue: e.word });
					else if (e.kind === 'remove') node.childNodes?.pop();
					else if (node.childNodes?.[0]?.nodeName === '#text')
						node.childNodes[0].nodeValue = e.word;
					check();
				}
			}),
			{ numRuns: 400 },
		);
	});

	it('does not transform a node again while nothing under it changed', () => {
		let calls = 0;
		const red = (text: string) => {
			calls++;
			return `\u001b[31m${text}\u001b[39m`;
		};
		const cell: InkTextNode = {
			nodeName: 'ink-virtual-text',
			childNodes: [{ nodeName: '#text', nodeValue: 'Ready' }],
			internal_transform: red,
		};
		const line: InkTextNode = { nodeName: 'ink-text', childNodes: [cell] };
		const squash = memoizeSquash(sanitizeAnsi);
		expect(squash(line)).toBe('\u001b[31mReady\u001b[39m');
		expect(squash(line)).toBe('\u001b[31mReady\u001b[39m');
		expect(calls).toBe(1);
		(cell.childNodes?.[0] as InkTextNode).nodeValue = 'Failed';
		expect(squash(line)).toBe('\u001b[31mFailed\u001b[39m');
		expect(calls).toBe(2);
	});
});

describe('memoizeByText', () => {
	it('answers as the function does, asking it once per text', () => {
		const asked: string[] = [];
		const length = memoizeByText((text) => {
			asked.push(text);
			return text.length;
		}, 2);
		expect([length('ab'), length('ab'), length('abc'), length('ab')]).toEqual([2, 2, 3, 2]);
		expect(asked).toEqual(['ab', 'abc']);
	});
});
