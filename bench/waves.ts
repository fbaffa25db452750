/**
 * What waves cost when nothing has to wait (docs/ordering-and-readiness.md, "Order: waves and
 * dependsOn"): N parents × 3 ConfigMap children converged by one CompositeController whose children
 * carry waves 0, 1 and 2, against the same children without waves, in the same run on one local
 * control plane. ConfigMaps are ready at once, so loom goes on wave by wave within a sync: the waves
 * should cost no extra sync, hook call or write, and little time (the writes of one parent go one
 * after another instead of side by side). A third variant adds `spec.orderedTeardown`, whose
 * finalizer costs one write per parent.
 *
 * Each variant runs its own loom (in this process, `--workers=5 --client-go-qps=500`) over its own
 * namespace, deleted after the run; the variants take turns, `--repeat` times each. Printed per run:
 * converge time (first parent created until every parent's status counts 3 children and, with waves,
 * says Ready), hook calls and API writes until loom is idle; then the ratios of the medians.
 *
 * Run with `npm run bench:waves [-- parents] [--repeat 2] [--qps 500]` (default 1000 parents).
 */
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { pino } from 'pino';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter, type RestClient } from '../src/kube/index.ts';
import { runLoom, type LoomConfig } from '../src/main.ts';
import { apiServerRequests, inBatches, isWrite, requestsIn, total, until, benchCrd, type RequestCounts } from './api-requests.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { repeat: { type: 'string', default: '2' }, qps: { type: 'string', default: '500' } },
});
const parents = Number(positionals[0] ?? 1000);
const WORKERS = 5;
const QPS = Number(flags.qps);
const GROUP = 'waves.bench.loom.dev';
const KIND = 'WaveBench';
const PLURAL = 'wavebenches';
const OURS = /^\S+ (configmaps|wavebenches|wavebenches\/status)( \(\d+\))?$/;

type Variant = 'plain' | 'waves' | 'teardown';

interface Run {
  variant: Variant;
  convergeMs: number;
  hookCalls: number;
  writes: number;
  requests: RequestCounts;
}

