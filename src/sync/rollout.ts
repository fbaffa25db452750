/**
 * The hook's answer for a parent whose children roll (docs/hook-protocol.md, "Rolling updates"): the
 * parent's ControllerRevisions are claimed, the hook is asked once per revision (the parent as of that
 * revision), one child at a time moves to the latest revision as status checks allow, and the revisions
 * are written (through the ports) before any child is touched — so a rollout's progress survives a restart.
 * Written against {@link RollingPorts}: the cluster's in controllers/composite/live-ports.ts, the render's in offline/render-composite.ts.
 */
import { groupOf, matchesSelector, type CompositeController, type CompositeHookResponse, type ControllerRevision, type KubeObject, type LabelSelector } from '../api/index.ts';
import { planRollout, revisionSelector, revisionSet, type RevisionChildRef, type RevisionWrite, type RolloutInput } from '../core/index.ts';
import { HookCircuitOpenError } from '../hooks/index.ts';
import type { ParentCall } from './composite-ports.ts';

/** What a rolling answer reads and writes: the revisions' part of a sync's ports. */
export interface RollingPorts {
  /** The parent's ControllerRevisions after claiming them (adopted, released) by `selector`. */
  claimRevisions(parent: KubeObject, selector: LabelSelector): Promise<KubeObject[]>;
  /** The hook's validated answer for the parent as `call.shown` shows it. */
  ask(call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse>;
  /** Creates, updates or deletes one revision, in the parent's namespace. */
  writeRevision(write: RevisionWrite, namespace: string | undefined): Promise<void>;
}

/** What a rolling answer needs to know of its controller. */
export interface RollingController {
  controller: CompositeController;
  /** The parent's type, by which its revisions are named and selected. */
  parentType: { apiVersion: string; resource: string };
  applyStrategy: RolloutInput['applyStrategy'];
  /** The child rule's update strategy for a group and kind (the kinds its types resolved to). */
  strategyFor: RolloutInput['strategyFor'];
  /** loom's record of its last apply of a child, when it has one (server-side apply). */
  lastApplied?: RolloutInput['lastApplied'];
}

/**
 * The answer to go on with, as if one hook call had given it (with the `Updated` condition in its
 * status), and the child this sync moved to the latest revision, if any.
 */
export async function rollingAnswer(rolling: RollingController, ports: RollingPorts, call: ParentCall, signal: AbortSignal): Promise<{ response: CompositeHookResponse; moved?: RevisionChildRef | undefined }> {
  const { spec } = rolling.controller;
  const parentResource = { group: groupOf(rolling.parentType.apiVersion), resource: rolling.parentType.resource };
  const selector = revisionSelector(call.selector, parentResource);
  const revisions = await ports.claimRevisions(call.parent, selector);
  const set = revisionSet({
    parent: call.parent, revisions: revisions as ControllerRevision[], parentResource,
    fieldPaths: spec.parentResource.revisionHistory.fieldPaths, generateSelector: spec.generateSelector,
  });
  if (set.latest.isNew && !matchesSelector(selector, set.latest.revision.metadata.labels)) {
    throw new Error(`the ControllerRevision for this parent would not match the parent's selector (its labels come from spec.template.metadata.labels): `
      + 'give the template the selector\'s labels, or use generateSelector');
  }
  const asked = await askEach(ports, call, [set.latest, ...set.historic].map((revision) => revision.parent), signal);
  const [latest, ...historic] = asked;
  const plan = planRollout({
    revisions: set, responses: { latest: latest!, historic }, observed: call.claimed,
    strategyFor: rolling.strategyFor,
    applyStrategy: rolling.applyStrategy,
    lastApplied: rolling.lastApplied,
  });
  for (const write of plan.revisionWrites) await ports.writeRevision(write, call.parent.metadata.namespace);
  return { response: plan.response, moved: plan.moved };
}

/**
 * The hook's answers for each of `shown`, asked at once. One failed call fails the sync, and the others
 * are aborted rather than left running into the next one — except for a call failed fast by an open
 * circuit breaker: a sibling may be the breaker's one half-open probe, and aborting it would make the
 * probe tell nothing, so the breaker could never close. Every call has ended when this returns.
 */
async function askEach(ports: RollingPorts, call: ParentCall, shown: KubeObject[], signal: AbortSignal): Promise<CompositeHookResponse[]> {
  const siblings = new AbortController();
  const asked = AbortSignal.any([signal, siblings.signal]);
  // The first failure is the sync's: the siblings it aborted fail after it, for its sake.
  const failures: unknown[] = [];
  const answers = await Promise.all(shown.map((parent) => ports.ask({ ...call, shown: parent }, asked).catch((err: unknown) => {
    failures.push(err);
    if (!(err instanceof HookCircuitOpenError)) siblings.abort(err);
    return undefined;
  })));
  if (failures.length > 0) throw failures[0];
  return answers as CompositeHookResponse[];
}
