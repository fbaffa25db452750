/**
 * Does a healthy controller keep its pace beside hostile ones? On one fresh local control plane, one
 * loom runs a healthy CompositeController (inline JSONata: one ConfigMap per parent and a status) and
 * the bench measures how long it takes to converge N new parents, twice:
 * - alone;
 * - while three hostile controllers run on the same loom: a JSONata expression that backtracks for
 *   minutes in one regex call (killed at its 1 s budget), one that makes V8 abort ("invalid size"),
 *   both on 20 parents, and a webhook answering 2,000 children per parent for 3 parents (6,000 writes
 *   competing for the same client rate limit).
 * Prints both times, their ratio, the event loop's delay (p99 and max, from `monitorEventLoopDelay`)
 * in each phase, and that loom stayed up. No assertion: figures for the README.
 * Run with `npm run bench:neighbours [-- parents]` (default 100).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter, type RestClient } from '../src/kube/index.ts';
import { runLoom } from '../src/main.ts';

const parents = Number(process.argv[2] ?? 100);
const GROUP = 'neighbours.loom.dev';
const HOSTILE_PARENTS = 20;
const FLOOD_PARENTS = 3;
const FLOOD_CHILDREN = 2_000;

const crdFor = (kind: string, plural: string): object => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

const GREETER = '{"children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": parent.metadata.name & "-greeting"}, "data": {"hello": parent.metadata.name}}], "status": {"ready": true}}';
const BACKTRACK = '{"r": $contains($pad("", 30, "a") & "!", /^(a+)+\\1?$/)}';
const FATAL = '{"n": $count($split($pad("a", 150000000), ""))}';

function controller(name: string, plural: string, sync: object): object {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name },
    spec: { generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: plural }, childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync } },
  };
}

async function createParents(writer: ObjectWriter, kind: string, namespace: string, names: readonly string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(names.slice(i, i + 20).map((name) => writer.create({ apiVersion: `${GROUP}/v1`, kind, metadata: { name, namespace }, spec: {} })));
  }
}

async function readyCount(client: RestClient, namespace: string, prefix: string): Promise<number> {
  const list = await client.request<{ items: { metadata: { name: string }; status?: { ready?: boolean } }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/${namespace}/healthies` });
  return list.items.filter((p) => p.metadata.name.startsWith(prefix) && p.status?.ready === true).length;
}

/** Creates N healthy parents named `<prefix>-i` and waits until all report ready; ms taken and event-loop delay meanwhile. */
async function convergeHealthy(client: RestClient, writer: ObjectWriter, prefix: string): Promise<{ ms: number; p99: number; max: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = systemClock.now();
  await createParents(writer, 'Healthy', 'healthy', Array.from({ length: parents }, (_, i) => `${prefix}-${i}`));
  while ((await readyCount(client, 'healthy', `${prefix}-`)) < parents) await systemClock.sleep(100);
  const ms = systemClock.now() - started;
  delay.disable();
  return { ms, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
}

/**
 * The flooding webhook, in a process of its own so that its work (parsing requests that carry
 * thousands of observed children, building its answers) is not counted as loom's event-loop delay.
 */
const FLOOD_SERVER = `
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const { parent } = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const children = Array.from({ length: ${FLOOD_CHILDREN} }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: parent.metadata.name + '-' + i }, data: { i: String(i) } }));
      const body = JSON.stringify({ children, status: {} });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startFloodHook(): Promise<{ url: string; close: () => void }> {
  const child = spawn(process.execPath, ['-e', FLOOD_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(createInterface({ input: child.stdout }), 'line') as [string];
  return { url: `http://127.0.0.1:${line.trim()}/sync`, close: () => void child.kill('SIGKILL') };
}

const plane = await startControlPlane({ crds: [...(await crdManifests()), crdFor('Healthy', 'healthies'), crdFor('Runaway', 'runaways'), crdFor('Fatal', 'fatals'), crdFor('Flood', 'floods')] });
const flood = await startFloodHook();
const stop = new AbortController();
try {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: plane.kubeconfigPath }) });
  const writer = await writerFromDiscovery(client, 'loom-bench');
  for (const ns of ['healthy', 'hostile']) await writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const loom = await runLoom({
    config: {
      kubeconfig: plane.kubeconfigPath, workers: 5, applyStrategy: 'server-side-apply', fieldManager: 'loom',
      discoveryIntervalMs: 30_000, cacheFlushIntervalMs: 0, clientQps: 200, clientBurst: 400,
      metricsAddress: undefined, probeAddress: undefined, eventsQps: 1 / 300, eventsBurst: 25, maxChildrenPerParent: 10_000,
    },
    logger: pino({ level: process.env.LOOM_BENCH_LOG ?? 'error' }), signal: stop.signal,
  });
  let loomEnded = false;
  void loom.done.finally(() => (loomEnded = true));
  await writer.apply(controller('healthy', 'healthies', { jsonata: { expression: GREETER } }) as never, { fieldManager: 'bench' });

  const alone = await convergeHealthy(client, writer, 'alone');

  await writer.apply(controller('runaway', 'runaways', { jsonata: { expression: BACKTRACK, timeout: '1s' } }) as never, { fieldManager: 'bench' });
  await writer.apply(controller('fatal', 'fatals', { jsonata: { expression: FATAL } }) as never, { fieldManager: 'bench' });
  await writer.apply(controller('flood', 'floods', { webhook: { url: flood.url } }) as never, { fieldManager: 'bench' });
  const hostileNames = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  await createParents(writer, 'Runaway', 'hostile', hostileNames('runaway', HOSTILE_PARENTS));
  await createParents(writer, 'Fatal', 'hostile', hostileNames('fatal', HOSTILE_PARENTS));
  await createParents(writer, 'Flood', 'hostile', hostileNames('flood', FLOOD_PARENTS));
  await systemClock.sleep(2_000); // let the hostile controllers get busy

  const beside = await convergeHealthy(client, writer, 'beside');
  const floodChildren = (await client.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces/hostile/configmaps', query: { labelSelector: 'controller-uid' } })).items.length;

  const line = (name: string, r: typeof alone) => `${name.padEnd(34)} ${String(r.ms).padStart(6)} ms   event-loop delay p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`;
  console.log(`healthy JSONata controller converging ${parents} new parents (1 child + status each), one loom, 5 workers, client 200 qps`);
  console.log(line('alone', alone));
  console.log(line('beside 3 hostile controllers', beside));
  console.log(`ratio beside/alone: ${(beside.ms / alone.ms).toFixed(2)}; flood children written meanwhile: ${floodChildren} of ${FLOOD_PARENTS * FLOOD_CHILDREN}; loom still running: ${!loomEnded}`);
} finally {
  stop.abort();
  flood.close();
  await plane.stop();
}
