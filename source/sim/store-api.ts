/**
 * The object store of the simulated cluster, as its controllers and the HTTP layer see it.
 * The HTTP server (server.ts) and every controller (controllers/*.ts) act on the cluster
 * only through this interface; the store is the single source of truth, with one global
 * resourceVersion counter, like etcd behind a real API server.
 */

/** A stored object: plain JSON, as the API serves it. */
export interface SimObject {
	apiVersion: string;
	kind: string;
	metadata: SimMeta;
	[key: string]: unknown;
}

/** Object metadata as the store keeps it. */
export interface SimMeta {
	name: string;
	namespace?: string;
	uid?: string;
	resourceVersion?: string;
	generation?: number;
	creationTimestamp?: string;
	deletionTimestamp?: string;
	deletionGracePeriodSeconds?: number;
	labels?: Record<string, string>;
	annotations?: Record<string, string>;
	finalizers?: string[];
	ownerReferences?: unknown[];
	[key: string]: unknown;
}

/**
 * A resource the store serves, by its plural name as in the URL: 'pods', 'configmaps',
 * 'persistentvolumeclaims', 'services', 'events', 'namespaces', 'nodes', 'leases'.
 */
export type ResourceName = string;

/** One change, as a watch sees it. */
export interface SimEvent {
	type: 'ADDED' | 'MODIFIED' | 'DELETED';
	resource: ResourceName;
	object: SimObject;
	/** The global revision this event was written at (= object.metadata.resourceVersion). */
	revision: number;
}

/** Who made a write; goes into the audit log ('ctpool', 'kubectl', 'system:kubelet', ...). */
export interface WriteOptions {
	who?: string;
	/**
	 * dryRun=All: run every check, default and admission step and return what would be
	 * stored, but store nothing (no resourceVersion, no event, no audit mutation).
	 */
	dryRun?: boolean;
}

/** Options of a delete, as DeleteOptions carries them. */
export interface DeleteOptions extends WriteOptions {
	gracePeriodSeconds?: number;
	preconditions?: { uid?: string; resourceVersion?: string };
	propagationPolicy?: string;
}

/** A label selector already parsed: returns true when the labels match. */
export type LabelMatcher = (labels: Record<string, string>) => boolean;

/** A field selector already parsed: returns true when the object matches. */
export type FieldMatcher = (obj: SimObject) => boolean;

/** Options of a list or a watch. */
export interface ListOptions {
	namespace?: string;
	labels?: LabelMatcher;
	fields?: FieldMatcher;
}

/**
 * Errors thrown by the store carry the HTTP status and the Kubernetes Status body that the
 * server returns as is: 404 NotFound, 409 AlreadyExists, 409 Conflict, 422 Invalid, 410 Expired.
 */
export interface SimApiError extends Error {
	code: number;
	status: {
		kind: 'Status';
		apiVersion: 'v1';
		metadata: Record<string, never>;
		status: 'Failure';
		message: string;
		reason: string;
		details?: Record<string, unknown>;
		code: number;
	};
}

/** The store. Every method is synchronous: a controller reads and writes in one tick. */
export interface SimStore {
	/** The current global revision. */
	revision(): number;
	/** Creates an object; sets uid, creationTimestamp, resourceVersion, namespace. */
	create(resource: ResourceName, obj: SimObject, opts?: WriteOptions): SimObject;
	/** Reads an object, or undefined when absent. */
	get(resource: ResourceName, namespace: string | undefined, name: string): SimObject | undefined;
	/** Lists objects (sorted by namespace, then name). */
	list(resource: ResourceName, opts?: ListOptions): SimObject[];
	/**
	 * Replaces an object. With metadata.resourceVersion set, a stale one is 409 Conflict;
	 * without it the update is unconditional. A no-op update keeps the RV and emits nothing.
	 * Removing the last finalizer of an object with a deletionTimestamp deletes it.
	 */
	update(resource: ResourceName, obj: SimObject, opts?: WriteOptions): SimObject;
	/**
	 * Deletes an object: with finalizers, or a pod on a node with grace > 0, it only sets
	 * deletionTimestamp (MODIFIED); otherwise it is removed (DELETED). Returns the object as
	 * last stored.
	 */
	delete(
		resource: ResourceName,
		namespace: string | undefined,
		name: string,
		opts?: DeleteOptions,
	): SimObject;
	/**
	 * Subscribes to changes. fromRevision undefined: only changes from now on; a number:
	 * every change after that revision (replayed from history), or a 410 SimApiError thrown
	 * synchronously when the history no longer reaches back that far. Returns unsubscribe.
	 */
	watch(
		resource: ResourceName,
		opts: ListOptions & { fromRevision?: number },
		onEvent: (e: SimEvent) => void,
	): () => void;
	/** Subscribes to every change of every resource (for controllers). Returns unsubscribe. */
	onChange(listener: (e: SimEvent) => void): () => void;
}
