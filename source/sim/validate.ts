/** Validation of objects on create and update: the 422 Invalid rules the simulator enforces. */

import { parseQuantity } from '../pool/quantity.js';
import {
	checkPathSegmentName,
	hasPathSegmentNames,
	validateAccessObject,
} from './access-objects.js';
import { checkDeployment } from './deployments.js';
import { invalid, invalidValue, required, type StatusCause } from './errors.js';
import type { SimObject } from './store-api.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const LABEL_MSG =
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE_MSG =
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** The causes when `value` is not a DNS-1123 label (63 characters at most). */
export function checkDnsLabel(field: string, value: string): StatusCause[] {
	const out: StatusCause[] = [];
	if (value.length > 63) out.push(invalidValue(field, value, 'must be no more than 63 characters'));
	if (!DNS1123_LABEL.test(value)) out.push(invalidValue(field, value, LABEL_MSG));
	return out;
}

/** The causes when `value` is not a DNS-1123 subdomain (253 characters at most). */
export function checkDnsSubdomain(field: string, value: string): StatusCause[] {
	const out: StatusCause[] = [];
	if (value.length > 253)
		out.push(invalidValue(field, value, 'must be no more than 253 characters'));
	if (!DNS1123_SUBDOMAIN.test(value)) out.push(invalidValue(field, value, SUBDOMAIN_MSG));
	return out;
}

function checkName(resource: string, name: string): StatusCause[] {
	if (resource === 'namespaces') return checkDnsLabel('metadata.name', name);
	// Service names are RFC 1123 labels since 1.34 (RelaxedServiceNameValidation), no longer DNS-1035.
	if (resource === 'services') return checkDnsLabel('metadata.name', name);
	// An Event's name only has to be a valid path segment (the generic registry's rule).
	if (resource === 'events') return checkPathSegmentName('metadata.name', name);
	if (hasPathSegmentNames(resource)) return checkPathSegmentName('metadata.name', name);
	return checkDnsSubdomain('metadata.name', name);
}

function checkLabels(labels: unknown): StatusCause[] {
	if (labels === undefined || labels === null) return [];
	if (typeof labels !== 'object') return [invalidValue('metadata.labels', labels, 'must be a map')];
	const out: StatusCause[] = [];
	for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
		const slash = k.lastIndexOf('/');
		const prefix = slash >= 0 ? k.slice(0, slash) : '';
		const nm = slash >= 0 ? k.slice(slash + 1) : k;
		if (
			(slash >= 0 && !DNS1123_SUBDOMAIN.test(prefix)) ||
			!QUALIFIED_NAME.test(nm) ||
			nm.length > 63
		) {
			out.push(
				invalidValue(
					'metadata.labels',
					k,
					"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
				),
			);
		}
		if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
			out.push(invalidValue('metadata.labels', v, LABEL_VALUE_MSG));
		}
	}
	return out;
}

function checkPod(obj: SimObject): StatusCause[] {
	const spec = obj.spec as { containers?: unknown } | undefined;
	const containers = spec?.containers;
	if (!Array.isArray(containers) || containers.length === 0) return [required('spec.containers')];
	const out: StatusCause[] = [];
	const seen = new Set<string>();
	containers.forEach((c: { name?: unknown; image?: unknown }, i) => {
		const field = `spec.containers[${i}]`;
		if (typeof c?.name !== 'string' || c.name === '') out.push(required(`${field}.name`));
		else {
			out.push(...checkDnsLabel(`${field}.name`, c.name));
			if (seen.has(c.name)) {
				out.push({
					reason: 'FieldValueDuplicate',
					message: `Duplicate value: "${c.name}"`,
					field: `${field}.name`,
				});
			}
			seen.add(c.name);
		}
		if (typeof c?.image !== 'string' || c.image.trim() === '') out.push(required(`${field}.image`));
		out.push(...checkRequestsWithinLimits(field, c));
	});
	return out;
}

/** A container's cpu and memory requests must not exceed its limits. */
function checkRequestsWithinLimits(field: string, container: unknown): StatusCause[] {
	const res = (container as { resources?: { requests?: unknown; limits?: unknown } })?.resources;
	const requests = (res?.requests ?? {}) as Record<string, unknown>;
	const limits = (res?.limits ?? {}) as Record<string, unknown>;
	const out: StatusCause[] = [];
	for (const name of ['cpu', 'memory']) {
		const req = requests[name];
		const lim = limits[name];
		if (req === undefined || lim === undefined) continue;
		const r = parseQuantity(String(req));
		const l = parseQuantity(String(lim));
		if (r !== null && l !== null && r > l)
			out.push(
				invalidValue(
					`${field}.resources.requests`,
					String(req),
					`must be less than or equal to ${name} limit of ${String(lim)}`,
				),
			);
	}
	return out;
}

function checkPvc(obj: SimObject): StatusCause[] {
	const spec = obj.spec as
		| { accessModes?: unknown[]; resources?: { requests?: { storage?: unknown } } }
		| undefined;
	const out: StatusCause[] = [];
	if (!Array.isArray(spec?.accessModes) || spec.accessModes.length === 0) {
		out.push({
			reason: 'FieldValueRequired',
			message: 'Required value: at least 1 access mode is required',
			field: 'spec.accessModes',
		});
	}
	if (spec?.resources?.requests?.storage === undefined) {
		out.push(required('spec.resources[storage]'));
	}
	return out;
}

/** A Service that gets a cluster IP needs ports. */
function checkService(obj: SimObject): StatusCause[] {
	const spec = (obj.spec ?? {}) as { type?: unknown; clusterIP?: unknown; ports?: unknown };
	const headless = spec.clusterIP === 'None';
	const external = spec.type === 'ExternalName';
	if (headless || external) return [];
	if (!Array.isArray(spec.ports) || spec.ports.length === 0) return [required('spec.ports')];
	return [];
}

function checkLease(obj: SimObject): StatusCause[] {
	const spec = obj.spec as { leaseDurationSeconds?: unknown } | undefined;
	const d = spec?.leaseDurationSeconds;
	if (d !== undefined && d !== null && (typeof d !== 'number' || d <= 0)) {
		return [invalidValue('spec.leaseDurationSeconds', d, 'must be greater than 0')];
	}
	return [];
}

/**
 * Validates an object before it is stored; throws 422 Invalid with every cause found
 * (bad or missing name, bad labels, a pod without containers, a PVC without access modes
 * or storage request, a Lease with a non-positive duration).
 */
export function validateObject(resource: string, obj: SimObject): void {
	const name = obj.metadata?.name ?? '';
	const causes: StatusCause[] = [];
	if (!name) {
		causes.push({
			reason: 'FieldValueRequired',
			message: 'Required value: name or generateName is required',
			field: 'metadata.name',
		});
	} else causes.push(...checkName(resource, name));
	causes.push(...checkLabels(obj.metadata?.labels));
	if (resource === 'pods') causes.push(...checkPod(obj));
	else if (resource === 'persistentvolumeclaims') causes.push(...checkPvc(obj));
	else if (resource === 'leases') causes.push(...checkLease(obj));
	else if (resource === 'services') causes.push(...checkService(obj));
	else if (resource === 'deployments') causes.push(...checkDeployment(obj));
	else causes.push(...validateAccessObject(resource, obj));
	if (causes.length > 0) throw invalid(resource, name, causes);
}
