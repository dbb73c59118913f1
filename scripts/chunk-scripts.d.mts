/** Types of scripts/chunk-scripts.mjs, for the tests. */

export declare const BANNER: string;
export declare function chunkAsScript(file: string, source: string): string;
