/** Types of scripts/replacements.mjs, for vitest.config.ts and the tests. */

export declare const root: string;
export declare const INK_OUTPUT: string;
export declare const INK_TEXT_CACHES: string;

export type InkReplacement =
	| { file: string; made?: undefined }
	| { made: string; file?: undefined };
export declare const INK_REPLACEMENTS: Record<string, InkReplacement>;
export declare function inkReplacementFor(
	importer: string,
	specifier: string,
): (InkReplacement & { key: string }) | undefined;
export declare function inkKeptModule(name: string): string;

export interface SourcePatch {
	module: string;
	file: string;
	uses: string[];
	swaps: [string, string][];
}
/** Characters string-width measures one column each, as [first, last] code points. */
export declare const NARROW_RANGES: [number, number][];
export declare const SOURCE_PATCHES: SourcePatch[];
export declare function packageFile(module: string, file: string, base?: string): string;
export declare function patchedSource(path: string, text: string): string | undefined;

export declare const LAZY: Record<
	string,
	{ importers: string[]; names: string[]; fn?: boolean; objects?: string[] }
>;

export declare const PINNED: Record<string, string[]>;
export declare const PINS_FILE: string;
/** By package: its version (null: not installed) and each file's sha256 (null: no such file). */
export type Pins = Record<string, { version: string | null; files: Record<string, string | null> }>;
export declare function installedPins(base?: string): Pins;
export declare function pinProblems(recorded: Pins, installed: Pins): string[];
export declare function recordedPins(): Pins;
export declare function checkPins(recorded?: Pins, installed?: Pins): void;

export declare function oneInkVitePlugin(): {
	name: string;
	enforce: 'pre';
	resolveId(specifier: string, importer: string | undefined): string | null;
	load(id: string): string | { code: string; map: null } | null;
};
export declare const INLINE_FOR_ONE_INK: RegExp[];
