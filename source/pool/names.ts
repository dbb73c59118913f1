/** Names, labels and annotations of the CT-pool contract. */

/** Label carried by every object of a pool; its value is the pool name. */
export const POOL_LABEL = 'corral.dev/vdi-ct-pool';
/** Label carried by a member's pod, PVC and Lease; its value is the member name. */
export const MEMBER_LABEL = 'corral.dev/vdi-ct-member';
/** Label on a member's pod and PVC: the source hash the member was built from. */
export const SOURCE_LABEL = 'corral.dev/vdi-ct-source';
/** Label marking a Corral container. */
export const CT_LABEL = 'corral.dev/ct';
/** Label naming the Corral container. */
export const CT_NAME_LABEL = 'corral.dev/ct-name';
/** Annotation on the PVC: the CT spec (source fields) as JSON. */
export const CT_SPEC_ANNOTATION = 'corral.ct/spec';
/** Annotation on the PVC: a display copy of the claim holder. The Lease is the authority. */
export const ASSIGNED_TO_ANNOTATION = 'corral.dev/vdi-assigned-to';
/** Annotation on the PVC: present means the member is in maintenance; the value is the reason. */
export const MAINTENANCE_ANNOTATION = 'corral.dev/vdi-maintenance';
/**
 * Annotation on the PVC: how often reconcile has replaced the member after a failure, and
 * when last: `{"count":2,"at":"2026-11-29T10:00:00Z"}`. Written on the PVC a replace creates,
 * removed once the member is Ready; it paces the next replace (see replace-backoff.ts).
 */
export const REPLACED_ANNOTATION = 'corral.dev/vdi-replaced';
/**
 * Annotation on the PVC (an extension of the contract): the member's console Service
 * `<member>-svc` could not be read at its last release or replace (no get on services), so it
 * was left in place and may still route to the member. Its value is the Service's name. A
 * reconcile that can read Services removes the mark when the Service is gone.
 */
export const SERVICE_UNVERIFIED_ANNOTATION = 'corral.dev/vdi-service-unverified';
/** Label of an older Corral broker's claim Lease `corral-vdi-<member>`: the member it claims. */
export const OLDER_MEMBER_LABEL = 'corral.dev/vdi-member';
/** Label of an older Corral broker's claim Lease: the pool. */
export const OLDER_POOL_LABEL = 'corral.dev/vdi-pool';
/**
 * The *label* (not the annotation ctpool writes) an older Corral broker put on a claimed
 * member's PVC: its value is the holder.
 */
export const OLDER_ASSIGNED_LABEL = 'corral.dev/vdi-assigned-to';

/** Name of an older Corral broker's claim Lease of a member (before this contract). */
export function olderLeaseName(member: string): string {
	return `corral-vdi-${member}`;
}

/**
 * The member an older Corral broker's claim Lease claims: named `corral-vdi-<member>`,
 * labelled `corral.dev/vdi-member=<member>`, and without ctpool's pool label; else null.
 */
export function memberOfOlderLease(lease: {
	metadata: { name?: string; labels?: Record<string, string> };
}): string | null {
	const labels = lease.metadata.labels ?? {};
	const member = labels[OLDER_MEMBER_LABEL];
	if (!member || Object.hasOwn(labels, POOL_LABEL)) return null;
	return lease.metadata.name === olderLeaseName(member) ? member : null;
}

/** Key of the pool definition in the ConfigMap. */
export const SPEC_KEY = 'spec';
/** Key of the pool status in the ConfigMap. */
export const STATUS_KEY = 'status';
/** Corral's namespace: the one every command uses without -n or $CORRAL_NAMESPACE. */
export const DEFAULT_NAMESPACE = 'corral-vms';
/** The environment variable that names Corral's namespace, as in Corral. */
export const NAMESPACE_ENV = 'CORRAL_NAMESPACE';

/** The namespace without -n, as Corral picks it: $CORRAL_NAMESPACE, else corral-vms. */
export function defaultNamespace(env: Record<string, string | undefined>): string {
	const v = env[NAMESPACE_ENV];
	return v !== undefined && v !== '' ? v : DEFAULT_NAMESPACE;
}
/** The one container of a member pod. */
export const CONTAINER_NAME = 'ct';
/** Where a privileged member mounts its PVC (its root file system). */
export const ROOTFS_MOUNT = '/corral-rootfs';
/** Where an unprivileged member mounts its PVC. */
export const DATA_MOUNT = '/data';
/** Longest pool name, so that derived object names stay valid. */
export const MAX_POOL_NAME = 40;

/** Name of the ConfigMap that holds a pool's definition and status. */
export function configMapName(pool: string): string {
	return `corral-vdi-ctpool-${pool}`;
}

/** The pool a definition ConfigMap belongs to, or null when the name is not one. */
export function poolOfConfigMap(name: string): string | null {
	const prefix = 'corral-vdi-ctpool-';
	return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null;
}

/** Name of member n of a pool. */
export function memberName(pool: string, index: number): string {
	return `${pool}-${index}`;
}

/** Name of a member's data PVC. */
export function pvcName(member: string): string {
	return `${member}-data`;
}

/** Name of a member's optional console Service. */
export function serviceName(member: string): string {
	return `${member}-svc`;
}

/** Name of a member's claim Lease. */
export function leaseName(member: string): string {
	return `corral-vdi-ct-${member}`;
}

/** The member a Lease name refers to, or null. */
export function memberOfLease(name: string): string | null {
	const prefix = 'corral-vdi-ct-';
	return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null;
}

/** The member a PVC name refers to, or null. */
export function memberOfPvc(name: string): string | null {
	return name.endsWith('-data') && name.length > 5 ? name.slice(0, -5) : null;
}

/**
 * The index of a member name of this pool: `<pool>-<n>` with n a positive integer written
 * without leading zeros. Anything else is not a member (null).
 */
export function memberIndex(pool: string, name: string): number | null {
	if (!name.startsWith(`${pool}-`)) return null;
	const rest = name.slice(pool.length + 1);
	if (!/^[1-9][0-9]{0,8}$/.test(rest)) return null;
	return Number(rest);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True when s is a DNS-1123 label of at most max characters. */
export function isDnsLabel(s: string, max = 63): boolean {
	return s.length > 0 && s.length <= max && DNS_LABEL.test(s);
}

/** True when s is a DNS-1123 subdomain (at most 253 characters). */
export function isDnsSubdomain(s: string): boolean {
	return s.length > 0 && s.length <= 253 && DNS_SUBDOMAIN.test(s);
}

/** Why a pool name is unusable, or null when it is fine. */
export function poolNameProblem(name: string): string | null {
	if (name === '') return 'the pool name is empty; give a name such as "desk"';
	if (name.length > MAX_POOL_NAME)
		return `the pool name "${name.slice(0, 50)}" is ${name.length} characters long; use at most ${MAX_POOL_NAME}`;
	if (!isDnsLabel(name))
		return `the pool name ${JSON.stringify(name)} is not a DNS-1123 label; use lower-case letters, digits and "-", starting and ending with a letter or digit`;
	return null;
}
