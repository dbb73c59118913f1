/**
 * apps/v1 Deployments as a 1.32 API server stores them (there is no Deployment controller in
 * the simulator: no ReplicaSets, no pods, the status stays empty): the defaults it fills in,
 * the validation it applies, and the table it prints.
 */

import { forbiddenField, required, type StatusCause } from './errors.js';
import type { SimObject } from './store-api.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

function fill(target: Rec, key: string, value: unknown): void {
	if (target[key] === undefined) target[key] = value;
}

/** A metav1.LabelSelector. */
interface LabelSelector {
	matchLabels?: Record<string, string>;
	matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Whether labels match a LabelSelector (an empty selector matches everything). */
export function selectorMatches(sel: LabelSelector, labels: Record<string, string>): boolean {
	for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
	for (const e of sel.matchExpressions ?? []) {
		const has = Object.hasOwn(labels, e.key);
		const inValues = has && (e.values ?? []).includes(labels[e.key]!);
		if (e.operator === 'In' && !inValues) return false;
		if (e.operator === 'NotIn' && inValues) return false;
		if (e.operator === 'Exists' && !has) return false;
		if (e.operator === 'DoesNotExist' && has) return false;
	}
	return true;
}

/** A LabelSelector as labels.Selector.String() prints it: `app=web,tier in (a,b)`, sorted by key. */
export function formatSelector(sel: LabelSelector): string {
	const reqs: [string, string][] = [];
	for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
	for (const e of sel.matchExpressions ?? []) {
		const values = [...(e.values ?? [])].sort().join(',');
		if (e.operator === 'In') reqs.push([e.key, `${e.key} in (${values})`]);
		else if (e.operator === 'NotIn') reqs.push([e.key, `${e.key} notin (${values})`]);
		else if (e.operator === 'Exists') reqs.push([e.key, e.key]);
		else if (e.operator === 'DoesNotExist') reqs.push([e.key, `!${e.key}`]);
	}
	return reqs
		.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
		.map((r) => r[1])
		.join(',');
}

/** Go's %#v of a map[string]string (`map[string]string{"a":"1", "b":"2"}`, nil when absent). */
function goMap(m: Record<string, string> | undefined): string {
	if (m === undefined) return 'map[string]string(nil)';
	const body = Object.keys(m)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`)
		.join(', ');
	return `map[string]string{${body}}`;
}

function podSpecDefaults(spec: Rec): void {
	fill(spec, 'restartPolicy', 'Always');
	fill(spec, 'terminationGracePeriodSeconds', 30);
	fill(spec, 'dnsPolicy', 'ClusterFirst');
	fill(spec, 'securityContext', {});
	fill(spec, 'schedulerName', 'default-scheduler');
	for (const c of (spec.containers as unknown[] | undefined) ?? []) {
		const cr = rec(c);
		const image = typeof cr.image === 'string' ? cr.image : '';
		const tag = image.includes('@')
			? 'digest'
			: (image.slice(image.lastIndexOf('/') + 1).split(':')[1] ?? '');
		fill(cr, 'imagePullPolicy', tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent');
		fill(cr, 'resources', {});
		fill(cr, 'terminationMessagePath', '/dev/termination-log');
		fill(cr, 'terminationMessagePolicy', 'File');
		for (const p of (cr.ports as unknown[] | undefined) ?? []) fill(rec(p), 'protocol', 'TCP');
	}
}

/**
 * Fills in what the 1.32 defaulters set on a Deployment: replicas 1, RollingUpdate 25%/25%,
 * revisionHistoryLimit 10, progressDeadlineSeconds 600, and the pod template's defaults.
 */
export function defaultDeployment(obj: SimObject): void {
	const spec = rec(obj.spec);
	obj.spec = spec;
	fill(spec, 'replicas', 1);
	const strategy = rec(spec.strategy);
	spec.strategy = strategy;
	fill(strategy, 'type', 'RollingUpdate');
	if (strategy.type === 'RollingUpdate') {
		const ru = rec(strategy.rollingUpdate);
		strategy.rollingUpdate = ru;
		fill(ru, 'maxUnavailable', '25%');
		fill(ru, 'maxSurge', '25%');
	}
	fill(spec, 'revisionHistoryLimit', 10);
	fill(spec, 'progressDeadlineSeconds', 600);
	const template = rec(spec.template);
	spec.template = template;
	fill(template, 'metadata', {});
	const podSpec = rec(template.spec);
	template.spec = podSpec;
	podSpecDefaults(podSpec);
	if (obj.status === undefined) obj.status = {};
}

/** The containers check of a pod spec at a path (`spec.template.spec`). */
function checkContainers(spec: Rec, at: string): StatusCause[] {
	const containers = spec.containers;
	if (!Array.isArray(containers) || containers.length === 0) return [required(`${at}.containers`)];
	const out: StatusCause[] = [];
	containers.forEach((c: { name?: unknown; image?: unknown }, i) => {
		const field = `${at}.containers[${i}]`;
		if (typeof c?.name !== 'string' || c.name === '') out.push(required(`${field}.name`));
		if (typeof c?.image !== 'string' || c.image.trim() === '') out.push(required(`${field}.image`));
	});
	return out;
}

/** The causes a 1.32 server finds in a Deployment's spec (before defaults: restartPolicy absent = Always). */
export function checkDeployment(obj: SimObject): StatusCause[] {
	const spec = rec(obj.spec);
	const out: StatusCause[] = [];
	const replicas = spec.replicas;
	if (typeof replicas === 'number' && replicas < 0) {
		out.push({
			reason: 'FieldValueInvalid',
			message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
			field: 'spec.replicas',
		});
	}
	const template = rec(spec.template);
	const labels = rec(template.metadata).labels as Record<string, string> | undefined;
	const selector = spec.selector as LabelSelector | undefined | null;
	if (!selector) out.push(required('spec.selector'));
	else {
		const empty =
			Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length ===
			0;
		if (empty) {
			out.push({
				reason: 'FieldValueInvalid',
				message: `Invalid value: ${JSON.stringify(selector)}: empty selector is invalid for deployment`,
				field: 'spec.selector',
			});
		} else if (!selectorMatches(selector, labels ?? {})) {
			out.push({
				reason: 'FieldValueInvalid',
				message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\``,
				field: 'spec.template.metadata.labels',
			});
		}
	}
	const podSpec = rec(template.spec);
	out.push(...checkContainers(podSpec, 'spec.template.spec'));
	const restart = podSpec.restartPolicy;
	if (restart !== undefined && restart !== 'Always') {
		out.push({
			reason: 'FieldValueNotSupported',
			message: `Unsupported value: ${JSON.stringify(restart)}: supported values: "Always"`,
			field: 'spec.template.spec.restartPolicy',
		});
	}
	if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
		out.push(
			forbiddenField(
				'spec.template.spec.activeDeadlineSeconds',
				'activeDeadlineSeconds in ReplicaSet is not Supported',
			),
		);
	}
	return out;
}

/** The cells of a Deployment's row: Name, Ready, Up-to-date, Available, Age, Containers, Images, Selector. */
export function deploymentCells(obj: SimObject, age: string): unknown[] {
	const spec = rec(obj.spec);
	const status = rec(obj.status);
	const num = (v: unknown) => (typeof v === 'number' ? v : 0);
	const containers = ((rec(rec(spec.template).spec).containers as Rec[] | undefined) ?? []).map(
		rec,
	);
	return [
		obj.metadata.name,
		`${num(status.readyReplicas)}/${num(spec.replicas)}`,
		num(status.updatedReplicas),
		num(status.availableReplicas),
		age,
		containers.map((c) => String(c.name ?? '')).join(','),
		containers.map((c) => String(c.image ?? '')).join(','),
		formatSelector((spec.selector ?? {}) as LabelSelector),
	];
}
