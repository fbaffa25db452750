/**
 * loom's Prometheus metrics: Metacontroller's hook metric names (so existing dashboards and alerts
 * keep working) and loom's own `loom_*` series for reconciles, queues and applies.
 */
import { Registry, type Counter, type Gauge, type Histogram } from './exposition.ts';
import { isAnswered, type HookObserver } from '../hooks/index.ts';
import { hookUrlLabel } from './hook-url-label.ts';
import { registerProcessMetrics } from './process-metrics.ts';

/** Which controller a series belongs to. */
export interface ControllerLabels {
  controller: string;
  /** `CompositeController` or `DecoratorController`. */
  type: string;
}

/** The metrics of one process. */
export interface Metrics {
  readonly registry: Registry;
  /**
   * An observer for one hook of one controller (`metacontroller_<hook>_*`). Its `url` label is `url`
   * without userinfo, query or fragment (see {@link hookUrlLabel}): `/metrics` is unauthenticated.
   */
  hookObserver(options: { hook: 'sync' | 'finalize' | 'customize'; url: string; controller: ControllerLabels }): HookObserver;
  /**
   * The metrics of one controller's circuit breaker for one webhook endpoint: `loom_hook_circuit_open`
   * (1 while open or half-open), `loom_hook_circuit_transitions_total{to}` and
   * `loom_hook_circuit_rejected_total` (calls failed fast). `url` is labelled as for {@link hookObserver}.
   */
  circuitObserver(controller: ControllerLabels, url: string): CircuitObserver;
  reconciled(controller: ControllerLabels, result: string, seconds: number): void;
  applied(controller: ControllerLabels, action: string): void;
  /** With `--shards`: the buckets this replica holds, and the buckets it took or gave back. */
  readonly shards: { held(buckets: number): void; handover(direction: 'acquired' | 'released', buckets: number): void };
  /**
   * One event not written (`loom_events_dropped_total`): refused by the per-object spam filter
   * (`filtered`), no place left in its line (`queue_full`), or no slot before its wait ran out (`expired`).
   */
  eventDropped(reason: 'filtered' | 'queue_full' | 'expired'): void;
  /** Registers a queue whose depth is read at scrape time; returns the unregister. */
  trackQueue(controller: ControllerLabels, depth: () => number): () => void;
  /** With `--shards`: registers the count of a controller's parents in this replica's buckets, read at scrape time; returns the unregister. */
  trackShardParents(controller: ControllerLabels, count: () => number): () => void;
  /** Stops the event loop monitor and GC observer that the first scrape started. */
  close(): void;
}

/** What a circuit breaker reports. */
export interface CircuitObserver {
  /** The breaker moved to `to` (`closed`, `open` or `half-open`). */
  changed(to: string): void;
  /** A call failed fast. */
  refused(): void;
  /** Drops the breaker's series (its controller has stopped). */
  remove(): void;
}

type HookName = 'sync' | 'finalize' | 'customize';

/** The three series of the circuit breakers. */
function circuitMetrics(registry: Registry): (controller: ControllerLabels, url: string) => CircuitObserver {
  const labelNames = ['controller', 'controller_type', 'url'] as const;
  const open = registry.gauge({ name: 'loom_hook_circuit_open', help: 'Whether the circuit breaker of a webhook endpoint is open or half-open (1) or closed (0).', labelNames });
  const transitions = registry.counter({ name: 'loom_hook_circuit_transitions_total', help: 'Circuit breaker changes of state, by the state entered.', labelNames: [...labelNames, 'to'] });
  const rejected = registry.counter({ name: 'loom_hook_circuit_rejected_total', help: 'Hook calls failed fast because the circuit breaker of their endpoint was open.', labelNames });
  return (controller, url) => {
    const labels = { controller: controller.controller, controller_type: controller.type, url: hookUrlLabel(url) };
    open.set(labels, 0);
    return {
      changed(to) {
        open.set(labels, to === 'closed' ? 0 : 1);
        transitions.inc({ ...labels, to });
      },
      refused: () => rejected.inc(labels),
      remove() {
        for (const metric of [open, transitions, rejected]) metric.remove(labels);
      },
    };
  };
}

const HOOK_LABELS = ['url', 'controller_name', 'controller_type'] as const;
type HookLabel = typeof HOOK_LABELS[number];

interface HookMetrics {
  requests: Counter<HookLabel | 'code' | 'method'>;
  duration: Histogram<HookLabel | 'method'>;
  inFlight: Gauge<HookLabel>;
}

function hookMetrics(registry: Registry, hook: HookName): HookMetrics {
  const prefix = `metacontroller_${hook}`;
  return {
    requests: registry.counter({ name: `${prefix}_requests_total`, help: `Requests to the ${hook} hook by status code.`, labelNames: [...HOOK_LABELS, 'code', 'method'] }),
    duration: registry.histogram({ name: `${prefix}_request_duration_histogram_seconds`, help: `Latency of ${hook} hook requests.`, labelNames: [...HOOK_LABELS, 'method'] }),
    inFlight: registry.gauge({ name: `${prefix}_in_flight_requests`, help: `${hook} hook requests in flight.`, labelNames: HOOK_LABELS }),
  };
}

