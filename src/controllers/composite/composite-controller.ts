/**
 * Runs one CompositeController: resolves its types, takes shared informers for the parent and child
 * types, routes their events to parent keys, and runs `--workers` workers over one queue. Stopping
 * drains the workers and lets go of the informers.
 */
import { objectKey, type CompositeController } from '../../api/index.ts';
import { childRefOf, finalizerName } from '../../core/index.ts';
import { childKey } from '../../apply/index.ts';
import { errorChain, RetryAfterError, runWorkers, WorkQueue, type ReconcileOutcome } from '../../engine/index.ts';
import { isConflict, KubeApiError, type InformerLease } from '../../kube/index.ts';
import { resolveResource, type Host } from '../host.ts';
import { runnerFor } from '../hook-runners.ts';
import type { ExpressionSources } from '../expression-sources.ts';
import { createRelatedObjects } from '../related-objects.ts';
import type { CompositeContext } from './context.ts';
import { childHandler, parentHandler, type RoutingContext } from './route-events.ts';
import { syncParent } from './sync-parent.ts';

/** A running engine. */
export interface RunningController {
  /** Drains the workers, removes the handlers and releases the informers. */
  stop(): Promise<void>;
}

const CONTROLLER_TYPE = 'CompositeController';

/** How long a controller's caches may take to fill before its start fails (and is retried). */
const CACHE_SYNC_TIMEOUT_MS = 60_000;

/**
 * Starts `controller`. Throws `ResourceNotFoundError` while discovery lacks a named resource, and a
 * timeout when its caches do not fill (loom may not list the type: RBAC, a broken conversion
 * webhook) — both retried by the caller — and any hook-construction error (a bad webhook URL) as is.
 * Aborting `signal` abandons the start.
 */
export async function startCompositeController(
  host: Host, controller: CompositeController, signal: AbortSignal, sources: ExpressionSources,
): Promise<RunningController> {
  const { spec } = controller;
  const labels = { controller: controller.name, type: CONTROLLER_TYPE };
  const logger = host.logger.child({ controller: `${CONTROLLER_TYPE}/${controller.name}` });
  const parentType = resolveResource(host, spec.parentResource.apiVersion, spec.parentResource.resource);
  const childTypes = spec.childResources.map((rule) => ({ rule, type: resolveResource(host, rule.apiVersion, rule.resource) }));
  const hookRunner = async (hook: 'sync' | 'finalize' | 'customize') => {
    const hookSpec = spec.hooks[hook];
    return hookSpec ? runnerFor(host, hookSpec, { hook, controller: labels }, sources) : undefined;
  };
  const runners = { sync: await hookRunner('sync'), finalize: await hookRunner('finalize') };
  const customizeRunner = await hookRunner('customize');
  const queue = new WorkQueue({ clock: host.clock });

  const leases: InformerLease[] = [host.informers.acquire(parentType), ...childTypes.map((c) => host.informers.acquire(c.type))];
  const [parentLease, ...childLeases] = leases;
  const ctx: CompositeContext = {
    host, controller, labels, parentType, logger, runners,
    related: customizeRunner && createRelatedObjects({
      host, controller: controller.object, hook: spec.hooks.customize!, runner: customizeRunner, enqueue: (key) => queue.add(key), logger,
    }),
    parents: parentLease!.informer.store,
    children: childTypes.map((c, i) => ({ ...c, store: childLeases[i]!.informer.store })),
    finalizer: finalizerName(controller.name),
    records: new Map(),
    warnedNoStatus: { value: false },
  };
  try {
    await waitForCaches(host, leases, signal);
  } catch (err) {
    for (const lease of leases) lease.release();
    throw err;
  }
  return run(ctx, leases, queue);
}

async function waitForCaches(host: Host, leases: InformerLease[], signal: AbortSignal): Promise<void> {
  const giveUp = new AbortController();
  const abandon = AbortSignal.any([signal, giveUp.signal]);
  const synced = Promise.all(leases.map((lease) => lease.informer.whenSynced()));
  const timeout = host.clock.sleep(CACHE_SYNC_TIMEOUT_MS, abandon).then(() => 'timeout' as const, () => 'aborted' as const);
  const outcome = await Promise.race([synced.then(() => 'synced' as const), timeout]);
  giveUp.abort();
  if (outcome === 'synced') return;
  const pending = leases.filter((l) => !l.informer.hasSynced()).map((l) => `${l.informer.type.resource}.${l.informer.type.apiVersion}`);
  signal.throwIfAborted();
  throw new Error(`the caches of ${pending.join(', ')} did not fill within ${CACHE_SYNC_TIMEOUT_MS / 1000} s (can loom list them?)`);
}