/** The hook: 3 ConfigMaps, in waves 0, 1, 2 when the parent says so; the status counts the observed ones. Counts its calls. */
async function startHook(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const hook = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  hook.post('/sync', (req) => {
    calls++;
    const { parent, children } = req.body as { parent: { metadata: { name: string }; spec: { waves?: boolean } }; children: Record<string, object> };
    return {
      status: { children: Object.keys(children['ConfigMap.v1'] ?? {}).length },
      children: [0, 1, 2].map((i) => ({
        apiVersion: 'v1', kind: 'ConfigMap', data: { i: String(i) },
        metadata: { name: `${parent.metadata.name}-${i}`, ...(parent.spec.waves && { annotations: { 'loom.dev/wave': String(i) } }) },
      })),
    };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  return { url, calls: () => calls, close: () => hook.close() };
}

async function startLoom(kubeconfig: string, slug: string): Promise<() => Promise<void>> {
  const config: LoomConfig = {
    kubeconfig, workers: WORKERS, applyStrategy: 'server-side-apply', fieldManager: 'loom',
    discoveryIntervalMs: 2_000, cacheFlushIntervalMs: 0, clientQps: QPS, clientBurst: 2 * QPS,
    metricsAddress: undefined, probeAddress: undefined, targetSelector: { matchLabels: { run: slug } },
    eventsQps: 1 / 300, eventsBurst: 25, referenceNamespaces: undefined,
    hookCircuit: { failures: 0, openMs: 30_000, maxOpenMs: 300_000 },
  };
  const stop = new AbortController();
  const running = await runLoom({ config, logger: pino({ level: 'warn' }), signal: stop.signal });
  return async () => {
    stop.abort();
    await running.done;
  };
}

interface ParentStatus { children?: number; conditions?: Array<{ type: string; status: string }> }

/** Every parent counts 3 children, and with waves says Ready. */
async function allConverged(client: RestClient, namespace: string, variant: Variant): Promise<boolean> {
  const list = await client.request<{ items: { status?: ParentStatus }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/${namespace}/${PLURAL}` });
  const done = (s: ParentStatus | undefined) => s?.children === 3 && (variant === 'plain' || s.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
  return list.items.filter((p) => done(p.status)).length === parents;
}

/** Until neither the hook nor the API server has seen anything of ours for two seconds. */
async function untilIdle(kubeconfig: string, hookCalls: () => number): Promise<RequestCounts> {
  let last = { calls: hookCalls(), requests: await apiServerRequests(kubeconfig) };
  for (let quiet = 0; quiet < 2;) {
    await systemClock.sleep(1000);
    const now = { calls: hookCalls(), requests: await apiServerRequests(kubeconfig) };
    quiet = now.calls === last.calls && total(requestsIn(last.requests, now.requests, OURS)) === 0 ? quiet + 1 : 0;
    last = now;
  }
  return last.requests;
}

interface Bench {
  kubeconfig: string;
  client: RestClient;
  writer: ObjectWriter;
  hook: { url: string; calls: () => number };
}

/**
 * Deletes the run's namespace and waits until it is gone, while the run's loom still tears down the
 * parents that carry its finalizer: every run then meets a control plane (and a cluster-wide cache to
 * fill) of the same size, not one that grows with each run before it.
 */
async function removeNamespace(bench: Bench, slug: string): Promise<void> {
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: slug };
  await bench.writer.delete(ref);
  await until(async () => (await bench.writer.get(ref)) === undefined, 500);
}

async function runVariant(bench: Bench, variant: Variant, slug: string): Promise<Run> {
  const { writer, kubeconfig } = bench;
  await writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: slug } });
  const stop = await startLoom(kubeconfig, slug);
  try {
    await writer.apply({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: `bench-${slug}`, labels: { run: slug } },
      spec: {
        generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: PLURAL, labelSelector: { matchLabels: { run: slug } } },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync: { webhook: { url: bench.hook.url } } },
        ...(variant === 'teardown' && { orderedTeardown: true }),
      },
    }, { fieldManager: 'bench' });
    const calls = bench.hook.calls();
    const before = await apiServerRequests(kubeconfig);
    const started = systemClock.now();
    const names = Array.from({ length: parents }, (_, i) => `p${i}`);
    await inBatches(names, WORKERS, (name) => writer.create({
      apiVersion: `${GROUP}/v1`, kind: KIND, metadata: { name, namespace: slug, labels: { run: slug } }, spec: { waves: variant !== 'plain' },
    }));
    await until(() => allConverged(bench.client, slug, variant));
    const convergeMs = systemClock.now() - started;
    const requests = requestsIn(before, await untilIdle(kubeconfig, bench.hook.calls), OURS);
    requests.set(`POST ${PLURAL}`, (requests.get(`POST ${PLURAL}`) ?? 0) - parents); // The bench's own parent creates.
    const run = { variant, convergeMs, hookCalls: bench.hook.calls() - calls, writes: total(requests, isWrite), requests };
    console.log(`${slug}: converged in ${(convergeMs / 1000).toFixed(1)} s; ${run.hookCalls} hook calls; ${run.writes} API writes (${[...requests].filter(([k]) => isWrite(k)).map(([k, n]) => `${k} × ${n}`).join(', ')})`);
    await removeNamespace(bench, slug);
    return run;
  } finally {
    await stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function summary(runs: Run[]): void {
  const of = (variant: Variant) => {
    const mine = runs.filter((r) => r.variant === variant);
    return { ms: median(mine.map((r) => r.convergeMs)), calls: median(mine.map((r) => r.hookCalls)), writes: median(mine.map((r) => r.writes)) };
  };
  const plain = of('plain');
  console.log(`\n${parents} parents x 3 ConfigMaps, ${WORKERS} workers, --client-go-qps=${QPS}, medians of ${runs.length / VARIANTS.length} runs each:`);
  const labels: Record<Variant, string> = { plain: 'without waves', waves: 'waves 0,1,2', teardown: 'waves 0,1,2 + orderedTeardown' };
  for (const variant of VARIANTS) {
    const v = of(variant);
    console.log(`  ${`${labels[variant]}:`.padEnd(32)} ${(v.ms / 1000).toFixed(1)} s, ${v.calls} hook calls, ${v.writes} writes`);
  }
  for (const variant of VARIANTS.filter((v) => v !== 'plain')) {
    const v = of(variant);
    console.log(`  ratio (${labels[variant]} / without): time ${(v.ms / plain.ms).toFixed(2)}x, hook calls ${(v.calls / plain.calls).toFixed(2)}x, writes ${(v.writes / plain.writes).toFixed(2)}x`);
  }
}

const VARIANTS: readonly Variant[] = ['plain', 'waves', 'teardown'];

const plane = await startControlPlane({ crds: [...(await crdManifests()), benchCrd(GROUP, KIND, PLURAL)] });
const hook = await startHook();
try {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: plane.kubeconfigPath }) });
  const bench: Bench = { kubeconfig: plane.kubeconfigPath, client, writer: await writerFromDiscovery(client, 'loom-bench'), hook };
  const runs: Run[] = [];
  for (let round = 1; round <= Number(flags.repeat); round++) {
    // Rotating which goes first, so none always meets the warmer (or fuller) control plane.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round - 1) % VARIANTS.length]!);
    for (const variant of order) runs.push(await runVariant(bench, variant, `${variant}-${round}`));
  }
  summary(runs);
} finally {
  await hook.close();
  await plane.stop();
}