/** A per-controller gauge whose values are read at scrape time from what is tracked. */
function trackedGauge(registry: Registry, name: string, help: string): { track(controller: ControllerLabels, value: () => number): () => void } {
  const tracked = new Map<string, { labels: ControllerLabels; value: () => number }>();
  registry.gauge({
    name, help, labelNames: ['controller', 'controller_type'],
    // Rebuilt at each scrape, so an untracked controller's series goes away.
    collect(gauge) {
      gauge.reset();
      for (const { labels, value } of tracked.values()) gauge.set({ controller: labels.controller, controller_type: labels.type }, value());
    },
  });
  return {
    track(controller, value) {
      const key = `${controller.type}/${controller.controller}`;
      tracked.set(key, { labels: controller, value });
      return () => tracked.delete(key);
    },
  };
}

/** Creates the registry with process metrics and every loom series. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const processMetrics = registerProcessMetrics(registry);
  const hooks = { sync: hookMetrics(registry, 'sync'), finalize: hookMetrics(registry, 'finalize'), customize: hookMetrics(registry, 'customize') };
  // Metacontroller's series count only answered requests; this one counts every call, so a hook that
  // refuses connections or hangs shows up (result `error`, `timeout`), not just a silent gap.
  const hookCalls = registry.counter({
    name: 'loom_hook_requests_total', help: 'Hook calls by result: answered (any HTTP status), timeout, aborted or error (no answer: refused, reset, TLS).',
    labelNames: ['controller', 'controller_type', 'hook', 'url', 'result'],
  });
  const reconciles = registry.counter({ name: 'loom_reconcile_total', help: 'Reconciles by outcome.', labelNames: ['controller', 'controller_type', 'result'] });
  const reconcileSeconds = registry.histogram({ name: 'loom_reconcile_duration_seconds', help: 'Time per reconcile.', labelNames: ['controller', 'controller_type'] });
  const applies = registry.counter({ name: 'loom_apply_total', help: 'Child writes by action (create, update, delete, recreate).', labelNames: ['controller', 'controller_type', 'action'] });
  const shardBuckets = registry.gauge({ name: 'loom_shard_buckets', help: 'Parent buckets this replica holds (with --shards).' });
  const shardHandovers = registry.counter({ name: 'loom_shard_handovers_total', help: 'Parent buckets this replica took (acquired) or gave back (released).', labelNames: ['direction'] });
  const eventsDropped = registry.counter({
    name: 'loom_events_dropped_total', help: 'Events not written: refused by the per-object spam filter (filtered), no place in line (queue_full), or no write slot in time (expired).',
    labelNames: ['reason'],
  });
  const circuits = circuitMetrics(registry);
  const queues = trackedGauge(registry, 'loom_queue_depth', 'Keys waiting in each controller queue.');
  const shardParents = trackedGauge(registry, 'loom_shard_parents', 'Parents (or decorator targets) in the buckets this replica holds, per controller (with --shards).');

  return {
    registry,
    hookObserver({ hook, url, controller }) {
      const m = hooks[hook];
      const labels = { url: hookUrlLabel(url), controller_name: controller.controller, controller_type: controller.type };
      const callLabels = { controller: controller.controller, controller_type: controller.type, hook, url: labels.url };
      return {
        requestStarted: () => m.inFlight.inc(labels),
        requestFinished: ({ code, durationSeconds }) => {
          m.inFlight.dec(labels);
          const answered = isAnswered(code);
          hookCalls.inc({ ...callLabels, result: answered ? 'answered' : code });
          if (!answered) return; // Metacontroller counts only requests that got an answer.
          m.requests.inc({ ...labels, code, method: 'post' });
          m.duration.observe({ ...labels, method: 'post' }, durationSeconds);
        },
      };
    },
    circuitObserver: circuits,
    reconciled(controller, result, seconds) {
      const labels = { controller: controller.controller, controller_type: controller.type };
      reconciles.inc({ ...labels, result });
      reconcileSeconds.observe(labels, seconds);
    },
    applied(controller, action) {
      applies.inc({ controller: controller.controller, controller_type: controller.type, action });
    },
    shards: {
      held: (buckets) => shardBuckets.set({}, buckets),
      handover: (direction, buckets) => shardHandovers.inc({ direction }, buckets),
    },
    eventDropped: (reason) => eventsDropped.inc({ reason }),
    trackQueue: (controller, depth) => queues.track(controller, depth),
    trackShardParents: (controller, count) => shardParents.track(controller, count),
    close: () => processMetrics.close(),
  };
}
