/**
 * The composition root of `loom run`: configuration → logger → kube connection and caches → engine
 * → controllers → HTTP servers, all living until one shutdown signal, then drained in reverse.
 */
import type { Logger } from 'pino';
import type { LabelSelector } from './api/index.ts';
import {
  acquireLeadership, eventDropReport, eventFilter, holdLeadership, releaseLeadership, requestBudgets, runMetaController, runShardMember, SHARD_GROUP_LABEL, shardScope, tenantWriters,
  type Host, type HostSettings, type Lease,
} from './controllers/index.ts';
import { withoutManagedFieldsUnlessTakenOver } from './core/index.ts';
import { NO_TRACING, systemClock, type Clock } from './engine/index.ts';
import {
  createEventRecorder, createInformerRegistry, createObjectWriter, createRestClient, discover, loadKubeConfig, stringSharer,
  type DiscoverySnapshot, type KubeEnvironment, type ObjectWriter, type RequestObserver, type RestClient,
} from './kube/index.ts';
import { metricsRoutes, probeRoutes, serveUntil } from './server/http-servers.ts';
import type { ListenAddress } from './server/listen-address.ts';
import { createMetrics } from './metrics/metrics.ts';
import { startJsonataEvaluators } from './jsonata-evaluators.ts';

/** Everything `loom run` is configured with (parsed from flags by the CLI). */
export interface LoomConfig extends HostSettings {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** `$KUBECONFIG` and `$KUBERNETES_SERVICE_HOST`/`PORT` as the CLI read them (which kubeconfig, or in-cluster). */
  kubeEnvironment?: KubeEnvironment | undefined;
  /** Where the in-cluster token, `ca.crt` and `namespace` are; default: where the kubelet mounts them. */
  serviceAccountDir?: string | undefined;
  discoveryIntervalMs: number;
  clientQps: number;
  clientBurst: number;
  metricsAddress: ListenAddress | undefined;
  probeAddress: ListenAddress | undefined;
  targetSelector?: LabelSelector | undefined;
  eventsQps: number;
  eventsBurst: number;
  /** `--jsonata-processes`: most JSONata evaluator processes; default `DEFAULT_JSONATA_PROCESSES` (`jsonata-evaluators.ts`). */
  jsonataProcesses?: number | undefined;
  /** `--jsonata-memory-limit`: V8 heap limit of each evaluator process, MiB; default `DEFAULT_JSONATA_MEMORY_MIB` (`jsonata-evaluators.ts`). */
  jsonataMemoryMiB?: number | undefined;
  /** `--leader-election`: the Lease to hold before running controllers; absent = always lead. */
  leaderElection?: { namespace: string; name: string; identity: string } | undefined;
  /** `--shards`: the buckets the parents are split into, and where their Leases live; absent = one replica does all. */
  sharding?: { namespace: string; group: string; identity: string; buckets: number; leaseDurationMs: number } | undefined;
  /**
   * `--shutdown-grace-period`: how long the drain after the stop may take before the CLI exits anyway
   * (`engine/drain-within.ts`); default {@link DEFAULT_SHUTDOWN_GRACE_MS}.
   */
  shutdownGraceMs?: number | undefined;
  /** Export OpenTelemetry traces (the `OTEL_*` variables configure an OTLP exporter); `serviceVersion` is loom's version. */
  tracing?: { serviceVersion: string } | undefined;
}

/**
 * Far more children than any sane parent has (a StatefulSet of thousands of Pods fits), yet a flood of
 * 100,000 from a broken or hostile hook is refused before it is checked, planned or written.
 */
export const DEFAULT_MAX_CHILDREN_PER_PARENT = 10_000;
/**
 * Well inside the 30 s a pod gets by default (and the chart's `terminationGracePeriodSeconds`) between
 * SIGTERM and SIGKILL, so loom ends on its own terms; syncs stop between writes, so a drain takes the
 * writes in flight, usually well under a second.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;
/** Least time between two log lines about events dropped. */
const EVENT_DROP_LOG_INTERVAL_MS = 60_000;

/** What the caller may want back from a running host (ports actually bound, for tests). */
export interface RunningLoom {
  metricsPort: number | undefined;
  probePort: number | undefined;
  /** Resolves when everything has stopped after `signal` aborted. */
  done: Promise<void>;
}

