/**
 * The ports of a CompositeController sync over the cluster: the running controller's caches, hook
 * runners and writers (see sync-ports.ts).
 */
import { groupOf, type ControllerRevision, type KubeObject } from '../../api/index.ts';
import { childKey } from '../../apply/index.ts';
import { childRefOf, planPoliciesFor, reclaimedChild, whyNotChild, type RevisionWrite } from '../../core/index.ts';
import { RetryAfterError } from '../../engine/index.ts';
import { isAlreadyExists } from '../../kube/index.ts';
import { manageChildren } from '../manage-children.ts';
import { ruleOf } from '../child-policies.ts';
import { setFinalizer } from '../set-finalizer.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';
import type { ParentCall } from '../../sync/composite-ports.ts';
import { validatedAnswer } from './parent-hook.ts';
import { writeStatus } from './parent-writes.ts';
import { rollingAnswer, type RollingPorts } from '../../sync/rollout.ts';
import type { CompositeSyncPorts } from '../../sync/composite-ports.ts';

/**
 * Creates a revision. AlreadyExists means the cache has not seen a revision written moments ago: the
 * sync is tried again once it has, without a SyncError.
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

function rollingPorts(ctx: CompositeContext): RollingPorts {
  return {
    claimRevisions: (parent, selector) => claimForParent(ctx, parent, selector, [ctx.revisions!]),
    ask: (call, signal) => validatedAnswer(ctx, call, signal),
    writeRevision: (write, namespace) => writeRevision(ctx, write, namespace),
  };
}

/**
 * The hook's validated answer: one call, or one per revision while a child type rolls — unless the
 * parent is going away without a finalize call: then the garbage collector, not a rollout, deals
 * with the children.
 */
async function answer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal) {
  const rolls = ctx.revisions !== undefined && (call.finalizing || !call.parent.metadata.deletionTimestamp);
  if (!rolls) return validatedAnswer(ctx, call, signal);
  const { response, moved } = await rollingAnswer({
    controller: ctx.controller, parentType: ctx.parentType, applyStrategy: ctx.host.settings.applyStrategy,
    strategyFor: (apiGroup, kind) => ctx.children.find((c) => groupOf(c.type.apiVersion) === apiGroup && c.type.kind === kind)?.rule.updateStrategy,
    lastApplied: (child) => ctx.records.get(childKey(childRefOf(child))),
  }, rollingPorts(ctx), call, signal);
  if (moved) ctx.logger.info({ moved }, 'rolling update: moved one child to the latest revision');
  return response;
}

/** The ports of `ctx`'s syncs. */
export function livePorts(ctx: CompositeContext): CompositeSyncPorts {
  return {
    parent: (key) => ctx.parents.get(key),
    related: async (parent, signal) => ctx.related?.of(parent, signal),
    setFinalizer: (parent, present) => setFinalizer(ctx, parent, present),
    claimChildren: (parent, selector) => claimForParent(ctx, parent, selector, ctx.children),
    answer: (call, signal) => answer(ctx, call, signal),
    manageChildren: ({ parent, selector, desired, claimed, stopIf, signal }) => {
      const whyNotOurs = (existing: KubeObject) => whyNotChild({ parent, selector, existing, adopt: ruleOf(ctx.children, existing)?.adopt });
      const reclaim = (existing: KubeObject) => reclaimedChild({ parent, selector, existing, adopt: ruleOf(ctx.children, existing)?.adopt });
      // An edited annotation that does not parse keeps the child (never deletes it); the log says why.
      const policies = planPoliciesFor((obj) => ruleOf(ctx.children, obj), parent, (child, problems) => ctx.logger.warn(
        { child: `${child.kind} ${child.metadata.namespace ?? ''}/${child.metadata.name ?? ''}`, problems }, 'a child\'s loom.dev annotations do not parse; its type\'s rule decides, and a deletion policy keeps it'));
      const manager = {
        ...ctx, types: ctx.children, whyNotOurs, reclaim, stopIf, policies, judge: ctx.readiness, signal, reportReadiness: ctx.controller.spec.readyCondition,
      };
      return manageChildren(manager, desired, claimed);
    },
    childRule: (child) => ruleOf(ctx.children, child),
    writeStatus: (parent, status, written) => writeStatus(ctx, parent, status, written),
  };
}
