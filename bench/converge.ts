/**
 * How fast loom converges a CompositeController, once with a webhook sync hook and once with an inline
 * JSONata sync hook that answers the same: N parents × 3 ConfigMap children each, on one fresh local
 * control plane. Baseline, measured in the same run: the same N×3 creates and N status writes made
 * directly with the REST client at the same concurrency, so each ratio is loom's overhead over the API
 * calls it cannot avoid. The variants run one after the other, each with its own loom instance (picking
 * its controller by label), its own parent kind and its own namespace, so neither sees the other's objects.
 * Run with `npm run bench:converge [-- parents]` (default 1000).
 */
import Fastify from 'fastify';
import { pino } from 'pino';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter, type RestClient } from '../src/kube/index.ts';
import { runLoom, type LoomConfig } from '../src/main.ts';

const parents = Number(process.argv[2] ?? 1000);
const WORKERS = 5;
const GROUP = 'bench.loom.dev';
const VARIANT_LABEL = `${GROUP}/variant`;

/** The same answer as the webhook below: status counts the observed ConfigMaps, children are `<parent>-0..2`. */
const JSONATA_SYNC = [
  '(',
  '  $name := parent.metadata.name;',
  '  {',
  '    "status": { "children": $count($keys(children.`ConfigMap.v1`)) },',
  '    "children": [0..2].{ "apiVersion": "v1", "kind": "ConfigMap",',
  '      "metadata": { "name": $name & "-" & $string($) }, "data": { "i": $string($) } }',
  '  }',
  ')',
].join('\n');

/** One way of running the same controller. */
interface Variant {
  name: 'webhook' | 'jsonata';
  namespace: string;
  kind: string;
  plural: string;
  /** `spec.hooks.sync` of the CompositeController. */
  sync: object;
  /** Hook calls so far, when the bench can see them (the webhook's own counter). */
  hookCalls?: () => number;
}

/** What one variant measured up to the moment every parent reported 3 children, and from then until idle. */
interface VariantResult {
  variant: Variant;
  ms: number;
  hookCalls: number | undefined;
  reconciles: number;
  writes: WriteCounts;
  /** After convergence until loom is idle: reconciles (each one a sync hook call) and API writes; 0 writes expected. */
  settle: { reconciles: number; writes: number };
}

interface WriteCounts { total: number; applies: number; statuses: number; byRequest: Map<string, number> }

/** The shared pieces every phase uses. */
interface Bench { kubeconfigPath: string; client: RestClient; writer: ObjectWriter; names: string[] }

function crdFor(kind: string, plural: string): object {
  const singular = kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP, scope: 'Namespaced', names: { plural, singular, kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await systemClock.sleep(200);
}

/** The writes loom must make, made directly: a parent, its 3 children and one status write each. */
async function measureBaseline({ writer, names }: Bench): Promise<number> {
  const started = systemClock.now();
  await inBatches(names, WORKERS, async (name) => {
    const parent = await writer.create({ apiVersion: `${GROUP}/v1`, kind: 'Bench', metadata: { name, namespace: 'baseline' }, spec: {} });
    for (const i of [0, 1, 2]) await writer.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${i}`, namespace: 'baseline' }, data: { i: String(i) } }, { fieldManager: 'bench' });
    await writer.replaceStatus({ ...parent, status: { children: 3 } });
  });
  return systemClock.now() - started;
}

/** The webhook variant's hook server; it counts its calls. */
async function startWebhook(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const hook = Fastify();
  hook.post('/sync', (req) => {
    calls++;
    const { parent, children } = req.body as { parent: { metadata: { name: string } }; children: Record<string, object> };
    return {
      status: { children: Object.keys(children['ConfigMap.v1'] ?? {}).length },
      children: [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-${i}` }, data: { i: String(i) } })),
    };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  return { url, calls: () => calls, close: () => hook.close() };
}

function newWriteCounts(): WriteCounts {
  return { total: 0, applies: 0, statuses: 0, byRequest: new Map() };
}

/** Counts one of loom's API requests if it is a write: child applies, parent status writes, and the rest (events, controller status). */
function countWrite(counts: WriteCounts, { method, path }: { method: string; path: string }): void {
  if (method === 'GET' || method === 'WATCH') return;
  counts.total++;
  if (path.startsWith(`/apis/${GROUP}/`) && path.endsWith('/status')) counts.statuses++;
  else if (path.includes('/configmaps')) counts.applies++;
  const request = `${method} ${path.replace(/\/p\d+(-\d)?/, '/<name>')}`;
  counts.byRequest.set(request, (counts.byRequest.get(request) ?? 0) + 1);
}

function loomConfig(bench: Bench, variant: Variant): LoomConfig {
  return {
    kubeconfig: bench.kubeconfigPath, workers: WORKERS, applyStrategy: 'server-side-apply', fieldManager: 'loom',
    discoveryIntervalMs: 30_000, cacheFlushIntervalMs: 0, clientQps: 1_000_000, clientBurst: 1_000_000,
    metricsAddress: { host: '127.0.0.1', port: 0 }, probeAddress: undefined, eventsQps: 1 / 300, eventsBurst: 25,
    targetSelector: { matchLabels: { [VARIANT_LABEL]: variant.name } },
  };
}

