import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../source/sim/resources.js';
import {
	componentName,
	openApiSchemas,
	scanKeys,
	strictErrors,
	unknownFields,
} from '../../source/sim/schema.js';
import { DEFINITIONS, ROOTS } from '../../source/sim/schema-table.js';

describe('the schema table', () => {
	it('gives every served resource a root, and every type in it resolves', () => {
		for (const info of RESOURCES.values()) expect(ROOTS[info.name], info.name).toBeDefined();
		const roots = [...RESOURCES.values()].map((r) => ({
			resource: r.name,
			gvk: { group: r.group, version: r.version, kind: r.kind },
		}));
		const schemas = openApiSchemas(roots);
		for (const key of Object.keys(DEFINITIONS)) {
			expect(schemas[componentName(key)], `${key} is reachable from a root`).toBeDefined();
		}
		for (const info of RESOURCES.values()) {
			const root = schemas[componentName(ROOTS[info.name]!)] as Record<string, unknown>;
			expect(root['x-kubernetes-group-version-kind']).toEqual([
				{ group: info.group, version: info.version, kind: info.kind },
			]);
		}
	});

	it('finds unknown fields in lists and maps, and prunes them when asked', () => {
		const pod = {
			metadata: { name: 'p', bogus: 1 },
			spec: {
				containers: [{ name: 'a', image: 'i', resources: { limits: { cpu: '1' } }, x: 1 }],
				nodeSelector: { any: 'thing' },
				affinity: { anything: { goes: true } },
			},
		};
		expect(unknownFields('pods', pod, false)).toEqual(['metadata.bogus', 'spec.containers[0].x']);
		expect(unknownFields('pods', pod, true)).toHaveLength(2);
		expect(pod.metadata).toEqual({ name: 'p' });
		expect(unknownFields('pods', pod, false)).toEqual([]);
	});

	it('scans duplicate keys at any depth, escaped keys included, in document order', () => {
		const text =
			'{"a":1,"b":{"c":[{"d":1,"d":2}],"e\\u0021":1,"e!":2},"a":[1,2,{"x":{}}],"s":"\\"a\\":1"}';
		const { duplicates } = scanKeys(text);
		expect(duplicates.map((d) => d.path)).toEqual(['b.c[0].d', 'b.e!', 'a']);
		// not JSON (a protobuf body, say): no duplicates, and no endless scan
		expect(strictErrors('k8s\u0000\n\u0002v1"{[', ['x'])).toEqual(['unknown field "x"']);
		expect(scanKeys('{"a":1,"b"').duplicates).toEqual([]);
		expect(strictErrors('{"spec":{"foo":1},"spec":{}}', ['spec.foo'])).toEqual([
			'unknown field "spec.foo"',
			'duplicate field "spec"',
		]);
	});
});
