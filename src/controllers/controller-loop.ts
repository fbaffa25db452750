/**
 * The loop every running controller runs, whatever its kind: fill the caches, then `--workers` workers
 * over one queue of object keys, periodic resyncs, metrics and a `SyncError` event per failed sync,
 * and an orderly stop. A CompositeController and a DecoratorController differ only in how events
 * become keys and in what one reconcile does; both hand those to {@link runControllerLoop}.
 */
import type { Logger } from 'pino';
import { boundedJoin, type KubeObject } from '../api/index.ts';
import { PlanStoppedError } from '../apply/index.ts';
import { errorChain, RetryAfterError, runWorkers, type ReconcileOutcome, type ReconcileResult, type WorkQueue } from '../engine/index.ts';
import { isConflict, isForbidden, KubeApiError, type InformerLease } from '../kube/index.ts';
import type { ControllerLabels } from '../metrics/metrics.ts';
import type { Host } from './host.ts';
import { parentsInShard } from './shard-scope.ts';
import { StaleSyncError } from '../sync/stale-writes.ts';
import { startCircuitRequeue } from './circuit-requeue.ts';
import type { HookCircuits } from './hook-circuits.ts';

/** A running controller. */
export interface RunningController {
  /** Drains the workers, removes the handlers and releases the informers. */
  stop(): Promise<void>;
}

/**
 * One running controller made of `parts` that stop together: each stop starts at once, so none waits
 * for another's work in flight, and one that fails still lets the others stop. Rejects, once all have
 * ended, with the failure, or an `AggregateError` of them when there are several.
 */
export function stopTogether(parts: readonly { stop(): Promise<void> }[]): RunningController {
  return {
    async stop() {
      const ended = await Promise.allSettled(parts.map((part) => part.stop()));
      const failures = ended.filter((end) => end.status === 'rejected').map((end) => end.reason as unknown);
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, `${failures.length} parts of the controller failed to stop`);
    },
  };
}

/** How long a controller's caches may take to fill before its start fails (and is retried). */
const CACHE_SYNC_TIMEOUT_MS = 60_000;

/** A lease's informer that may not list its type; the API server's answer names the missing permission. */
class CacheForbiddenError extends Error {}

/**
 * Rejects with the first Forbidden a lease's informer gets (now or later) while the caches fill:
 * retrying cannot help until someone grants the permission, so the controller reports it at once
 * rather than after the cache-sync timeout. Other failures (a network error) are retried as usual.
 */
function firstForbidden(leases: readonly InformerLease[], signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = (type: InformerLease['informer']['type'], err: unknown): void => {
      if (isForbidden(err)) reject(new CacheForbiddenError(`loom may not list and watch ${type.resource}.${type.apiVersion}`, { cause: err }));
    };
    for (const { informer } of leases) {
      fail(informer.type, informer.lastError());
      const unsubscribe = informer.onError((err) => fail(informer.type, err));
      signal.addEventListener('abort', unsubscribe, { once: true });
    }
  });
}

/**
 * Waits until every lease's cache has filled. Throws, after releasing every lease, at the first
 * Forbidden (naming the permission), or at a timeout naming the types that did not fill (a broken
 * conversion webhook, an API server that does not answer); aborting `signal` abandons the wait the
 * same way.
 */
export async function waitForCaches(host: Host, leases: readonly InformerLease[], signal: AbortSignal): Promise<void> {
  const giveUp = new AbortController();
  const abandon = AbortSignal.any([signal, giveUp.signal]);
  const synced = Promise.all(leases.map((lease) => lease.informer.whenSynced()));
  const timeout = host.clock.sleep(CACHE_SYNC_TIMEOUT_MS, abandon).then(() => 'timeout' as const, () => 'aborted' as const);
  const forbidden = firstForbidden(leases, abandon);
  const outcome = await Promise.race([synced.then(() => 'synced' as const), timeout, forbidden]).catch((err: unknown) => err);
  giveUp.abort();
  if (outcome === 'synced') return;
  const pending = leases.filter((l) => !l.informer.hasSynced()).map((l) => `${l.informer.type.resource}.${l.informer.type.apiVersion}`);
  for (const lease of leases) lease.release();
  signal.throwIfAborted();
  if (outcome instanceof CacheForbiddenError) throw outcome;
  throw new Error(`the caches of ${pending.join(', ')} did not fill within ${CACHE_SYNC_TIMEOUT_MS / 1000} s (can loom list them?)`);
}

