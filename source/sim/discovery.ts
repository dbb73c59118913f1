/** Discovery and OpenAPI documents: what kubectl and client-node read before anything else. */

import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceInfo } from './resources.js';
import { hasSchema, openApiSchemas } from './schema.js';

/** The Kubernetes version the simulator claims to be. */
export const SIM_VERSION = {
	major: '1',
	minor: '32',
	emulationMajor: '1',
	emulationMinor: '32',
	minCompatibilityMajor: '1',
	minCompatibilityMinor: '31',
	gitVersion: 'v1.32.0',
	gitCommit: '70d3cc986aa8221cd1dfb1121852688902d3bf53',
	gitTreeState: 'clean',
	buildDate: '2024-12-11T17:58:00Z',
	goVersion: 'go1.23.3',
	compiler: 'gc',
	platform: 'linux/amd64',
};

/** The group versions served: '' (core v1) and the named groups. */
export function groupVersions(): { group: string; version: string }[] {
	const seen = new Map<string, { group: string; version: string }>();
	seen.set('/v1', { group: '', version: 'v1' });
	for (const r of RESOURCES.values()) seen.set(`${r.group}/${r.version}`, r);
	seen.set('authorization.k8s.io/v1', { group: 'authorization.k8s.io', version: 'v1' });
	seen.set('authentication.k8s.io/v1', { group: 'authentication.k8s.io', version: 'v1' });
	return [...seen.values()].map(({ group, version }) => ({ group, version }));
}

/** `GET /api`: APIVersions. */
export function apiVersions(hostPort: string): unknown {
	return {
		kind: 'APIVersions',
		versions: ['v1'],
		serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }],
	};
}

function apiGroup(group: string): unknown {
	const versions = groupVersions()
		.filter((gv) => gv.group === group)
		.map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }));
	return { name: group, versions, preferredVersion: versions[0] };
}

/** `GET /apis`: APIGroupList; `GET /apis/GROUP`: APIGroup (undefined for an unknown group). */
export function apiGroupList(): unknown {
	const groups = [...new Set(groupVersions().map((gv) => gv.group))].filter((g) => g !== '');
	return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(apiGroup) };
}

/** The APIGroup document of one group, or undefined. */
export function apiGroupDoc(group: string): unknown | undefined {
	if (!groupVersions().some((gv) => gv.group === group && group !== '')) return undefined;
	return { kind: 'APIGroup', apiVersion: 'v1', ...(apiGroup(group) as object) };
}

/** As kube-apiserver: the first 8 bytes of SHA-256 over `group/version/kind`, in base64. */
function storageHash(r: ResourceInfo): string {
	return createHash('sha256')
		.update(`${r.group}/${r.version}/${r.kind}`)
		.digest()
		.subarray(0, 8)
		.toString('base64');
}

function sub(
	name: string,
	kind: string,
	verbs: string[],
	namespaced: boolean,
	group = '',
	version = 'v1',
) {
	return {
		name,
		singularName: '',
		namespaced,
		...(group ? { group, version } : {}),
		kind,
		verbs,
	};
}

/** `GET /api/v1`, `GET /apis/G/V`: APIResourceList (undefined for an unknown group version). */
export function apiResourceList(group: string, version: string): unknown | undefined {
	if (!groupVersions().some((gv) => gv.group === group && gv.version === version)) return undefined;
	const resources: unknown[] = [];
	for (const r of RESOURCES.values()) {
		if (r.group !== group || r.version !== version) continue;
		resources.push({
			name: r.name,
			singularName: r.singularName,
			namespaced: r.namespaced,
			kind: r.kind,
			verbs: r.verbs,
			...(r.shortNames ? { shortNames: r.shortNames } : {}),
			...(r.categories ? { categories: r.categories } : {}),
			storageVersionHash: storageHash(r),
		});
		if (r.statusSubresource) {
			resources.push(sub(`${r.name}/status`, r.kind, ['get', 'patch', 'update'], r.namespaced));
		}
		if (r.name === 'pods') {
			resources.push(sub('pods/exec', 'PodExecOptions', ['create', 'get'], true));
			resources.push(sub('pods/eviction', 'Eviction', ['create'], true, 'policy', 'v1'));
			resources.push(sub('pods/log', 'Pod', ['get'], true));
		}
		if (r.name === 'serviceaccounts') {
			resources.push(
				sub('serviceaccounts/token', 'TokenRequest', ['create'], true, 'authentication.k8s.io'),
			);
		}
		if (r.name === 'namespaces') {
			resources.push(sub('namespaces/finalize', 'Namespace', ['update'], false));
		}
	}
	const review = (kind: string) => ({
		name: `${kind.toLowerCase()}s`,
		singularName: kind.toLowerCase(),
		namespaced: false,
		kind,
		verbs: ['create'],
	});
	if (group === 'authorization.k8s.io') {
		resources.push(review('SelfSubjectAccessReview'), review('SelfSubjectRulesReview'));
	}
	if (group === 'authentication.k8s.io') resources.push(review('SelfSubjectReview'));
	return {
		kind: 'APIResourceList',
		apiVersion: 'v1',
		groupVersion: group ? `${group}/${version}` : version,
		resources,
	};
}

