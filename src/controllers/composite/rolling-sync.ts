/**
 * The hook's answer for a parent whose children roll (docs/hook-protocol.md, "Rolling updates"): the
 * parent's ControllerRevisions are claimed, the hook is asked once per revision (the parent as of that
 * revision), one child at a time moves to the latest revision as status checks allow, and the revisions
 * are written before any child is touched — so a rollout's progress survives a restart.
 */
import { groupOf, matchesSelector, type CompositeHookResponse, type ControllerRevision, type KubeObject } from '../../api/index.ts';
import { RetryAfterError } from '../../engine/index.ts';
import { isAlreadyExists } from '../../kube/index.ts';
import { childKey } from '../../apply/index.ts';
import { childRefOf, planRollout, revisionSelector, revisionSet, type RevisionWrite } from '../../core/index.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';
import { validatedAnswer, type ParentCall } from './parent-hook.ts';

/** The answer to go on with, as if one hook call had given it (with the `Updated` condition in its status). */
export async function rollingAnswer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const { spec } = ctx.controller;
  const parentResource = { group: groupOf(ctx.parentType.apiVersion), resource: ctx.parentType.resource };
  const selector = revisionSelector(call.selector, parentResource);
  const revisions = await claimForParent(ctx, call.parent, selector, [ctx.revisions!]);
  const set = revisionSet({
    parent: call.parent, revisions: revisions as ControllerRevision[], parentResource,
    fieldPaths: spec.parentResource.revisionHistory.fieldPaths, generateSelector: spec.generateSelector,
  });
  if (set.latest.isNew && !matchesSelector(selector, set.latest.revision.metadata.labels)) {
    throw new Error(`the ControllerRevision for this parent would not match the parent's selector (its labels come from spec.template.metadata.labels): `
      + 'give the template the selector\'s labels, or use generateSelector');
  }
  // One failed call fails the sync: the others are aborted rather than left running into the next one.
  const siblings = new AbortController();
  const ask = (shown: KubeObject) => validatedAnswer(ctx, { ...call, shown }, AbortSignal.any([signal, siblings.signal])).catch((err: unknown) => {
    siblings.abort(err);
    throw err;
  });
  const [latest, ...historic] = await Promise.all([set.latest, ...set.historic].map((revision) => ask(revision.parent)));
  const plan = planRollout({
    revisions: set, responses: { latest: latest!, historic }, observed: call.claimed,
    strategyFor: (apiGroup, kind) => ctx.children.find((c) => groupOf(c.type.apiVersion) === apiGroup && c.type.kind === kind)?.rule.updateStrategy,
    applyStrategy: ctx.host.settings.applyStrategy,
    lastApplied: (child) => ctx.records.get(childKey(childRefOf(child))),
  });
  for (const write of plan.revisionWrites) await writeRevision(ctx, write, call.parent.metadata.namespace);
  if (plan.moved) ctx.logger.info({ moved: plan.moved }, 'rolling update: moved one child to the latest revision');
  return plan.response;
}

/**
 * Creates the latest revision. AlreadyExists means the cache has not seen a revision written moments
 * ago: the sync is tried again once it has, without a SyncError.
 */
async function createRevision(ctx: CompositeContext, revision: ControllerRevision): Promise<void> {
  try {
    await ctx.host.writer.create(revision);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    throw new RetryAfterError(`ControllerRevision ${revision.metadata.name ?? ''} exists but is not cached yet`, { retryAfterMs: 1000, cause: err });
  }
}

/** Revisions live in the parent's namespace. */
async function writeRevision(ctx: CompositeContext, write: RevisionWrite, namespace: string | undefined): Promise<void> {
  const { writer } = ctx.host;
  if (write.action === 'delete') {
    const { apiVersion, kind } = ctx.revisions!.type;
    await writer.delete({ apiVersion, kind, namespace, name: write.name }, { uid: write.uid });
  } else if (write.action === 'create') {
    await createRevision(ctx, write.revision);
  } else {
    await writer.replace(write.revision);
  }
  ctx.host.metrics.applied(ctx.labels, `${write.action}-revision`);
}
