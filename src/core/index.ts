/**
 * Pure decisions about parents and children: claiming, validating the hook's desired children,
 * planning the writes (with Metacontroller's 3-way merge or server-side apply), finalizers and status.
 * No I/O: everything here is plain objects in, plain objects out.
 */
export {
  CONTROLLER_UID_LABEL, ParentSelectorError, ParentIdentityError, parentSelector, controllerRefFor,
  claimChildren, adoptedChild, releasedChild, type ClaimResult,
} from './claim.ts';
export { normaliseDesiredChildren, normaliseDesiredChildrenInSlices, tooManyChildren, type DeclaredChildType, type DesiredChildrenOptions, type DesiredChildrenResult } from './desired-children.ts';
export { GC_FINALIZERS, finalizerName, decideLifecycle, afterFinalize, type FinalizerAction, type LifecycleDecision, type LifecycleInput } from './finalizer.ts';
export { desiredStatus, isBuiltInGroup, statusChanged, type JsonObject } from './parent-status.ts';
export { LAST_APPLIED_ANNOTATION, threeWayMerge, jsonEqual, lastAppliedOf, withLastApplied, dynamicApplyMerge, type DynamicApplyResult } from './three-way-merge.ts';
export { fingerprintOf, isUpToDate, appliedRecordOf, type AppliedRecord } from './applied-fingerprint.ts';
export {
  planChildren, planChildrenInSlices, childRefOf, type ChildDecision, type ChildRef, type PlanChildrenInput, type PlanPolicies, type UpdateMethod, type ApplyStrategy,
} from './child-plan.ts';
export { sanitizeForApply } from './sanitize-desired.ts';
export { runToEnd } from './run-to-end.ts';
export { whyNotChild, whyNotAttachment, reclaimedChild } from './taken-name.ts';
export {
  observedPoliciesOf, removalActionOf, needsLoomAtDeletion, childNeedsLoomAtDeletion, recreatesOnImmutableChange, finalizerForChildren, planPoliciesFor,
  type RemovalAction, type ChildFinalizerInput, type TeardownOrder,
} from './child-lifecycle.ts';
export { RELEASED_FROM_ANNOTATION, isReleasedFrom, policyReleasedChild } from './policy-release.ts';
export { relatedSelection, selects, type RelatedSelection, type RelatedScope, type NamespaceLabels } from './related-selection.ts';
export { createRelatedIndex, type RelatedIndex } from './related-index.ts';
export { decorates, isAttachmentOf, attachmentAnnotations, planTargetWrites, type TargetChanges, type TargetWriteOptions, type TargetWrites } from './decorator.ts';
export { revisionSelector, revisionSet, type ParentResource, type RevisionParent, type RevisionSet, type RevisionSetInput } from './controller-revisions.ts';
export { usesRollingUpdates, planRollout, type RolloutInput, type RolloutPlan } from './rolling-update.ts';
export { type RevisionChildRef, type RevisionWrite } from './revision-claims.ts';
export { StatusConditionsError, type UpdatedCondition, type UpdatedReason } from './updated-condition.ts';
export { isSpecOrMetaChange } from './spec-or-meta-change.ts';
export { conflictingClaim, sameParentType, type ParentClaim } from './parent-owner.ts';
export { withoutManagedFieldsUnlessTakenOver } from './ownership-takeover.ts';
export { whyAnswerStale, type StaleAnswerInput } from './stale-answer.ts';
export {
  SHARD_LABEL, bucketOf, fairShare, labelledBucketOf, planShardMoves, shardLabelDecision, shardSelector, trueBucketOf,
  type BucketHolder, type ShardLabelDecision, type ShardMoves, type ShardRole, type ShardView,
} from './shards.ts';
// The readiness rules live in api/ (hooks/ load them too); re-exported for core's callers, which judge children with them.
export { READINESS_STATUSES, isReady, readinessOf, type Readiness, type ReadinessOptions, type ReadinessStatus } from '../api/readiness/index.ts';
export { childOrderOf, removalOrderOf, goingChildren, orderKeyOf, describeRef, findCycle, MAX_ORDER_EDGES, MAX_WAVES, type ChildOrder, type ChildOrderInput, type ChildOrderResult, type DeclaredKind, type OrderedChild } from './child-order.ts';
export { dependencyCycles, describeCycle, CYCLE_SHOWN, type DependencyGraph } from './dependency-cycles.ts';
export { nextWrites, nextRemovals, pruneLast, describeHold, isSatisfied, NAMED_WAITS, type ChildProgress, type Hold, type RemovalProgress, type Steps, type Wait } from './order-steps.ts';
export { ordersChildren, readyCondition, wantsReadyCondition, withReadyCondition, READY_CONDITION_TYPE, type ChildrenReport, type ReadyConditionInput, type ReadyReason } from './ready-condition.ts';
export {
  ALL_PARENTS, FailingParents, SYNCS_FAILING, failingParentsOf, mergeShares, rfc3339, syncsFailingCondition,
  type FailureShares, type ShareFailures, type SyncsFailingCondition,
} from './syncs-failing.ts';