function gvPath(group: string, version: string): string {
	return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** One OpenAPI v3 document per group version: a patch operation per kind declaring fieldValidation. */
export function openApiV3Doc(group: string, version: string): unknown | undefined {
	if (!groupVersions().some((gv) => gv.group === group && gv.version === version)) return undefined;
	const paths: Record<string, unknown> = {};
	const schemas: Record<string, unknown> = {};
	const params = [
		{ name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
		{ name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
		{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
		{ name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
	];
	for (const r of RESOURCES.values()) {
		if (r.group !== group || r.version !== version) continue;
		const gvk = { group: r.group, version: r.version, kind: r.kind };
		const base = `/${gvPath(group, version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.name}`;
		const ref = `#/components/schemas/${schemaName(r)}`;
		const op = (action: string, extra: Record<string, unknown> = {}) => ({
			tags: [group ? `${group.split('.')[0]}_${version}` : `core_${version}`],
			operationId: `${action}${r.kind}`,
			'x-kubernetes-action': action,
			'x-kubernetes-group-version-kind': gvk,
			responses: {
				'200': {
					description: 'OK',
					content: { 'application/json': { schema: { $ref: ref } } },
				},
			},
			...extra,
		});
		paths[base] = {
			get: op('list'),
			post: op('post', { parameters: params.filter((p) => p.name !== 'force') }),
		};
		paths[`${base}/{name}`] = {
			get: op('get'),
			put: op('put', { parameters: params.filter((p) => p.name !== 'force') }),
			patch: op('patch', {
				parameters: params,
				requestBody: {
					content: {
						'application/json-patch+json': { schema: { type: 'object' } },
						'application/merge-patch+json': { schema: { type: 'object' } },
						// No strategic-merge entry: kubectl apply then computes its patch from its
						// compiled-in types instead of from these skeletal schemas.
					},
				},
			}),
			delete: op('delete'),
		};
		if (hasSchema(r.name)) {
			Object.assign(schemas, openApiSchemas([{ resource: r.name, gvk }]));
			continue;
		}
		schemas[schemaName(r)] = {
			type: 'object',
			description: `${r.kind} (simulated cluster: fields are validated by the server)`,
			'x-kubernetes-group-version-kind': [gvk],
			'x-kubernetes-preserve-unknown-fields': true,
			properties: {
				apiVersion: { type: 'string' },
				kind: { type: 'string' },
				metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
			},
		};
	}
	return {
		openapi: '3.0.0',
		info: { title: 'Kubernetes', version: SIM_VERSION.gitVersion },
		paths,
		components: { schemas },
	};
}

function schemaName(r: ResourceInfo): string {
	const g = r.group ? r.group.split('.').reverse().join('.') : 'core';
	return `io.k8s.api.${g.replace('io.k8s.', '')}.${r.version}.${r.kind}`;
}

/** `GET /openapi/v3`: the paths index with a content hash per document. */
export function openApiV3Index(): unknown {
	const paths: Record<string, unknown> = {};
	for (const { group, version } of groupVersions()) {
		const p = gvPath(group, version);
		const doc = JSON.stringify(openApiV3Doc(group, version));
		const hash = createHash('sha512').update(doc).digest('hex').slice(0, 128).toUpperCase();
		paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
	}
	return { paths };
}
