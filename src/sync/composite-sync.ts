/**
 * One sync of one CompositeController parent — the reconcile (docs/architecture.md,
 * "One sync of a parent"): finalizer, claim (adopt/release), hook, validation of the desired children,
 * child writes, status. Reads come from the caches; the only uncached reads are the parent check before
 * an adoption and, when a create finds a child's name taken, the read of the object holding it. No child
 * is created, changed or deleted before the hook's answer has been validated, so a failing or garbled
 * hook never deletes a child. The child writes stop when the answer goes stale (`stale-writes.ts`);
 * such a sync writes no status and is requeued. Written against {@link CompositeSyncPorts}: the cluster's in controllers/composite/live-ports.ts.
 */
import { matchesSelector, type CompositeController } from '../api/index.ts';
import { decideLifecycle, parentSelector } from '../core/index.ts';
import type { ReconcileResult } from '../engine/index.ts';
import { writeFailures } from './write-failures.ts';
import { stopWhenStale, throwIfStopped } from './stale-writes.ts';
import type { CompositeSyncPorts } from './composite-ports.ts';
import { finalizerAfterAnswer, finalizerAfterClaim, tearDownIfDue } from './child-finalizer.ts';

/** The controller a sync is for: its spec and its finalizer's name. */
export interface CompositeSyncController {
  controller: CompositeController;
  finalizer: string;
}

/** Syncs the parent stored under `key` through `ports`; a parent that is gone needs nothing. */
export async function syncParent(sync: CompositeSyncController, ports: CompositeSyncPorts, key: string, signal: AbortSignal): Promise<ReconcileResult> {
  const cached = ports.parent(key);
  if (!cached) return {};
  const { spec } = sync.controller;
  const labelSelector = spec.parentResource.labelSelector;
  const matches = labelSelector === undefined || matchesSelector(labelSelector, cached.metadata.labels);
  const lifecycle = decideLifecycle({ parent: cached, finalizer: sync.finalizer, hasFinalizeHook: spec.hooks.finalize !== undefined, matchesParentSelector: matches });
  if (lifecycle.hook === 'none') return {};
  // The selector is checked before the finalizer is added: a parent whose selector can never work must
  // not get a finalizer that would hold its deletion forever.
  const selector = parentSelector({ parent: cached, generateSelector: spec.generateSelector });
  // Removing the finalizer waits for the claim: the children's lifecycle policies may still need it.
  const finalizer = {
    ports, lifecycle, finalizer: sync.finalizer, hasFinalizeHook: spec.hooks.finalize !== undefined, optedOut: !matches, orderedTeardown: spec.orderedTeardown === true,
  };
  const torn = await tearDownIfDue(finalizer, cached, { key, selector, signal });
  if (torn) return tornDown(torn);
  // Related objects first: a customize hook that fails or answers garbage must leave nothing written.
  const related = await ports.related(cached, signal);
  const added = lifecycle.finalizer === 'add' ? await ports.setFinalizer(cached, true) : cached;
  const claimed = await ports.claimChildren(added, selector);
  const claiming = await finalizerAfterClaim(finalizer, added, claimed);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await ports.answer({ parent: claiming, claimed, finalizing, selector, related }, signal);
  const { parent, manage, desired } = await finalizerAfterAnswer(finalizer, { parent: claiming, claimed, response });
  // The writes stop once the answer is stale: the controller stops, the parent goes or its spec moves.
  const stopIf = stopWhenStale(parent, () => ports.parent(key), signal);
  const { failures, report } = manage ? await ports.manageChildren({ parent, selector, desired, claimed, stopIf, signal }) : { failures: [], report: undefined };
  throwIfStopped(failures, 'child');
  await ports.writeStatus(parent, response.status, { childrenWritten: failures.length === 0, report });
  if (failures.length > 0) throw writeFailures(failures, 'child');
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}

/** The end of a sync that tore the children down (`child-finalizer.ts`): it writes no status. */
function tornDown(failures: readonly Error[]): ReconcileResult {
  throwIfStopped(failures, 'child');
  if (failures.length > 0) throw writeFailures(failures, 'child');
  return {};
}
