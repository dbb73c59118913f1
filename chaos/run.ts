/**
 * `npm run chaos [-- --seed N --duration 60s --size N --reconcilers 3 --users N --cluster sim|real]`:
 * one chaos run against the simulated cluster, or a fresh namespace of the real control plane. The seed is printed first so that a failure can be
 * replayed; exit 0 when every check passed, 1 when one failed, 2 on bad flags.
 */

import { parseDuration } from '../source/sim/faults.js';
import { type ChaosOptions, DEFAULT_CHAOS, runChaos } from './chaos.js';
import { formatReport } from './report.js';

const HELP = `Usage: npm run chaos -- [--seed N] [--duration 60s] [--size N] [--reconcilers N] [--users N] [--cluster sim|real] [--quiet]

One chaos run: faults on, reconciler processes killed mid-step, users claiming and
releasing, an admin force-releasing and changing image and size; then faults off, one
final reconcile 11 minutes ahead, and the safety, convergence and console checks.

--cluster real runs it in a fresh namespace of the real control plane (npm run real;
started when none runs): the simulator's faults (5xx, refused connections, dropped
watches, 410s, crashing member pods) are left out; everything else is the same.`;

/** Parses the flags; throws with a message on a bad one. */
export function parseChaosArgs(argv: readonly string[]): ChaosOptions & { quiet: boolean } {
	const opts: ChaosOptions & { quiet: boolean } = {
		...DEFAULT_CHAOS,
		seed: Math.floor(Math.random() * 1_000_000),
		cluster: 'sim',
		quiet: false,
	};
	const whole = (flag: string, v: string | undefined, min: number, max: number): number => {
		const n = Number(v);
		if (v === undefined || !/^\d+$/.test(v) || n < min || n > max)
			throw new Error(
				`--${flag} needs a whole number from ${min} to ${max}, not ${v ?? 'nothing'}`,
			);
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		const [name, inline] = arg.startsWith('--') ? arg.slice(2).split('=', 2) : [arg, undefined];
		const value = () => inline ?? argv[++i];
		switch (name) {
			case 'seed':
				opts.seed = whole('seed', value(), 0, 2 ** 31 - 1);
				break;
			case 'duration': {
				const v = value() ?? '';
				try {
					opts.durationMs = parseDuration(v);
				} catch {
					throw new Error(`--duration needs a duration such as 60s or 2m, not ${v || 'nothing'}`);
				}
				if (opts.durationMs < 1000) throw new Error('--duration must be at least 1s');
				break;
			}
			case 'size':
				opts.size = whole('size', value(), 1, 200);
				break;
			case 'reconcilers':
				opts.reconcilers = whole('reconcilers', value(), 0, 10);
				break;
			case 'users':
				opts.users = whole('users', value(), 0, 500);
				break;
			case 'cluster': {
				const v = value();
				if (v !== 'sim' && v !== 'real')
					throw new Error(`--cluster must be sim or real, not ${v ?? 'nothing'}`);
				opts.cluster = v;
				break;
			}
			case 'quiet':
				opts.quiet = true;
				break;
			default:
				throw new Error(`unknown flag ${arg}`);
		}
	}
	return opts;
}

async function main(): Promise<number> {
	const argv = process.argv.slice(2);
	if (argv.includes('--help') || argv.includes('-h')) {
		console.log(HELP);
		return 0;
	}
	let opts: ReturnType<typeof parseChaosArgs>;
	try {
		opts = parseChaosArgs(argv);
	} catch (err) {
		console.error(`chaos: ${(err as Error).message}`);
		return 2;
	}
	const { quiet, ...options } = opts;
	console.log(
		`chaos seed ${options.seed} (replay: npm run chaos -- --seed ${options.seed} --duration ${options.durationMs / 1000}s --size ${options.size} --reconcilers ${options.reconcilers} --users ${options.users}${options.cluster === 'real' ? ' --cluster real' : ''})`,
	);
	const start = Date.now();
	const stamp = () => `${((Date.now() - start) / 1000).toFixed(1).padStart(6)}s`;
	const result = await runChaos({
		...options,
		log: quiet ? () => {} : (line) => console.log(`${stamp()} ${line}`),
	});
	for (const line of formatReport(result)) console.log(line);
	return result.passed ? 0 : 1;
}

const code = await main();
// Let the report reach a pipe, then leave even if a keep-alive socket lingers.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);
