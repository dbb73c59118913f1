/** The name ctpool was invoked by: `ctpool`, or `kubectl ctpool` through kubectl's plugin convention. */

import { basename } from 'node:path';

/**
 * `kubectl ctpool` when the running script is the `kubectl-ctpool` bin (kubectl runs a
 * plugin by its path, so argv[1] names it), else `ctpool`.
 */
export function programName(script: string | undefined = process.argv[1]): string {
	return script !== undefined && /^kubectl-ctpool(\.[cm]?js)?$/.test(basename(script))
		? 'kubectl ctpool'
		: 'ctpool';
}

/** Help text with `ctpool` in its usage lines written as the program was invoked. */
export function forProgram(text: string, program: string = programName()): string {
	if (program === 'ctpool') return text;
	return text.replace(/(^|[\s'`(])ctpool(?=[ \n])/gm, `$1${program}`);
}
