/** Request options that send a PATCH as a JSON merge patch. */

import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** Options for a client-node patch call: Content-Type application/merge-patch+json. */
export function mergePatchOptions(): ReturnType<typeof setHeaderOptions> {
	return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}
