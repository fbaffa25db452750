/**
 * The status write a sync makes to the parent (through the status subresource, only when it changed,
 * using the cached object — no uncached GET per sync).
 */
import type { KubeObject } from '../../api/index.ts';
import { desiredStatus, isBuiltInGroup, statusChanged, wantsReadyCondition, withReadyCondition, type JsonObject } from '../../core/index.ts';
import type { StatusWrite } from '../../sync/composite-ports.ts';
import { groupOf, type Json } from '../../api/index.ts';
import { isConflict, isNotFound } from '../../kube/index.ts';
import type { CompositeContext } from './context.ts';

/**
 * Writes `.status` = the hook's status plus `observedGeneration` (and the Ready condition, see
 * {@link statusOf}) when it differs from the cached one; the generation is stamped only when
 * `childrenWritten` (every child write of the sync succeeded).
 * NotFound (parent gone) needs nothing. A Conflict (our cached parent was behind) goes up as is: the
 * engine retries it quietly. Dropping it would lose the status for good when the newer parent differs
 * only in status and `ignoreStatusChanges` filters that event out.
 */
export async function writeStatus(ctx: CompositeContext, parent: KubeObject, hookStatus: { [key: string]: Json } | null, written: StatusWrite): Promise<void> {
  // A built-in type's status belongs to Kubernetes' own controllers (a Namespace's phase, a
  // Deployment's replicas): a hook that says nothing about status must not wipe it.
  if (hookStatus === null && isBuiltInGroup(groupOf(ctx.parentType.apiVersion))) return;
  const status = statusOf(ctx, parent, hookStatus, written);
  if (!statusChanged(parent.status, status)) return;
  if (!ctx.parentType.subresources.includes('status')) {
    warnNoStatusOnce(ctx, parent);
    return;
  }
  try {
    await ctx.host.writer.replaceStatus({ ...parent, status });
    ctx.host.metrics.applied(ctx.labels, 'status');
  } catch (err) {
    if (isNotFound(err)) return;
    if (isConflict(err)) throw err;
    throw new Error('could not write the parent status', { cause: err });
  }
}

/**
 * The hook's status with `observedGeneration`, and loom's Ready condition when the controller sets
 * `spec.readyCondition` or a child asks for order (docs/ordering-and-readiness.md).
 */
function statusOf(ctx: CompositeContext, parent: KubeObject, hookStatus: { [key: string]: Json } | null, { childrenWritten, report }: StatusWrite): JsonObject {
  const { generation } = parent.metadata;
  const status = desiredStatus({ hookStatus, generation, current: parent.status, childrenWritten });
  if (!wantsReadyCondition(report, ctx.controller.spec.readyCondition)) return status;
  return withReadyCondition(status, { report, generation, current: parent.status, now: ctx.host.clock.now() });
}

function warnNoStatusOnce(ctx: CompositeContext, parent: KubeObject): void {
  if (ctx.warnedNoStatus.value) return;
  ctx.warnedNoStatus.value = true;
  ctx.host.events.record(ctx.controller.object, {
    type: 'Warning', reason: 'SyncError',
    message: `${ctx.parentType.resource}.${ctx.parentType.apiVersion} has no status subresource; loom does not write the status of ${parent.kind} parents`,
  });
}
