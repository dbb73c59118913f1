/** Request options that send a PATCH as a JSON merge patch. */

// From their own modules, not client-node's index (which reaches every generated model).
import { setHeaderOptions } from '@kubernetes/client-node/dist/middleware.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';

/** Options for a client-node patch call: Content-Type application/merge-patch+json. */
export function mergePatchOptions(): ReturnType<typeof setHeaderOptions> {
	return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}
