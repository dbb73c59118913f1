/**
 * Two admins at once: one changes the image while the other changes the size. Neither
 * change may be lost without a word: either both end up in the definition, or the second
 * apply reports that the definition changed under it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosSpec } from '../../chaos/chaos.js';
import { apply, createEngineContext, readDefinition } from '../../source/engine/index.js';
import { configMapName } from '../../source/pool/index.js';
import { ctpool, type RunResult } from '../commands/capture.js';
import { startTappedCluster, type TappedCluster } from './tapped-cluster.js';

let c: TappedCluster;
beforeAll(async () => {
	c = await startTappedCluster();
	await apply(c.context(), 'pair', chaosSpec(2));
});
afterAll(() => c?.close());

// Found by this test (issue 7): `ctpool apply` built the whole spec from the definition it
// read first, and answered a conflict by writing it over the newer one, so the other admin's
// change was lost while both commands reported success. Now the flags are laid over the
// definition as it is at each attempt of the write. The scene orders the two admins' writes.
describe('apply --size by one admin while another applies a new image', () => {
	let sizeRun: RunResult;
	let image = '';
	let size = 0;
	it('both run, the size change reading the definition before the image change (the scene)', async () => {
		let open!: () => void;
		const gate = new Promise<void>((resolve) => {
			open = resolve;
		});
		let arrived!: () => void;
		const patchSeen = new Promise<void>((resolve) => {
			arrived = resolve;
		});
		let held = false;
		// The definition is written with a merge patch carrying its resourceVersion (never a PUT).
		c.hold((method, path) => {
			if (held || method !== 'PATCH' || !path.endsWith(`/configmaps/${configMapName('pair')}`))
				return undefined;
			held = true;
			arrived();
			return gate;
		});
		try {
			const second = ctpool(['apply', 'pair', '--size', '3', '--kubeconfig', c.kubeconfigPath]);
			await patchSeen;
			const other = createEngineContext(c.direct, { actor: 'other-admin' });
			const current = (await readDefinition(other, 'pair')).spec;
			await apply(other, 'pair', { ...current, image: 'ghcr.io/example/desktop:2' });
			open();
			sizeRun = await second;
		} finally {
			c.hold(null);
		}
		const spec = (await readDefinition(c.context(), 'pair')).spec;
		image = spec.image;
		size = spec.size;
		expect(held).toBe(true);
	});

	it('loses neither change silently', () => {
		const bothIn = image === 'ghcr.io/example/desktop:2' && size === 3;
		const toldSo = sizeRun.code !== 0 && /changed/.test(sizeRun.stderr);
		expect({ image, size, code: sizeRun.code, neitherLost: bothIn || toldSo }).toMatchObject({
			neitherLost: true,
		});
	});
});
