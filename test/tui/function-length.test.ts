/**
 * The console's code stays readable: no function in source/tui is longer than 120 lines
 * (a component, a store action, a command's run). The limit is counted from the line a
 * function starts on to the line it ends on.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const tui = join(root, 'source', 'tui');
const LIMIT = 120;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const path = join(dir, e.name);
		if (e.isDirectory()) return sourceFiles(path);
		return /\.tsx?$/.test(e.name) ? [path] : [];
	});
}

/** Every function of a file longer than the limit, as `file:line name (n lines)`. */
function longFunctions(path: string, limit = LIMIT): string[] {
	const text = readFileSync(path, 'utf8');
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
			const end = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
			const lines = end - start + 1;
			if (lines > limit) {
				const name = node.name?.getText(file) ?? nameFromParent(node) ?? '(anonymous)';
				found.push(`${relative(root, path)}:${start} ${name} (${lines} lines)`);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

function nameFromParent(node: ts.Node): string | undefined {
	const p = node.parent;
	if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p))) return p.name.getText();
	return undefined;
}

describe('the console code', () => {
	it(`has no function over ${LIMIT} lines`, () => {
		const long = sourceFiles(tui).flatMap((f) => longFunctions(f));
		expect(long).toEqual([]);
	});

	it('the check finds a long function', () => {
		// the check itself: a file with a 130-line function is reported
		const probe = join(import.meta.dirname, 'fixtures-long-function.ts.txt');
		expect(longFunctions(probe)).toHaveLength(1);
	});
});
