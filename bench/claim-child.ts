/** The claim storm's process entry: runs runClaimStorm with the options in its first argument and prints the result as one JSON line. */

import { type ClaimStormOptions, runClaimStorm } from './claim-storm.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as ClaimStormOptions;
const result = await runClaimStorm(opts);
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
