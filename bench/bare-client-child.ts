/**
 * The bare client's process entry: starts it with the options in its first argument, prints
 * a `ready` line once every list has arrived, then watches until killed.
 */

import { type BareClientOptions, startBareClient } from './bare-client.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as BareClientOptions;
await startBareClient(opts);
process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`);
