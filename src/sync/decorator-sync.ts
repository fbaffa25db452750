/**
 * One sync of one DecoratorController target (docs/concepts.md, "DecoratorController writes";
 * docs/hook-protocol.md, "DecoratorController requests"): finalizer, the target's attachments, hook,
 * validation of the desired attachments, the target's labels, annotations and status, then the
 * attachment writes. Reads come from the caches. Nothing is written before the hook's answer has been
 * validated, so a failing or garbled hook changes nothing. Written against {@link DecoratorSyncPorts}: the
 * cluster's in controllers/decorator/live-ports.ts.
 */
import type { DecoratorController } from '../api/index.ts';
import { afterFinalize, decideLifecycle, planTargetWrites } from '../core/index.ts';
import type { ReconcileResult } from '../engine/index.ts';
import { writeFailures } from './write-failures.ts';
import { stopWhenStale, throwIfStopped } from './stale-writes.ts';
import type { DecoratorSyncPorts } from './decorator-ports.ts';

/** The decorator a sync is for: its spec and its finalizer's name. */
export interface DecoratorSyncController {
  controller: DecoratorController;
  finalizer: string;
}

/** Syncs the target `key` names through `ports`; a target that is gone needs nothing. */
export async function syncTarget<K>(sync: DecoratorSyncController, ports: DecoratorSyncPorts<K>, key: K, signal: AbortSignal): Promise<ReconcileResult> {
  const found = ports.target(key);
  if (!found) return {};
  const cached = found.object;
  const lifecycle = decideLifecycle({
    parent: cached, finalizer: sync.finalizer, hasFinalizeHook: sync.controller.spec.hooks.finalize !== undefined, matchesParentSelector: found.selected,
  });
  if (lifecycle.hook === 'none') return {};
  // Related objects first: a customize hook that fails or answers garbage must leave nothing written.
  const related = await ports.related(cached, signal);
  const obj = lifecycle.finalizer === 'keep' ? cached : await ports.setFinalizer(cached, lifecycle.finalizer === 'add');
  const observed = ports.attachments(obj);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await ports.answer({ target: obj, observed, finalizing, related }, signal);
  const after = finalizing ? afterFinalize({ parent: obj, finalized: response.finalized, manageChildren: lifecycle.manageChildren }) : { removeFinalizer: false, manageChildren: lifecycle.manageChildren };
  const written = await ports.writeTarget(planTargetWrites(obj, response, { finalizer: sync.finalizer, removeFinalizer: after.removeFinalizer, statusSubresource: found.statusSubresource }));
  // The attachment writes stop once the answer is stale: the controller stops, the target goes or its spec moves.
  // Judged against the target as written: a status written into the object itself (no status subresource)
  // moves a CRD's generation, and the sync must not take its own write for a newer spec.
  const stopIf = stopWhenStale(written, () => ports.target(key)?.object, signal);
  const failures = after.manageChildren ? await ports.manageAttachments(obj, response.attachments, observed, stopIf) : [];
  throwIfStopped(failures, 'attachment');
  if (failures.length > 0) throw writeFailures(failures, 'attachment');
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}
