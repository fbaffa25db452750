/**
 * How fast loom converges a CompositeController with a webhook hook: N parents × 3 ConfigMap children
 * on a fresh local control plane, then a no-op resync round. Baseline, measured in the same run: the
 * same N×3 creates and N status writes made directly with the REST client at the same concurrency, so
 * the ratio is loom's overhead over the API calls it cannot avoid.
 * Run with `npm run bench:converge [-- parents]` (default 1000).
 */
import Fastify from 'fastify';
import { pino } from 'pino';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter } from '../src/kube/index.ts';
import { runLoom } from '../src/main.ts';

const parents = Number(process.argv[2] ?? 1000);
const WORKERS = 5;
const GROUP = 'bench.loom.dev';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `benches.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural: 'benches', singular: 'bench', kind: 'Bench', listKind: 'BenchList' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

interface Counts { hookCalls: number; writes: number }
const counts: Counts = { hookCalls: 0, writes: 0 };
const byKind = new Map<string, number>();

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await systemClock.sleep(200);
}

const plane = await startControlPlane({ crds: [...(await crdManifests()), crd] });
try {
  const kubeConfig = loadKubeConfig({ path: plane.kubeconfigPath });
  const client = createRestClient({ kubeConfig });
  const writer: ObjectWriter = await writerFromDiscovery(client);
  const names = Array.from({ length: parents }, (_, i) => `p${i}`);
  for (const ns of ['baseline', 'loom']) await writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

  // Baseline: the writes loom must make, made directly.
  let started = systemClock.now();
  await inBatches(names, WORKERS, async (name) => {
    const parent = await writer.create({ apiVersion: `${GROUP}/v1`, kind: 'Bench', metadata: { name, namespace: 'baseline' }, spec: {} });
    for (const i of [0, 1, 2]) await writer.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${i}`, namespace: 'baseline' }, data: { i: String(i) } }, { fieldManager: 'bench' });
    await writer.replaceStatus({ ...parent, status: { children: 3 } });
  });
  const baselineMs = systemClock.now() - started;

  const hook = Fastify();
  hook.post('/sync', (req) => {
    counts.hookCalls++;
    const { parent, children } = req.body as { parent: { metadata: { name: string } }; children: Record<string, object> };
    return {
      status: { children: Object.keys(children['ConfigMap.v1'] ?? {}).length },
      children: [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-${i}` }, data: { i: String(i) } })),
    };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  const stop = new AbortController();
  const loom = await runLoom({
    config: {
      kubeconfig: plane.kubeconfigPath, workers: WORKERS, applyStrategy: 'server-side-apply', fieldManager: 'loom',
      discoveryIntervalMs: 30_000, cacheFlushIntervalMs: 0, clientQps: 1_000_000, clientBurst: 1_000_000,
      metricsAddress: undefined, probeAddress: undefined, eventsQps: 1 / 300, eventsBurst: 25,
    },
    logger: pino({ level: 'warn' }), signal: stop.signal,
    observeRequests: ({ method, path }) => {
      if (method === 'GET' || method === 'WATCH') return;
      counts.writes++;
      const request = `${method} ${path.replace(/\/p\d+(-\d)?/, '/<name>')}`;
      byKind.set(request, (byKind.get(request) ?? 0) + 1);
    },
  });
  await writer.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'bench' },
    spec: { generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: 'benches', labelSelector: { matchLabels: { bench: 'loom' } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync: { webhook: { url } } } },
  }, { fieldManager: 'bench' });

  started = systemClock.now();
  await inBatches(names, WORKERS, (name) => writer.create({ apiVersion: `${GROUP}/v1`, kind: 'Bench', metadata: { name, namespace: 'loom', labels: { bench: 'loom' } }, spec: {} }));
  await until(async () => {
    const list = await client.request<{ items: { status?: { children?: number } }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/loom/benches` });
    return list.items.filter((p) => p.status?.children === 3).length === parents;
  });
  const loomMs = systemClock.now() - started;
  const converged = { ...counts };
  console.log(`converge ${parents} parents x 3 children: loom ${(loomMs / 1000).toFixed(1)} s, baseline (direct writes, ${WORKERS} at a time) ${(baselineMs / 1000).toFixed(1)} s, ratio ${(loomMs / baselineMs).toFixed(2)}`);
  console.log(`  loom: ${converged.hookCalls} hook calls, ${converged.writes} API writes (the minimum is ${parents * 4}: 3 applies and 1 status write per parent)`);
  console.log(`  loom's writes by request: ${[...byKind].map(([k, v]) => `${k} × ${v}`).join(', ')}`);
  stop.abort();
  await loom.done;
  await hook.close();
} finally {
  await plane.stop();
}
