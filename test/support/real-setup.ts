/**
 * The real project's global setup: starts the real control plane when none is running
 * (building it first when needed) and stops it after the run; a control plane that was
 * already up (`npm run real -- up`) is left running, for the next run.
 */

// @ts-expect-error: a plain ES module of the repository's scripts, without types.
import { current, down, up } from '../../scripts/real.mjs';

export default async function setup(): Promise<() => Promise<void>> {
	const wasUp = current() !== undefined;
	await up({ quiet: wasUp });
	return async () => {
		if (!wasUp) await down({ quiet: true });
	};
}