/** What `runLoom` runs with. */
export interface RunLoomOptions {
  config: LoomConfig;
  logger: Logger;
  /** Aborting it stops everything. */
  signal: AbortSignal;
  clock?: Clock;
  /** Sees every API request (tests count writes with it). */
  observeRequests?: RequestObserver;
}

/** Connects, starts the servers and the controllers; everything stops when `signal` aborts. */
export async function runLoom(options: RunLoomOptions): Promise<RunningLoom> {
  // One lifetime for everything started here: the caller's signal ends it, and so does a failure
  // half-way through start-up — otherwise a server already listening would keep a broken process alive.
  const life = new AbortController();
  options.signal.addEventListener('abort', () => life.abort(options.signal.reason), { once: true });
  try {
    const started = await start(options, life.signal);
    return { ...started, done: started.done.finally(() => life.abort()) };
  } catch (err) {
    life.abort(err);
    throw err;
  }
}

async function start(options: RunLoomOptions, signal: AbortSignal): Promise<RunningLoom> {
  const { config, logger, clock = systemClock } = options;
  const metrics = createMetrics();
  // One client rate limit, shared fairly: each controller (and the host) waiting for it takes turns.
  // Event writes have a budget of their own (controllers/request-budgets.ts): the recorder takes each
  // write's slot from it, so its client has no throttle, and never waits on the API client's.
  const budgets = requestBudgets({ clock, qps: config.clientQps, burst: config.clientBurst, signal });
  const kubeConfig = loadKubeConfig({
    path: config.kubeconfig, context: config.context, environment: config.kubeEnvironment, serviceAccountDir: config.serviceAccountDir,
  });
  const client = createRestClient({ kubeConfig, throttle: budgets.api, observe: options.observeRequests });
  const eventClient = createRestClient({ kubeConfig, observe: options.observeRequests });
  // Leases (leader election, sharding) have a client of their own, outside the rate limit: a busy
  // replica's renewals must never queue behind its syncs, or it would look gone while it still writes.
  // (client-go's leader election has a client of its own too.)
  const leaseClient = createRestClient({ kubeConfig, observe: options.observeRequests });
  const discovery = await discoveryLoop({ client, clock, logger, intervalMs: config.discoveryIntervalMs }, signal);
  // Caches keep managedFields only where loom will take fields over: elsewhere they are memory for
  // nothing. And the metadata strings many objects repeat are kept once.
  const shareStrings = stringSharer();
  const informers = createInformerRegistry({
    client, clock, logger, transform: (obj) => withoutManagedFieldsUnlessTakenOver(shareStrings(obj), config.fieldManager),
  });
  const resolveKind = (apiVersion: string, kind: string) => {
    const type = discovery.discovery().byKind(apiVersion, kind);
    if (!type) throw new Error(`discovery does not know kind ${kind} in ${apiVersion}`);
    return type;
  };
  const evaluators = startJsonataEvaluators({ clock, processes: config.jsonataProcesses, heapMiB: config.jsonataMemoryMiB });
  // Loaded only when traces are wanted: the SDK and its exporter are several MiB the host otherwise never holds.
  const tracing = config.tracing && (await import('./tracing/otel-tracing.ts')).startOtelTracing(config.tracing.serviceVersion);
  const host: Host = {
    settings: {
      workers: config.workers, applyStrategy: config.applyStrategy, fieldManager: config.fieldManager,
      cacheFlushIntervalMs: config.cacheFlushIntervalMs, referenceNamespaces: config.referenceNamespaces,
      maxChildrenPerParent: config.maxChildrenPerParent,
      hookMaxConcurrency: config.hookMaxConcurrency, hookCircuit: config.hookCircuit,
    },
    ...discovery, informers, metrics, evaluators, clock, logger,
    writer: createObjectWriter(client, resolveKind, config.fieldManager),
    writerFor: tenantWriters(client, resolveKind, config.fieldManager, tracing || undefined),
    tracing: tracing || NO_TRACING,
    events: createEventRecorder({
      client: eventClient, component: 'loom', fieldManager: config.fieldManager, now: () => clock.now(), logger,
      allow: eventFilter({ clock, qps: config.eventsQps, burst: config.eventsBurst }),
      budget: budgets.events,
      dropped: eventDropReport({ clock, logger, count: (reason) => metrics.eventDropped(reason), intervalMs: EVENT_DROP_LOG_INTERVAL_MS }),
    }),
  };
  const probePort = config.probeAddress && await serveUntil(probeRoutes({
    notReadyReason: () => informers.unsynced().map((t) => `${t} not synced`).join(', ') || undefined,
  }), config.probeAddress, signal);
  const metricsPort = config.metricsAddress && await serveUntil(metricsRoutes(metrics.registry), config.metricsAddress, signal);
  // The evaluators outlive the controllers' drain, so a sync cut short by the stop still ends cleanly.
  // (They start processes only when a JSONata hook is called, so a failed start leaves none behind.)
  const done = runControllers({ host, config, leaseClient: { client: leaseClient, writer: createObjectWriter(leaseClient, resolveKind, config.fieldManager) }, signal }).finally(async () => {
    evaluators.close();
    metrics.close();
    await tracing?.shutdown().catch((err: unknown) => logger.warn({ err }, 'could not export the last spans'));
  });
  logger.info({ server: client.server, applyStrategy: config.applyStrategy, workers: config.workers }, 'loom is running');
  return { metricsPort, probePort, done };
}

