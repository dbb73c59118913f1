/** The pool engine: every operation the CLI, the TUI and the tests run against a cluster. */
export { apply, writeDefinition } from './apply.js';
export { type AuditQuery, type AuditTrail, auditSelector, readAudit } from './audit.js';
export { type ClaimResult, checkIdentity, claim } from './claim.js';
export {
	type ClaimCache,
	type ClaimFeed,
	claimFromFeed,
	poolWatchFeed,
	poolWatchFeeds,
	watchPoolFeed,
	watchPoolForClaims,
} from './claim-cache.js';
export {
	actingIdentity,
	createEngineContext,
	DEFAULT_ACTOR,
	DEFAULT_CONCURRENCY,
	DEFAULT_DELETE_TIMEOUT_MS,
	type DerivedContextOptions,
	deriveContext,
	type EngineCaches,
	type EngineContext,
	type EngineContextOptions,
	type EngineEvent,
	IDENTITY_ENV,
} from './context.js';
export { type Definition, readDefinition, readDefinitionMap } from './definition.js';
export { deletePool } from './delete-pool.js';
export { createEngine, type Engine, engineOf } from './engine.js';
export { readLastLogLines, readNodeRooms } from './hint-reads.js';
export { EVENTS_DENIED_ACTION, recordAudit } from './kube-event.js';
export { setMaintenance } from './maintenance.js';
export { type EventLine, memberEvents } from './member-events.js';
export { memberLog } from './member-log.js';
export { buildPod, buildPvc, memberLabels } from './member-objects.js';
export { planStep, type ReconcileStep } from './member-step.js';
export {
	listPools,
	listPoolsAcross,
	type PlacedSnapshot,
	type PoolSnapshot,
	readPool,
	snapshotOf,
} from './read-pool.js';
export {
	type ReconcileAction,
	type ReconcileResult,
	reconcile,
} from './reconcile.js';
export {
	checkMember,
	noSuchMemberMessage,
	type ReleaseOptions,
	type ReleaseResult,
	release,
} from './release.js';
export {
	type ExpiredClaim,
	type ExpiredOutcome,
	type ExpiredScope,
	expiredClaims,
	findExpiredClaims,
	hasExpiredClaim,
	releaseExpired,
} from './release-expired.js';
