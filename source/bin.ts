#!/usr/bin/env node

/**
 * The ctpool command's file (the package's bin): runs the bundle's entry (source/cli.ts) and
 * its chunks as scripts through the chunk loader, which keeps their compiled code between
 * runs (source/script-loader.ts). The build names the entry's chunk.
 */

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChunkLoader, codeCacheDir } from './script-loader.js';

declare const __CTPOOL_ENTRY__: string;

const chunks = join(dirname(fileURLToPath(import.meta.url)), 'chunks');
const loader = new ChunkLoader(chunks, codeCacheDir(chunks));
process.on('exit', () => loader.saveCode());
loader.load(__CTPOOL_ENTRY__);