interface RunControllersInput {
  host: Host;
  config: LoomConfig;
  /** The client, and its writer, that Leases are read and written with. */
  leaseClient: { client: RestClient; writer: ObjectWriter };
  signal: AbortSignal;
}

/**
 * Runs the controllers — right away, or once this replica holds the leader lease. Shutdown order
 * matters: controllers drain first, then the lease is released, so two leaders never overlap. A lost
 * lease stops the controllers and rejects, so the process exits and a restart rejoins the election.
 */
async function runControllers(input: RunControllersInput): Promise<void> {
  const { host, config, leaseClient, signal } = input;
  const meta = { host, targetSelector: config.targetSelector };
  if (config.sharding) return runShards(input, config.sharding);
  if (!config.leaderElection) return runMetaController(meta, signal);
  const election = { ...config.leaderElection, writer: leaseClient.writer, clock: host.clock, logger: host.logger };
  if (!(await acquireLeadership(election, signal))) return;
  const controllers = new AbortController();
  signal.addEventListener('abort', () => controllers.abort(), { once: true });
  const running = runMetaController(meta, controllers.signal);
  const outcome = await holdLeadership(election, signal);
  controllers.abort();
  await running;
  if (outcome === 'lost') throw new Error('lost the leader lease; stopping so that a restart rejoins the election');
  await releaseLeadership(election);
}

/**
 * Runs the controllers of the parent buckets this replica holds, restarted for its new buckets after
 * every handover (docs/sharding.md).
 */
function runShards({ host, config, leaseClient: { client, writer }, signal }: RunControllersInput, sharding: NonNullable<LoomConfig['sharding']>): Promise<void> {
  const { namespace, group, buckets, leaseDurationMs } = sharding;
  const listLeases = async (stop: AbortSignal): Promise<Lease[]> => (await client.request<{ items: Lease[] }>({
    method: 'GET', path: `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
    query: { labelSelector: `${SHARD_GROUP_LABEL}=${group}` }, signal: stop,
  })).items;
  return runShardMember({
    ...sharding, writer, listLeases, clock: host.clock, logger: host.logger.child({ component: 'sharding' }), observe: host.metrics.shards,
    renewDeadlineMs: Math.round(leaseDurationMs * 2 / 3), retryPeriodMs: Math.min(2_000, Math.round(leaseDurationMs / 5)),
  }, (held, stop) => runMetaController({ host: { ...host, shard: shardScope(buckets, held) }, targetSelector: config.targetSelector }, stop), signal);
}

interface DiscoveryLoopInput {
  client: RestClient;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
}

/** The first discovery pass, then one every interval; a failed pass keeps the previous snapshot. */
async function discoveryLoop(input: DiscoveryLoopInput, signal: AbortSignal): Promise<Pick<Host, 'discovery' | 'refreshDiscovery'>> {
  let snapshot: DiscoverySnapshot = await discover(input.client, signal);
  let inFlight: Promise<void> | undefined;
  const refreshDiscovery = (): Promise<void> => (inFlight ??= discover(input.client, signal)
    .then((next) => void (snapshot = next))
    .finally(() => (inFlight = undefined)));
  void (async () => {
    while (!signal.aborted) {
      await input.clock.sleep(input.intervalMs, signal).catch(() => undefined);
      if (!signal.aborted) await refreshDiscovery().catch((err: unknown) => input.logger.warn({ err }, 'discovery failed; keeping the last result'));
    }
  })();
  return { discovery: () => snapshot, refreshDiscovery };
}
