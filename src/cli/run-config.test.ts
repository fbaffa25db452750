import { describe, expect, it } from 'vitest';
import { parseGoFlags } from './go-flags.ts';
import { RUN_FLAG_SPEC, runConfig } from './run-config.ts';

const config = (...args: string[]) => runConfig(parseGoFlags(args, RUN_FLAG_SPEC).values);

describe('runConfig', () => {
  it("uses Metacontroller's defaults, with server-side apply and the loom field manager", () => {
    expect(config()).toEqual({
      kubeconfig: undefined, context: undefined, workers: 5, discoveryIntervalMs: 30_000, cacheFlushIntervalMs: 1_800_000, clientQps: 5, clientBurst: 10,
      metricsAddress: { host: '0.0.0.0', port: 9999 }, probeAddress: { host: '0.0.0.0', port: 8081 }, targetSelector: undefined,
      applyStrategy: 'server-side-apply', fieldManager: 'loom', eventsQps: 1 / 300, eventsBurst: 25, leaderElection: undefined,
      referenceNamespaces: [], maxChildrenPerParent: 10_000, jsonataProcesses: 2, jsonataMemoryMiB: 256, shutdownGraceMs: 20_000,
      hookMaxConcurrency: 0, hookCircuit: { failures: 5, openMs: 30_000, maxOpenMs: 300_000 },
    });
  });

  it('reads the hook cap and circuit breaker flags', () => {
    expect(config('--hook-max-concurrency=3', '--hook-circuit-failures=2', '--hook-circuit-open-period=5s')).toMatchObject({
      hookMaxConcurrency: 3, hookCircuit: { failures: 2, openMs: 5_000, maxOpenMs: 50_000 },
    });
  });

  it('reads a Metacontroller production command line', () => {
    const c = config('--zap-log-level=4', '--discovery-interval=20s', '--workers', '50', '--client-go-qps', '150',
      '--apply-strategy=dynamic-apply', '--target-label-selector', 'shard in (a),team=x', '--metrics-address=0');
    expect(c).toMatchObject({
      workers: 50, discoveryIntervalMs: 20_000, clientQps: 150, applyStrategy: 'dynamic-apply', metricsAddress: undefined,
      targetSelector: { matchLabels: { team: 'x' }, matchExpressions: [{ key: 'shard', operator: 'In', values: ['a'] }] },
    });
  });

  it.each([
    [['--workers', '0'], '--workers: "0" is not a number ≥ 1'],
    [['--apply-strategy', 'patch'], '--apply-strategy: "patch" is not one of server-side-apply, dynamic-apply'],
    [['--discovery-interval', 'soon'], '--discovery-interval:'],
    [['--metrics-address', '9999'], '--metrics-address:'],
    [['--target-label-selector', 'a=b=c'], '--target-label-selector:'],
    [['--reference-namespaces', 'loom-system,Bad_Name'], '--reference-namespaces: "Bad_Name" is not a namespace name'],
    [['--jsonata-processes', '0'], '--jsonata-processes: "0" is not a number ≥ 1'],
    [['--jsonata-processes', '1.5'], '--jsonata-processes: "1.5" is not a whole number'],
    [['--jsonata-memory-limit', '16'], '--jsonata-memory-limit: "16" is not a number ≥ 32'],
    [['--shutdown-grace-period', 'a while'], '--shutdown-grace-period:'],
    [['--hook-max-concurrency', '-1'], '--hook-max-concurrency: "-1" is not a number ≥ 0'],
    [['--hook-circuit-failures', '1.5'], '--hook-circuit-failures: "1.5" is not a whole number'],
    [['--hook-circuit-open-period', '0s'], '--hook-circuit-open-period: must be more than 0s'],
    [['--hook-circuit-open-period', '1h1s'], '--hook-circuit-open-period: must be at most 1h'],
    [['--leader-election'], '--leader-election-namespace is required outside a cluster'],
    [['--leader-election', '--leader-election-resource-lock', 'configmaps', '--leader-election-namespace', 'x'], 'use leases'],
    [['--shards', '16'], '--shards: --leader-election-namespace (where the shard Leases live) is required outside a cluster'],
    [['--shards', '16', '--leader-election', '--leader-election-namespace', 'x'], '--shards: every replica is active with sharding; leave --leader-election off'],
    [['--shards', '2.5', '--leader-election-namespace', 'x'], '--shards: "2.5" is not a whole number'],
    [['--shards', '4', '--leader-election-namespace', 'x', '--shard-lease-duration', '1s'], '--shard-lease-duration: must be at least 3s'],
  ])('names the flag in the error for %j', (args, message) => {
    expect(() => config(...args)).toThrow(message);
  });
});

describe('--shutdown-grace-period', () => {
  it('reads a Go duration', () => {
    expect(config('--shutdown-grace-period', '45s').shutdownGraceMs).toBe(45_000);
  });
});

describe('--reference-namespaces', () => {
  it('reads a comma-separated list of namespaces', () => {
    expect(config('--reference-namespaces', 'loom-system, hooks').referenceNamespaces).toEqual(['loom-system', 'hooks']);
  });

  it('allows no namespace when unset or empty, so no controller can have loom read a Secret and send it away', () => {
    expect(config().referenceNamespaces).toEqual([]);
    expect(config('--reference-namespaces', '').referenceNamespaces).toEqual([]);
  });

  it('allows any namespace only when asked to with "*", which stands alone', () => {
    expect(config('--reference-namespaces', '*').referenceNamespaces).toBeUndefined();
    expect(() => config('--reference-namespaces', '*,loom-system')).toThrow('--reference-namespaces: "*" (any namespace) cannot be listed with namespaces');
  });
});

describe('leader election flags', () => {
  it('take the lease name from --leader-election-id and the namespace from the flag or the pod', () => {
    const values = parseGoFlags(['--leader-election', '--leader-election-id', 'loom-a'], RUN_FLAG_SPEC).values;
    expect(runConfig(values, { identity: 'pod-1', podNamespace: 'loom-system' }).leaderElection)
      .toEqual({ namespace: 'loom-system', name: 'loom-a', identity: 'pod-1' });
  });
});

describe('sharding flags', () => {
  it('are off by default, and name the Leases after --leader-election-id in the pod\'s namespace', () => {
    expect(config().sharding).toBeUndefined();
    const values = parseGoFlags(['--shards', '16', '--leader-election-id', 'loom-a', '--shard-lease-duration', '20s'], RUN_FLAG_SPEC).values;
    expect(runConfig(values, { identity: 'pod-1', podNamespace: 'loom-system' }).sharding)
      .toEqual({ namespace: 'loom-system', group: 'loom-a', identity: 'pod-1', buckets: 16, leaseDurationMs: 20_000 });
  });
});
