/**
 * `loom run` flags: Metacontroller's names and meanings (so existing manifests and Helm values work),
 * plus loom's own. Every invalid value is reported with the flag's name.
 */
import { parseDuration } from '../api/index.ts';
import { DEFAULT_CIRCUIT_POLICY, type CircuitPolicy } from '../hooks/index.ts';
import type { KubeEnvironment } from '../kube/index.ts';
import { DEFAULT_MAX_CHILDREN_PER_PARENT, type LoomConfig } from '../main.ts';
import { DEFAULT_JSONATA_MEMORY_MIB, DEFAULT_JSONATA_PROCESSES } from '../jsonata-evaluators.ts';
import { parseListenAddress } from '../server/listen-address.ts';
import { FlagError, type FlagSpec } from './go-flags.ts';
import { parseSelectorString } from './selector-string.ts';

/** Every flag `loom run` accepts: its kind, its default and what it does (for `loom run --help`). */
export const RUN_FLAGS = {
  workers: ['string', '5', 'workers per controller'],
  'discovery-interval': ['string', '30s', 'how often API discovery is refreshed (also on demand for an unknown resource)'],
  'cache-flush-interval': ['string', '30m', 'every parent is synced again this often, a safety net; 0s never'],
  'metrics-address': ['string', ':9999', 'where Prometheus /metrics is served; 0 turns it off'],
  'health-probe-bind-address': ['string', ':8081', 'where /healthz and /readyz are served; 0 turns them off'],
  'client-go-qps': ['string', '5', 'API requests per second, shared fairly by the controllers and the host; Event writes have a budget of their own at this rate'],
  'client-go-burst': ['string', '10', 'API requests allowed in a burst'],
  'events-qps': ['string', String(1 / 300), 'events per second per object: one every 5 minutes'],
  'events-burst': ['string', '25', 'events allowed in a burst per object'],
  'pprof-address': ['string', '0', 'accepted for Metacontroller compatibility; no effect'],
  'leader-election': ['bool', 'false', 'hold a Lease before running controllers, so one replica is active'],
  'leader-election-resource-lock': ['string', 'leases', 'the lock kind; only leases'],
  'leader-election-namespace': ['string', '', "the Lease's namespace; the pod's own in a cluster"],
  'leader-election-id': ['string', 'metacontroller', "the Lease's name"],
  shards: ['string', '0', 'split the parents into this many buckets shared by all live replicas (docs/sharding.md); the same on every replica; 0 off'],
  'shard-lease-duration': ['string', '15s', 'how long a replica that stops renewing its Lease keeps its buckets'],
  'target-label-selector': ['string', '', 'run only the controller objects this label selector matches'],
  'apply-strategy': ['string', 'server-side-apply', "server-side-apply, or dynamic-apply (Metacontroller's 3-way merge)"],
  'apply-strategy-ssa-field-manager': ['string', 'loom', 'the field manager every write names'],
  kubeconfig: ['string', '', 'the kubeconfig file; else $KUBECONFIG, then in-cluster (in a pod), then ~/.kube/config'],
  context: ['string', '', "the kubeconfig's context to use"],
  'zap-log-level': ['string', '', "Metacontroller's log level, mapped onto --log-level (4 and up is debug)"],
  'zap-devel': ['bool', 'false', "Metacontroller's development mode: debug level and text logs, unless set otherwise"],
  'zap-encoder': ['string', '', "Metacontroller's log encoding, mapped onto --log-format (console is text)"],
  'zap-stacktrace-level': ['string', '', 'accepted for Metacontroller compatibility; no effect'],
  'zap-time-encoding': ['string', '', 'accepted for Metacontroller compatibility; no effect'],
  'log-level': ['string', '', 'trace, debug, info, warn, error or fatal; default $LOOM_LOG_LEVEL, else info'],
  'log-format': ['string', 'auto', 'json, text (for people), or auto: text when stderr is a terminal, else json'],
  'reference-namespaces': ['string', '', 'namespaces (comma-separated) controllers may name Secrets and ConfigMaps in (webhook credentials, expression ConfigMaps); empty: none; "*": any, as Metacontroller'],
  'max-children-per-parent': ['string', String(DEFAULT_MAX_CHILDREN_PER_PARENT), 'a hook answering more children fails that sync; 0 no limit'],
  'hook-max-concurrency': ['string', '0', 'hook calls one controller may have in flight at once (the others wait their turn); 0 no cap but --workers'],
  'hook-circuit-failures': ['string', String(DEFAULT_CIRCUIT_POLICY.failures), 'calls in a row that find a webhook down (no answer, timeout, 502/503/504) before its circuit opens; 0 never'],
  'hook-circuit-open-period': ['string', '30s', 'how long an open circuit fails calls fast before one probe call (at most 1h); doubled after each failed probe, up to 10 times'],
  'jsonata-processes': ['string', String(DEFAULT_JSONATA_PROCESSES), 'evaluator processes JSONata hooks run in (controllers take turns; with 2 or more, one is kept from runaways)'],
  'jsonata-memory-limit': ['string', String(DEFAULT_JSONATA_MEMORY_MIB), 'V8 heap limit of each evaluator process, in MiB'],
  'shutdown-grace-period': ['string', '20s', 'after SIGTERM, how long syncs in flight may take to stop before loom exits anyway; below the pod\'s terminationGracePeriodSeconds'],
} as const satisfies Record<string, readonly ['string' | 'bool', string, string]>;

