/**
 * The churn generator's process entry: runs runChurn with the options in its first argument,
 * prints a `start` line when the first write goes out and the ChurnResult line at the end.
 */

import { type ChurnOptions, runChurn } from './churn.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as ChurnOptions;
const result = await runChurn(opts, (at) =>
	process.stdout.write(`${JSON.stringify({ event: 'start', at })}\n`),
);
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