/** What one controller brings to the loop; `K` is its queue key. */
export interface ControllerLoopOptions<K> {
  host: Host;
  labels: ControllerLabels;
  logger: Logger;
  queue: WorkQueue<K>;
  /** How a key reads in logs (`namespace/name`, or a type and an object). */
  keyName(key: K): string;
  /** One sync of the object `key` names. */
  reconcile(key: K, signal: AbortSignal, logger: Logger): Promise<ReconcileResult>;
  /** Every key the controller manages, for the periodic resyncs. */
  keys(): Iterable<K>;
  /** The object a key's `SyncError` event is recorded on, when it is still cached. */
  objectOf(key: K): KubeObject | undefined;
  /** `resyncPeriodSeconds` of the controller, in milliseconds. */
  resyncPeriodMs?: number | undefined;
  /** Undoes the controller's subscriptions and releases what it holds, after the workers have drained. */
  release(): void;
  /** The circuit breakers of the controller's webhooks: the parents they skip are queued again when they let calls through. */
  circuits?: HookCircuits | undefined;
}

/** Runs the workers and resync loops until the returned controller is stopped. */
export function runControllerLoop<K>(options: ControllerLoopOptions<K>): RunningController {
  const { host, queue } = options;
  const untrackQueue = host.metrics.trackQueue(options.labels, () => queue.len());
  const untrackShard = host.shard ? host.metrics.trackShardParents(options.labels, () => parentsInShard(host, [...options.keys()].map((key) => options.objectOf(key)))) : () => undefined;
  const stopping = new AbortController();
  let reconciles = 0;
  // Each reconcile logs with its own id, so the lines of one sync can be told apart from a concurrent one,
  // and is one trace, whose spans are its hook calls and writes.
  const spanAttributes = { 'loom.controller': options.labels.controller, 'loom.controller_type': options.labels.type };
  const reconcile = (key: K, signal: AbortSignal) => host.tracing.inSpan(`reconcile ${options.labels.type}`, { ...spanAttributes, 'loom.parent': options.keyName(key), 'loom.decision': 'none' }, async () => {
    const result = await options.reconcile(key, signal, options.logger.child({ key: options.keyName(key), reconcileId: ++reconciles })).catch(quietRetries);
    host.tracing.annotate({ 'loom.result': result.requeueAfterMs === undefined ? 'success' : 'requeue' });
    return result;
  });
  const requeue = options.circuits && startCircuitRequeue({
    circuits: options.circuits, enqueue: (key) => queue.add(key), keys: () => options.keys(), keyName: (key) => options.keyName(key), clock: host.clock, signal: stopping.signal,
  });
  const workers = runWorkers({
    // Stopping also aborts in-flight hook calls, so a restart never waits out a long webhook timeout.
    queue, workers: host.settings.workers, signal: stopping.signal, clock: host.clock,
    reconciler: { reconcile },
    onOutcome: (outcome) => {
      const repeated = requeue?.ended(outcome.key, outcome.result === 'error' ? outcome.error : undefined) ?? false;
      report(options, outcome, stopping.signal, repeated);
      if (!stopping.signal.aborted) tellSyncFailures(options, outcome);
    },
  });
  host.syncFailures?.begin([...options.keys()].map((key) => options.keyName(key)));
  const resync = Promise.all([
    resyncLoop(options, options.resyncPeriodMs, stopping.signal),
    resyncLoop(options, host.settings.cacheFlushIntervalMs, stopping.signal),
  ]);
  return {
    async stop() {
      stopping.abort();
      await Promise.all([workers, resync]);
      requeue?.stop();
      options.release();
      untrackQueue();
      untrackShard();
      options.logger.info('controller stopped');
    },
  };
}

