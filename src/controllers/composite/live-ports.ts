/**
 * The ports of a CompositeController sync over the cluster: the running controller's caches, hook
 * runners and writers (see sync-ports.ts).
 */
import { whyNotChild } from '../../core/index.ts';
import type { KubeObject } from '../../api/index.ts';
import { manageChildren } from '../manage-children.ts';
import { setFinalizer } from '../set-finalizer.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';
import { validatedAnswer, type ParentCall } from './parent-hook.ts';
import { writeStatus } from './parent-writes.ts';
import { rollingAnswer } from './rolling-sync.ts';
import type { CompositeSyncPorts } from './sync-ports.ts';

/**
 * The hook's validated answer: one call, or one per revision while a child type rolls — unless the
 * parent is going away without a finalize call: then the garbage collector, not a rollout, deals
 * with the children.
 */
function answer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal) {
  const rolls = ctx.revisions !== undefined && (call.finalizing || !call.parent.metadata.deletionTimestamp);
  return rolls ? rollingAnswer(ctx, call, signal) : validatedAnswer(ctx, call, signal);
}

/** The ports of `ctx`'s syncs. */
export function livePorts(ctx: CompositeContext): CompositeSyncPorts {
  return {
    parent: (key) => ctx.parents.get(key),
    related: async (parent, signal) => ctx.related?.of(parent, signal),
    setFinalizer: (parent, present) => setFinalizer(ctx, parent, present),
    claimChildren: (parent, selector) => claimForParent(ctx, parent, selector, ctx.children),
    answer: (call, signal) => answer(ctx, call, signal),
    manageChildren: (parent, selector, desired, claimed) => {
      const whyNotOurs = (existing: KubeObject) => whyNotChild({ parent, selector, existing });
      return manageChildren({ ...ctx, types: ctx.children, whyNotOurs }, desired, claimed);
    },
    writeStatus: (parent, status, childrenWritten) => writeStatus(ctx, parent, status, childrenWritten),
  };
}
