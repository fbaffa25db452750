/**
 * What every running controller of one host shares: the cluster connection and caches, the writers,
 * the clock, metrics and logging, and the settings from the command line.
 */
import type { Logger } from 'pino';
import { closestMatch } from '../api/index.ts';
import type { Clock, Tracing } from '../engine/index.ts';
import type { DiscoverySnapshot, EventRecorder, InformerRegistry, ObjectWriter, ResourceType } from '../kube/index.ts';
import type { ApplyStrategy } from '../core/index.ts';
import type { CircuitPolicy, EvaluatorPool } from '../hooks/index.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ShardScope } from './shard-scope.ts';
import type { SyncFailureReport } from './syncs-failing-report.ts';

/** `loom run` settings that reach the controllers. */
export interface HostSettings {
  /** Workers per controller (`--workers`). */
  workers: number;
  applyStrategy: ApplyStrategy;
  /** `--apply-strategy-ssa-field-manager`. */
  fieldManager: string;
  /** `--cache-flush-interval`: every parent is synced again this often; `0` never. */
  cacheFlushIntervalMs: number;
  /** `--max-children-per-parent`: a hook answering more fails the sync before any write; absent or 0: no limit. */
  maxChildrenPerParent?: number | undefined;
  /** `--reference-namespaces`: where controllers may name Secrets and ConfigMaps; absent: anywhere. */
  referenceNamespaces?: readonly string[] | undefined;
  /** `--hook-max-concurrency`: hook calls one controller may have in flight at once; absent or 0: no cap but `--workers`. */
  hookMaxConcurrency?: number | undefined;
  /** `--hook-circuit-failures` and `--hook-circuit-open-period`; absent: `DEFAULT_CIRCUIT_POLICY`. */
  hookCircuit?: CircuitPolicy | undefined;
}

/** Shared by every running controller of a host. */
export interface Host {
  settings: HostSettings;
  /** The latest discovery pass (refreshed every `--discovery-interval`). */
  discovery(): DiscoverySnapshot;
  /** Refreshes discovery now (when a named resource is missing); concurrent calls share one pass. */
  refreshDiscovery(): Promise<void>;
  informers: InformerRegistry;
  writer: ObjectWriter;
  /**
   * A writer whose requests count as `tenant`'s in the fair share of the client rate limit, and are
   * given up when `stop` aborts (its controller stops): waiting for a slot or in flight.
   */
  writerFor(tenant: string, stop?: AbortSignal): ObjectWriter;
  events: EventRecorder;
  metrics: Metrics;
  /** The processes every JSONata hook is evaluated in. */
  evaluators: EvaluatorPool;
  clock: Clock;
  logger: Logger;
  /** Spans around each reconcile, hook call and write; {@link NO_TRACING} unless OpenTelemetry is configured. */
  tracing: Tracing;
  /** With `--shards`: the buckets of parents this run of the controllers holds (`shard-scope.ts`). */
  shard?: ShardScope | undefined;
  /** A running controller's: where its syncs' ends are told, for the controller object's `SyncsFailing` condition. */
  syncFailures?: SyncFailureReport | undefined;
}

/** Thrown while discovery does not (yet) serve a resource a controller names; retried with backoff. */
export class ResourceNotFoundError extends Error {
  override readonly name = 'ResourceNotFoundError';
}

/**
 * The served type of `resource` in `apiVersion`, or a {@link ResourceNotFoundError}; `where` is the
 * field path that names it (`spec.childResources[0]`), put in front of the message when given.
 */
export function resolveResource(host: Host, apiVersion: string, resource: string, where?: string): ResourceType {
  const discovery = host.discovery();
  const type = discovery.byResource(apiVersion, resource);
  if (type) return type;
  throw new ResourceNotFoundError(`${where ? `${where}: ` : ''}discovery does not know resource "${resource}" in apiVersion "${apiVersion}" (yet)${nearMiss(discovery, apiVersion, resource)}`);
}

/** A did-you-mean for a misspelt resource, or for a misspelt group version that serves it. */
function nearMiss(discovery: DiscoverySnapshot, apiVersion: string, resource: string): string {
  const served = discovery.resourcesIn(apiVersion);
  if (served.length > 0) {
    const meant = closestMatch(resource, served);
    return meant ? `; did you mean "${meant}"?` : '';
  }
  const meantVersion = closestMatch(apiVersion, discovery.apiVersions().filter((v) => discovery.byResource(v, resource)));
  return meantVersion ? `; did you mean apiVersion "${meantVersion}"?` : '';
}