/**
 * Re-enqueues every key every `periodMs`: `resyncPeriodSeconds` of the controller, and the host's
 * `--cache-flush-interval` (a safety net for anything a watch could have missed).
 */
async function resyncLoop<K>(options: ControllerLoopOptions<K>, periodMs: number | undefined, signal: AbortSignal): Promise<void> {
  if (periodMs === undefined || periodMs <= 0) return;
  while (!signal.aborted) {
    await options.host.clock.sleep(periodMs, signal).catch(() => undefined);
    if (signal.aborted) return;
    for (const key of options.keys()) options.queue.add(key);
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

/**
 * Metrics for every reconcile; a line for a sync stopped as stale ({@link reportStale}); a single
 * log line and a `SyncError` event on the object for each failure — except a sync cut short because the controller is stopping (a restart, a shutdown), which is not the
 * object's fault, and a sync `repeated`ly failed fast by a circuit breaker that has stayed open since it was reported.
 */
function report<K>(options: ControllerLoopOptions<K>, outcome: ReconcileOutcome<K>, stopping: AbortSignal, repeated: boolean): void {
  options.host.metrics.reconciled(options.labels, outcome.result, outcome.durationMs / 1000);
  if (outcome.error instanceof StaleSyncError) reportStale(options, outcome.key, outcome.error, stopping);
  if (outcome.result !== 'error' && outcome.result !== 'terminal') return;
  if (stopping.aborted || repeated) {
    const why = stopping.aborted ? 'sync cut short by the controller stopping' : 'sync failed fast again: the circuit breaker is still open';
    options.logger.debug({ key: options.keyName(outcome.key), err: outcome.error }, why);
    return;
  }
  // One line per failed sync, so one per step of the key's backoff; the error (its causes, its stack)
  // is in `err` once, bounded by the root logger.
  options.logger.warn({ key: options.keyName(outcome.key), err: outcome.error }, 'sync failed');
  const obj = options.objectOf(outcome.key);
  // The chain is joined bounded (a hook's failure can quote anything), and never built whole.
  if (obj) options.host.events.record(obj, { type: 'Warning', reason: 'SyncError', message: `Sync error: ${boundedJoin(errorChain(outcome.error), ': ')}` });
}

/**
 * Tells the controller object's `SyncsFailing` report how a sync ended. A failure is a sync that
 * failed (or was failed fast by an open circuit breaker); a success, one that succeeded or found the
 * parent gone. A retry someone asked for (the API server's Conflict or 429, a hook's Retry-After,
 * caches filling) and a sync stopped as stale say nothing either way.
 */
function tellSyncFailures<K>(options: ControllerLoopOptions<K>, outcome: ReconcileOutcome<K>): void {
  const report = options.host.syncFailures;
  if (!report || outcome.result === 'requeue' || outcome.error instanceof StaleSyncError) return;
  const name = options.keyName(outcome.key);
  if (outcome.result === 'success') report.succeeded(name);
  else report.failed(name, options.objectOf(outcome.key), outcome.error);
}

/**
 * Says once per stop why a sync ended early (`sync/stale-writes.ts`), so an operator sees it and that
 * the object is synced again; write failures met before the stop are its `err` (bounded by the root
 * logger), as they are not reported otherwise. A stop for the controller stopping is every in-flight
 * sync's at each restart or shutdown, so it is said at debug.
 */
function reportStale<K>(options: ControllerLoopOptions<K>, key: K, error: StaleSyncError, stopping: AbortSignal): void {
  const failed = error.cause instanceof Error && !(error.cause instanceof PlanStoppedError) ? { err: error.cause } : {};
  const fields = { key: options.keyName(key), ...failed };
  if (stopping.aborted) options.logger.debug(fields, error.message);
  else options.logger.info(fields, error.message);
}
