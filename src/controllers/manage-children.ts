/**
 * Converging the objects a controller owns — a CompositeController's children, a DecoratorController's
 * attachments — to the hook's validated answer: plan per object (create, update by the type's update
 * method, delete what is no longer wanted), execute, count. Shared by both controller kinds.
 */
import type { Logger } from 'pino';
import { objectKey, type ChildPolicies, type KubeObject, type UpdateMethod } from '../api/index.ts';
import { childKey, executePlan, type AppliedRecords } from '../apply/index.ts';
import { childRefOf, fingerprintOf, planChildrenInSlices, type ChildRef, type PlanPolicies } from '../core/index.ts';
import { inTurns, SLICE_CHILDREN } from './in-turns.ts';
import type { ReadonlyObjectStore, ResourceType } from '../kube/index.ts';
import type { ControllerLabels } from '../metrics/metrics.ts';
import type { Host } from './host.ts';

/** One declared owned type: its cache, update method and (children only) lifecycle policies. */
export interface ManagedType {
  rule: { updateStrategy: { method: UpdateMethod } } & ChildPolicies;
  type: ResourceType;
  store: ReadonlyObjectStore;
}

/** What managing owned objects needs from a controller. */
export interface ChildManager {
  host: Host;
  labels: ControllerLabels;
  /** What loom applied, so unchanged objects are not applied again. */
  records: AppliedRecords;
  logger: Logger;
  types: readonly ManagedType[];
  /**
   * Why an object holding a desired name that a create found taken cannot be the owner's, or
   * `undefined` when it is (see `core/taken-name.ts`): a child, or an attachment, by its own rules.
   */
  whyNotOurs: (existing: KubeObject) => string | undefined;
  /** Asked before each write: why the answer has gone stale, so no further write is started (`apply/plan-stopped.ts`). */
  stopIf?: (() => string | undefined) | undefined;
  /** The children's lifecycle policies (`child-policies.ts`); absent: unwanted objects are deleted, immutable changes fail. */
  policies?: PlanPolicies | undefined;
}

/**
 * Desired objects loom applied moments ago that its cache has not seen yet: applying them again
 * would be a wasted write. Only an object absent from its type's whole cache counts — one that is
 * cached but not observed as ours (released, say) is created as usual, which its taken name refuses
 * with an error saying why. Once the watch delivers it, it is compared as usual; if it is deleted,
 * its record goes with it.
 */
function awaitingCache(manager: ChildManager, desired: KubeObject): boolean {
  const store = manager.types.find((t) => t.type.apiVersion === desired.apiVersion && t.type.kind === desired.kind)?.store;
  if (!store || store.get(objectKey(desired.metadata.namespace, desired.metadata.name ?? ''))) return false;
  return manager.records.get(childKey(childRefOf(desired)))?.hash === fingerprintOf(desired);
}

/** Converges `observed` to `allDesired`; returns the failed writes (every write is attempted). */
export async function manageChildren(manager: ChildManager, allDesired: KubeObject[], observed: KubeObject[]): Promise<Error[]> {
  const { applyStrategy, fieldManager } = manager.host.settings;
  const byRef = new Map(observed.map((child) => [childKey(childRefOf(child)), child]));
  const desired = applyStrategy === 'server-side-apply' ? allDesired.filter((d) => !awaitingCache(manager, d)) : allDesired;
  const methodFor = (apiVersion: string, kind: string) =>
    manager.types.find((t) => t.type.apiVersion === apiVersion && t.type.kind === kind)?.rule.updateStrategy.method ?? 'OnDelete';
  const decisions = await inTurns(planChildrenInSlices({
    desired, observed, methodFor, applyStrategy, fieldManager, lastApplied: (child) => manager.records.get(childKey(childRefOf(child))),
    policies: manager.policies,
  }, SLICE_CHILDREN));
  const outcomes = await executePlan({
    decisions, writer: manager.host.writer, fieldManager, applyStrategy, records: manager.records, logger: manager.logger,
    observedOf: (ref: ChildRef) => byRef.get(childKey(ref)), whyNotOurs: manager.whyNotOurs, stopIf: manager.stopIf,
  });
  for (const outcome of outcomes) if (outcome.wrote && !outcome.error) manager.host.metrics.applied(manager.labels, outcome.action);
  return outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : []));
}