/** One loom metric of one controller, summed over its other labels, from loom's metrics endpoint. */
async function metricOf(metricsPort: number, metric: string, controller: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text.split('\n')
    .filter((line) => line.startsWith(`${metric}{`) && line.includes(`controller="${controller}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Waits until the controller is idle: an empty queue and no reconcile finished for a second. Stopping
 * loom earlier would abort reconciles in flight, and the writes they would have made would go uncounted.
 */
async function untilIdle(metricsPort: number, controller: string): Promise<void> {
  let last = -1;
  for (let quiet = 0; quiet < 5;) {
    await systemClock.sleep(200);
    const reconciles = await metricOf(metricsPort, 'loom_reconcile_total', controller);
    const depth = await metricOf(metricsPort, 'loom_queue_depth', controller);
    quiet = reconciles === last && depth === 0 ? quiet + 1 : 0;
    last = reconciles;
  }
}

async function applyController(writer: ObjectWriter, variant: Variant): Promise<void> {
  await writer.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `bench-${variant.name}`, labels: { [VARIANT_LABEL]: variant.name } },
    spec: { generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: variant.plural, labelSelector: { matchLabels: { bench: 'loom' } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync: variant.sync } },
  }, { fieldManager: 'bench' });
}

async function allConverged({ client }: Bench, variant: Variant): Promise<boolean> {
  const list = await client.request<{ items: { status?: { children?: number } }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/${variant.namespace}/${variant.plural}` });
  return list.items.filter((p) => p.status?.children === 3).length === parents;
}

/** Starts a loom that runs only this variant's controller, creates the parents and waits until all report 3 children. */
async function runVariant(bench: Bench, variant: Variant): Promise<VariantResult> {
  const writes = newWriteCounts();
  const stop = new AbortController();
  const loom = await runLoom({
    config: loomConfig(bench, variant), logger: pino({ level: 'warn' }), signal: stop.signal,
    observeRequests: (request) => countWrite(writes, request),
  });
  try {
    const reconciles = (): Promise<number> => metricOf(loom.metricsPort!, 'loom_reconcile_total', `bench-${variant.name}`);
    await applyController(bench.writer, variant);
    const started = systemClock.now();
    await inBatches(bench.names, WORKERS, (name) => bench.writer.create({ apiVersion: `${GROUP}/v1`, kind: variant.kind, metadata: { name, namespace: variant.namespace, labels: { bench: 'loom' } }, spec: {} }));
    await until(() => allConverged(bench, variant));
    const ms = systemClock.now() - started;
    const converged = { variant, ms, hookCalls: variant.hookCalls?.(), reconciles: await reconciles(), writes: { ...writes, byRequest: new Map(writes.byRequest) } };
    await untilIdle(loom.metricsPort!, `bench-${variant.name}`);
    return { ...converged, settle: { reconciles: (await reconciles()) - converged.reconciles, writes: writes.total - converged.writes.total } };
  } finally {
    stop.abort();
    await loom.done;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function printVariant(result: VariantResult, baselineMs: number): void {
  const { variant, writes } = result;
  const calls = result.hookCalls === undefined ? '' : `${result.hookCalls} hook calls, `;
  console.log(`${variant.name}: converge ${parents} parents x 3 children in ${seconds(result.ms)}, ratio ${(result.ms / baselineMs).toFixed(2)} over the baseline`);
  console.log(`  ${calls}${result.reconciles} reconciles; ${writes.total} API writes: ${writes.applies} child applies, ${writes.statuses} parent status writes, ${writes.total - writes.applies - writes.statuses} other (the minimum is ${parents * 4}: 3 applies and 1 status write per parent)`);
  console.log(`  writes by request: ${[...writes.byRequest].map(([k, v]) => `${k} × ${v}`).join(', ')}`);
  console.log(`  after convergence, until idle: ${result.settle.reconciles} no-op reconciles, ${result.settle.writes} API writes (want 0)`);
}

function printComparison(baselineMs: number, results: VariantResult[]): void {
  console.log(`\ncomparison, ${parents} parents x 3 children, ${WORKERS} workers:`);
  console.log(`  ${'baseline'.padEnd(8)} ${seconds(baselineMs).padStart(8)}  ratio 1.00  writes ${parents * 4} (direct)`);
  for (const { variant, ms, writes, settle } of results) {
    console.log(`  ${variant.name.padEnd(8)} ${seconds(ms).padStart(8)}  ratio ${(ms / baselineMs).toFixed(2)}  writes ${writes.total} (${writes.applies} applies, ${writes.statuses} status), then ${settle.writes} while idling`);
  }
}

const plane = await startControlPlane({ crds: [...(await crdManifests()), crdFor('Bench', 'benches'), crdFor('JBench', 'jbenches')] });
try {
  const kubeConfig = loadKubeConfig({ path: plane.kubeconfigPath });
  const client = createRestClient({ kubeConfig });
  const bench: Bench = { kubeconfigPath: plane.kubeconfigPath, client, writer: await writerFromDiscovery(client), names: Array.from({ length: parents }, (_, i) => `p${i}`) };
  for (const ns of ['baseline', 'loom', 'loom-jsonata']) await bench.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const baselineMs = await measureBaseline(bench);
  console.log(`baseline (direct writes, ${WORKERS} at a time): ${seconds(baselineMs)}`);
  const hook = await startWebhook();
  const results: VariantResult[] = [];
  try {
    const variants: Variant[] = [
      { name: 'webhook', namespace: 'loom', kind: 'Bench', plural: 'benches', sync: { webhook: { url: hook.url } }, hookCalls: hook.calls },
      { name: 'jsonata', namespace: 'loom-jsonata', kind: 'JBench', plural: 'jbenches', sync: { jsonata: { expression: JSONATA_SYNC } } },
    ];
    for (const variant of variants) {
      results.push(await runVariant(bench, variant));
      printVariant(results.at(-1)!, baselineMs);
    }
  } finally {
    await hook.close();
  }
  printComparison(baselineMs, results);
} finally {
  await plane.stop();
}