/** The flag spec for the parser. */
export const RUN_FLAG_SPEC: FlagSpec = Object.fromEntries(Object.entries(RUN_FLAGS).map(([name, [kind]]) => [name, kind]));

type Values = ReadonlyMap<string, string>;

function get(values: Values, name: keyof typeof RUN_FLAGS): string {
  return values.get(name) ?? RUN_FLAGS[name][1];
}

function number(values: Values, name: keyof typeof RUN_FLAGS, min: number): number {
  const value = Number(get(values, name));
  if (!Number.isFinite(value) || value < min) throw new FlagError(`--${name}: "${get(values, name)}" is not a number ≥ ${min}`);
  return value;
}

function integer(values: Values, name: keyof typeof RUN_FLAGS, min: number): number {
  const value = number(values, name, min);
  if (!Number.isInteger(value)) throw new FlagError(`--${name}: "${get(values, name)}" is not a whole number`);
  return value;
}

function withFlag<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    throw new FlagError(`--${name}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

function applyStrategy(values: Values): LoomConfig['applyStrategy'] {
  const value = get(values, 'apply-strategy');
  if (value === 'server-side-apply' || value === 'dynamic-apply') return value;
  throw new FlagError(`--apply-strategy: "${value}" is not one of server-side-apply, dynamic-apply`);
}

/**
 * `--reference-namespaces=a,b`: where controllers may name Secrets and ConfigMaps. Unset or empty: no
 * namespace, so whoever may write a controller cannot have loom read a Secret and send it to a URL of
 * theirs; `*`: any namespace (Metacontroller's behaviour, `undefined` in the config).
 */
function referenceNamespaces(values: Values): string[] | undefined {
  const list = get(values, 'reference-namespaces').split(',').map((n) => n.trim()).filter((n) => n !== '');
  if (list.includes('*')) {
    if (list.length > 1) throw new FlagError('--reference-namespaces: "*" (any namespace) cannot be listed with namespaces');
    return undefined;
  }
  const bad = list.find((n) => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n));
  if (bad !== undefined) throw new FlagError(`--reference-namespaces: "${bad}" is not a namespace name`);
  return list;
}

/** Where this replica is, for leader election: its identity and, in a cluster, its namespace. */
export interface ReplicaIdentity {
  identity: string;
  /** The pod's namespace when running in a cluster (from the service-account mount). */
  podNamespace?: string | undefined;
}

function leaderElection(values: Values, replica: ReplicaIdentity): LoomConfig['leaderElection'] {
  if (get(values, 'leader-election') !== 'true') return undefined;
  const lock = get(values, 'leader-election-resource-lock');
  if (lock !== 'leases') throw new FlagError(`--leader-election-resource-lock: "${lock}" is not supported; use leases`);
  const namespace = get(values, 'leader-election-namespace') || replica.podNamespace;
  if (!namespace) throw new FlagError('--leader-election-namespace is required outside a cluster');
  return { namespace, name: get(values, 'leader-election-id'), identity: replica.identity };
}

function sharding(values: Values, replica: ReplicaIdentity): LoomConfig['sharding'] {
  const buckets = integer(values, 'shards', 0);
  if (buckets === 0) return undefined;
  if (get(values, 'leader-election') === 'true') throw new FlagError('--shards: every replica is active with sharding; leave --leader-election off');
  const namespace = get(values, 'leader-election-namespace') || replica.podNamespace;
  if (!namespace) throw new FlagError('--shards: --leader-election-namespace (where the shard Leases live) is required outside a cluster');
  const leaseDurationMs = withFlag('shard-lease-duration', () => parseDuration(get(values, 'shard-lease-duration')));
  if (leaseDurationMs < 3_000) throw new FlagError('--shard-lease-duration: must be at least 3s');
  return { namespace, group: get(values, 'leader-election-id'), identity: replica.identity, buckets, leaseDurationMs };
}

const MAX_CIRCUIT_OPEN_MS = 3_600_000;

/** `--hook-circuit-failures` and `--hook-circuit-open-period` (at most 1h); the longest open period is 10 times the first. */
function hookCircuit(values: Values): CircuitPolicy {
  const openMs = withFlag('hook-circuit-open-period', () => parseDuration(get(values, 'hook-circuit-open-period')));
  if (openMs <= 0) throw new FlagError('--hook-circuit-open-period: must be more than 0s');
  // Bounded so the longest period (10 times this) stays far below the 2^31-1 ms a timer can wait.
  if (openMs > MAX_CIRCUIT_OPEN_MS) throw new FlagError('--hook-circuit-open-period: must be at most 1h');
  return { failures: integer(values, 'hook-circuit-failures', 0), openMs, maxOpenMs: openMs * 10 };
}

/**
 * Builds the configuration; throws {@link FlagError} for the first invalid flag. `environment` is what
 * the CLI read of `$KUBECONFIG` and `$KUBERNETES_SERVICE_HOST`/`PORT`, used when `--kubeconfig` is not given.
 */
export function runConfig(values: Values, replica: ReplicaIdentity = { identity: 'loom' }, environment?: KubeEnvironment): LoomConfig {
  const selector = get(values, 'target-label-selector');
  return {
    kubeconfig: get(values, 'kubeconfig') || undefined,
    context: get(values, 'context') || undefined,
    kubeEnvironment: environment,
    workers: number(values, 'workers', 1),
    discoveryIntervalMs: withFlag('discovery-interval', () => parseDuration(get(values, 'discovery-interval'))),
    cacheFlushIntervalMs: withFlag('cache-flush-interval', () => parseDuration(get(values, 'cache-flush-interval'))),
    clientQps: number(values, 'client-go-qps', 0.001),
    clientBurst: number(values, 'client-go-burst', 1),
    metricsAddress: withFlag('metrics-address', () => parseListenAddress(get(values, 'metrics-address'))),
    probeAddress: withFlag('health-probe-bind-address', () => parseListenAddress(get(values, 'health-probe-bind-address'))),
    targetSelector: selector ? withFlag('target-label-selector', () => parseSelectorString(selector)) : undefined,
    applyStrategy: applyStrategy(values),
    fieldManager: get(values, 'apply-strategy-ssa-field-manager'),
    eventsQps: number(values, 'events-qps', 0),
    eventsBurst: number(values, 'events-burst', 0),
    leaderElection: leaderElection(values, replica),
    sharding: sharding(values, replica),
    referenceNamespaces: referenceNamespaces(values),
    maxChildrenPerParent: integer(values, 'max-children-per-parent', 0),
    hookMaxConcurrency: integer(values, 'hook-max-concurrency', 0),
    hookCircuit: hookCircuit(values),
    jsonataProcesses: integer(values, 'jsonata-processes', 1),
    jsonataMemoryMiB: integer(values, 'jsonata-memory-limit', 32),
    shutdownGraceMs: withFlag('shutdown-grace-period', () => parseDuration(get(values, 'shutdown-grace-period'))),
  };
}