function run(ctx: CompositeContext, leases: InformerLease[], queue: WorkQueue): RunningController {
  const { host, controller, related } = ctx;
  const routing: RoutingContext = {
    parentType: ctx.parentType, parents: ctx.parents, finalizer: ctx.finalizer,
    parentLabelSelector: controller.spec.parentResource.labelSelector,
    generateSelector: controller.spec.generateSelector,
    ignoreStatusChanges: controller.spec.parentResource.ignoreStatusChanges,
    enqueue: (key) => queue.add(key),
  };
  const [parentLease, ...childLeases] = leases;
  const unsubscribe = [
    parentLease!.informer.subscribe(parentHandler(routing)),
    ...childLeases.map((lease) => lease.informer.subscribe(childHandler(routing))),
    // A deleted child's apply record can never match again; drop it so the map does not grow forever.
    ...childLeases.map((lease) => lease.informer.subscribe({ onDelete: (child) => ctx.records.delete(childKey(childRefOf(child))) })),
    // A deleted parent's customize answer and related-object routes go with it.
    parentLease!.informer.subscribe({ onDelete: (parent) => related?.forget(parent) }),
  ];
  const untrack = host.metrics.trackQueue(ctx.labels, () => queue.len());
  const stopping = new AbortController();
  let reconciles = 0;
  // Each reconcile logs with its own id, so the lines of one sync can be told apart from a concurrent one.
  const reconcile = (key: string, signal: AbortSignal) =>
    syncParent({ ...ctx, logger: ctx.logger.child({ key, reconcileId: ++reconciles }) }, key, signal).catch(quietRetries);
  const workers = runWorkers({
    // Stopping also aborts in-flight hook calls, so a restart never waits out a long webhook timeout.
    queue, workers: host.settings.workers, signal: stopping.signal, reconcileSignal: stopping.signal, clock: host.clock,
    reconciler: { reconcile },
    onOutcome: (outcome) => report(ctx, outcome),
  });
  const period = controller.spec.resyncPeriodSeconds;
  const resync = Promise.all([
    resyncLoop(ctx, queue, period === undefined ? undefined : period * 1000, stopping.signal),
    resyncLoop(ctx, queue, host.settings.cacheFlushIntervalMs, stopping.signal),
  ]);
  ctx.logger.info({ parent: `${ctx.parentType.resource}.${ctx.parentType.apiVersion}`, children: ctx.children.length }, 'controller started');
  return {
    async stop() {
      stopping.abort();
      for (const off of unsubscribe) off();
      await Promise.all([workers, resync]);
      related?.stop();
      untrack();
      for (const lease of leases) lease.release();
      ctx.logger.info('controller stopped');
    },
  };
}

/**
 * Re-enqueues every cached parent every `periodMs`: `resyncPeriodSeconds` of the controller, and the
 * host's `--cache-flush-interval` (a safety net for anything a watch could have missed).
 */
async function resyncLoop(ctx: CompositeContext, queue: WorkQueue, periodMs: number | undefined, signal: AbortSignal): Promise<void> {
  if (periodMs === undefined || periodMs <= 0) return;
  while (!signal.aborted) {
    await ctx.host.clock.sleep(periodMs, signal).catch(() => undefined);
    if (signal.aborted) return;
    for (const parent of ctx.parents.list()) queue.add(objectKey(parent.metadata.namespace, parent.metadata.name ?? ''));
  }
}

/**
 * API answers that mean "not now" rather than "wrong": a Conflict (our cache was behind; the newer
 * object is on its way through the watch) and a 429 from the API server's own rate limiting. They are
 * retried after a short delay without a `SyncError` event or growing backoff.
 */
function quietRetries(err: unknown): never {
  if (err instanceof KubeApiError && (isConflict(err) || err.status === 429)) {
    throw new RetryAfterError(`API answered ${err.status} ${err.reason}; retrying`, { retryAfterMs: (err.retryAfterSeconds ?? 1) * 1000, cause: err });
  }
  throw err;
}

/** Metrics for every reconcile; a log line and a `SyncError` event on the parent for each failure. */
function report(ctx: CompositeContext, outcome: ReconcileOutcome): void {
  ctx.host.metrics.reconciled(ctx.labels, outcome.result, outcome.durationMs / 1000);
  if (outcome.result !== 'error' && outcome.result !== 'terminal') return;
  const message = errorChain(outcome.error).join(': ');
  ctx.logger.warn({ key: outcome.key, err: outcome.error }, `sync failed: ${message}`);
  const parent = ctx.parents.get(outcome.key);
  if (parent) ctx.host.events.record(parent, { type: 'Warning', reason: 'SyncError', message: `Sync error: ${message}` });
}
