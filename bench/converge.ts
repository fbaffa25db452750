/**
 * How fast, how lean and how quiet `loom run` is on a CompositeController with N parents × 3 ConfigMap
 * children, each variant (hook kind × apply strategy) in its own `loom run` process on one local
 * control plane, with `--client-go-qps=500 --client-go-burst=1000 --workers=5` (`--qps` changes the rate).
 *
 * - Converge: from the first parent created until every parent's status counts 3 children, against a
 *   floor measured in the same run: the writes loom cannot avoid (each parent's 3 creates and one
 *   status write, and the parent itself) made directly by 5 workers, each writing one parent's
 *   children at once, as loom's workers do.
 * - Memory: the loom process's peak resident set (the kernel's `VmHWM`) and its V8 heap.
 * - Resyncs: after convergence, every parent is synced again every `--resync-every`
 *   (`--cache-flush-interval`); each round prints its API writes (want 0), the CPU time loom used and
 *   its memory, so growth across rounds shows.
 * - API requests are counted by the API server itself (`apiserver_request_total`), by verb and resource.
 *
 * Run with `npm run bench:converge [-- parents] [--variants webhook/server-side-apply,...] [--resyncs 2]
 * [--resync-every 30s] [--qps 500]` (default 1000 parents, every variant). The loom under test is the
 * compiled package (`scripts/build.sh`), started through its `loom` command (`bin.js`), which sets
 * the Node flag and environment `loom run` wants, as the image and the npm package run it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import Fastify from 'fastify';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { createFairThrottle, systemClock, TokenBucket } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter, type RestClient } from '../src/kube/index.ts';
import { childPids, mib, processStats, type ProcessStats } from './process-stats.ts';
import { apiServerRequests, inBatches, isWrite, requestsIn, total, until, benchCrd, type RequestCounts } from './api-requests.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    variants: { type: 'string', default: 'webhook/server-side-apply,webhook/dynamic-apply,jsonata/server-side-apply' },
    resyncs: { type: 'string', default: '2' },
    'resync-every': { type: 'string', default: '30s' },
    qps: { type: 'string', default: '500' },
  },
});
const parents = Number(positionals[0] ?? 1000);
const WORKERS = 5;
const QPS = Number(flags.qps);
const BURST = 2 * QPS;
const GROUP = 'bench.loom.dev';
const KIND = 'Bench';
const PLURAL = 'benches';
const VARIANT_LABEL = `${GROUP}/variant`;
const exec = promisify(execFile);
/** The resources this bench touches: the requests counted. */
const OURS = /^\S+ (configmaps|benches|benches\/status|events|compositecontrollers\/status)( \(\d+\))?$/;
const requestsBetween = (before: RequestCounts, after: RequestCounts): RequestCounts => requestsIn(before, after, OURS);

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

type HookKind = 'webhook' | 'jsonata';
type ApplyStrategy = 'server-side-apply' | 'dynamic-apply';

/** One way of running the same controller; each has its own namespace, and its own loom process. */
interface Variant {
  hook: HookKind;
  strategy: ApplyStrategy;
  /** `webhook-ssa` and the like: a label value and a namespace name. */
  slug: string;
}

/** One point in a loom's life: its process, its reconciles and the API server's request counts. */
interface Snapshot {
  at: number;
  process: ProcessStats;
  heapUsedBytes: number;
  reconciles: number;
  requests: RequestCounts;
}

interface Bench {
  kubeconfigPath: string;
  client: RestClient;
  writer: ObjectWriter;
  names: string[];
  hookUrl: string;
  hookCalls: () => number;
}

function variantOf(text: string): Variant {
  const [hook, strategy] = text.split('/') as [HookKind, ApplyStrategy];
  if (!['webhook', 'jsonata'].includes(hook) || !['server-side-apply', 'dynamic-apply'].includes(strategy)) throw new Error(`unknown variant ${text}`);
  return { hook, strategy, slug: `${hook}-${strategy === 'server-side-apply' ? 'ssa' : 'dynamic'}` };
}

function parentObject(name: string, namespace: string): object {
  return { apiVersion: `${GROUP}/v1`, kind: KIND, metadata: { name, namespace, labels: { bench: 'loom' } }, spec: {} };
}

/**
 * The writes loom must make, made directly: each parent, its 3 children at once, and one status write.
 * The children and status writes go through a client with loom's rate limit (`--client-go-qps/burst`);
 * the parents do not, as in loom's runs, where the bench creates them.
 */
async function measureFloor({ writer, kubeconfigPath, names }: Bench): Promise<number> {
  const throttle = createFairThrottle({ clock: systemClock, limiter: new TokenBucket({ clock: systemClock, qps: QPS, burst: BURST }) });
  const limited = await writerFromDiscovery(createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfigPath }), throttle: (tenant) => throttle.wait(tenant ?? 'floor') }), 'loom-bench');
  const started = systemClock.now();
  await inBatches(names, WORKERS, async (name) => {
    const parent = await writer.create(parentObject(name, 'floor') as never);
    await Promise.all([0, 1, 2].map((i) => limited.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${i}`, namespace: 'floor' }, data: { i: String(i) } })));
    await limited.replaceStatus({ ...parent, status: { children: 3 } });
  });
  return systemClock.now() - started;
}

/** The webhook variants' hook server; it counts its calls. */
async function startWebhook(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const hook = Fastify({ bodyLimit: 64 * 1024 * 1024 });
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

/** One metric of a loom, summed over its labels, from its metrics endpoint. */
async function metric(metricsPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text.split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** A running `loom run` process of one variant. */
interface LoomProcess {
  child: ChildProcess;
  pid: number;
  metricsPort: number;
  stop(): Promise<void>;
}

async function startLoom(entry: string, kubeconfig: string, variant: Variant): Promise<LoomProcess> {
  const metricsPort = await freeLoopbackPort();
  const child = spawn(process.execPath, [
    entry, 'run', '--kubeconfig', kubeconfig, '--workers', String(WORKERS), '--client-go-qps', String(QPS), '--client-go-burst', String(BURST),
    '--apply-strategy', variant.strategy, '--target-label-selector', `${VARIANT_LABEL}=${variant.slug}`, '--cache-flush-interval', flags['resync-every'],
    '--metrics-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', '0', '--log-level', 'warn', '--log-format', 'json',
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(() => fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.ok, () => false), 50);
  return {
    child, pid: child.pid!, metricsPort,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function snapshot(bench: Bench, loom: LoomProcess): Promise<Snapshot> {
  const [process, heapUsedBytes, reconciles, requests] = await Promise.all([
    processStats(loom.pid), metric(loom.metricsPort, 'nodejs_heap_size_used_bytes'), metric(loom.metricsPort, 'loom_reconcile_total'), apiServerRequests(bench.kubeconfigPath),
  ]);
  return { at: systemClock.now(), process, heapUsedBytes, reconciles, requests };
}

/** Until the controller is idle: an empty queue and no reconcile finished for a second. */
async function untilIdle(loom: LoomProcess, everyMs = 200): Promise<void> {
  let last = -1;
  for (let quiet = 0; quiet * everyMs < 1000;) {
    await systemClock.sleep(everyMs);
    const [reconciles, depth] = await Promise.all([metric(loom.metricsPort, 'loom_reconcile_total'), metric(loom.metricsPort, 'loom_queue_depth')]);
    quiet = reconciles === last && depth === 0 ? quiet + 1 : 0;
    last = reconciles;
  }
}

async function applyController(writer: ObjectWriter, variant: Variant, hookUrl: string): Promise<void> {
  const sync = variant.hook === 'webhook' ? { webhook: { url: hookUrl } } : { jsonata: { expression: JSONATA_SYNC } };
  await writer.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `bench-${variant.slug}`, labels: { [VARIANT_LABEL]: variant.slug } },
    spec: { generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: PLURAL, labelSelector: { matchLabels: { bench: 'loom' } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync } },
  }, { fieldManager: 'bench' });
}

async function allConverged(client: RestClient, namespace: string): Promise<boolean> {
  const list = await client.request<{ items: { status?: { children?: number } }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/${namespace}/${PLURAL}` });
  return list.items.filter((p) => p.status?.children === 3).length === parents;
}

/**
 * Removes a namespace and waits until it is gone, so the next loom's caches do not hold its objects,
 * and until the garbage collector has finished with its objects' owner references (its reads would
 * be counted as the next loom's).
 */
async function deleteNamespace({ writer, kubeconfigPath }: Bench, name: string): Promise<void> {
  await writer.delete({ apiVersion: 'v1', kind: 'Namespace', name });
  await until(async () => (await writer.get({ apiVersion: 'v1', kind: 'Namespace', name })) === undefined, 500);
  let last = await apiServerRequests(kubeconfigPath);
  for (let quiet = 0; quiet < 2;) {
    await systemClock.sleep(1000);
    const now = await apiServerRequests(kubeconfigPath);
    quiet = total(requestsBetween(last, now)) === 0 ? quiet + 1 : 0;
    last = now;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function describe(counts: RequestCounts): string {
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `${key} × ${n}`).join(', ') || 'none';
}

function memory(s: Snapshot): string {
  return `RSS ${mib(s.process.rssBytes)} (peak ${mib(s.process.peakRssBytes)}), V8 heap used ${mib(s.heapUsedBytes)}`;
}

/** What one variant measured, for the comparison at the end. */
interface VariantResult {
  variant: Variant;
  convergeMs: number;
  writes: number;
  peakRssBytes: number;
  resyncCpuMsPer10k: number[];
}

/** Starts this variant's loom, creates the parents, waits for convergence, watches the resyncs; then removes its namespace when `cleanUp`. */
async function runVariant(bench: Bench, entry: string, variant: Variant, cleanUp: boolean): Promise<VariantResult> {
  const namespace = variant.slug;
  await bench.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const loom = await startLoom(entry, bench.kubeconfigPath, variant);
  try {
    await applyController(bench.writer, variant, bench.hookUrl);
    const hookCallsBefore = bench.hookCalls();
    const before = await snapshot(bench, loom);
    await inBatches(bench.names, WORKERS, (name) => bench.writer.create(parentObject(name, namespace) as never));
    await until(() => allConverged(bench.client, namespace));
    const converged = await snapshot(bench, loom);
    const convergeMs = converged.at - before.at;
    const hookCalls = variant.hook === 'webhook' ? `${bench.hookCalls() - hookCallsBefore} hook calls, ` : '';
    const requests = requestsBetween(before.requests, converged.requests);
    requests.set(`POST ${PLURAL}`, (requests.get(`POST ${PLURAL}`) ?? 0) - parents); // The bench's own parent creates.
    const writes = total(requests, isWrite);
    console.log(`${variant.hook}, ${variant.strategy}: converged ${parents} parents x 3 children in ${seconds(convergeMs)}`);
    console.log(`  ${hookCalls}${converged.reconciles - before.reconciles} reconciles; ${writes} API writes, ${total(requests) - writes} GETs (the floor: ${parents * 4} writes besides the parents)`);
    console.log(`  requests: ${describe(requests)}`);
    console.log(`  loom process: ${memory(converged)}, CPU ${seconds(converged.process.cpuMs - before.process.cpuMs)} while converging`);
    await untilIdle(loom);
    let last = await snapshot(bench, loom);
    console.log(`  idle after convergence: ${total(requestsBetween(converged.requests, last.requests), isWrite)} more API writes (want 0), ${last.reconciles - converged.reconciles} more reconciles; ${memory(last)}`);
    const resyncCpuMsPer10k: number[] = [];
    for (let round = 1; round <= Number(flags.resyncs); round++) {
      const target = last.reconciles + parents;
      await until(async () => (await metric(loom.metricsPort, 'loom_reconcile_total')) >= target, 1000);
      await untilIdle(loom, 1000);
      const next = await snapshot(bench, loom);
      const syncs = next.reconciles - last.reconciles;
      const cpuMs = next.process.cpuMs - last.process.cpuMs;
      resyncCpuMsPer10k.push((cpuMs / syncs) * 10_000);
      console.log(`  resync ${round}: ${syncs} syncs, ${total(requestsBetween(last.requests, next.requests), isWrite)} API writes (want 0), loom CPU ${cpuMs} ms (${((cpuMs / syncs) * 10_000 / 1000).toFixed(1)} s per 10,000 parents); ${memory(next)}`);
      last = next;
    }
    const evaluators = await childPids(loom.pid);
    if (evaluators.length > 0) {
      const stats = await Promise.all(evaluators.map((pid) => processStats(pid)));
      console.log(`  JSONata evaluator processes: ${stats.map((s) => `RSS ${mib(s.rssBytes)} (peak ${mib(s.peakRssBytes)})`).join(', ')}`);
    }
    return { variant, convergeMs, writes, peakRssBytes: last.process.peakRssBytes, resyncCpuMsPer10k };
  } finally {
    await loom.stop();
    if (cleanUp) await deleteNamespace(bench, namespace);
  }
}

function printComparison(floorMs: number, results: VariantResult[]): void {
  console.log(`\n${parents} parents x 3 children, ${WORKERS} workers, --client-go-qps=${QPS} --client-go-burst=${BURST}:`);
  console.log(`  ${'floor (direct writes)'.padEnd(30)} ${seconds(floorMs).padStart(8)}  1.00x  writes ${parents * 4}`);
  for (const { variant, convergeMs, writes, peakRssBytes, resyncCpuMsPer10k } of results) {
    const resync = resyncCpuMsPer10k.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ') || 'not measured';
    console.log(`  ${`${variant.hook}, ${variant.strategy}`.padEnd(30)} ${seconds(convergeMs).padStart(8)}  ${(convergeMs / floorMs).toFixed(2)}x  writes ${writes}  peak RSS ${mib(peakRssBytes)}  CPU per 10,000-parent resync ${resync}`);
  }
}

const variants = flags.variants.split(',').map(variantOf);
await exec('bash', ['scripts/build.sh']);
const entry = 'dist/src/cli/bin.js';
const plane = await startControlPlane({ crds: [...(await crdManifests()), benchCrd(GROUP, KIND, PLURAL)] });
const hook = await startWebhook();
try {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: plane.kubeconfigPath }) });
  const bench: Bench = {
    kubeconfigPath: plane.kubeconfigPath, client, writer: await writerFromDiscovery(client, 'loom-bench'), names: Array.from({ length: parents }, (_, i) => `p${i}`),
    hookUrl: hook.url, hookCalls: hook.calls,
  };
  // The floor goes last: its objects would otherwise sit in the caches of the looms measured after it.
  const results: VariantResult[] = [];
  for (const variant of variants) results.push(await runVariant(bench, entry, variant, variant !== variants.at(-1)));
  await bench.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'floor' } });
  const floorMs = await measureFloor(bench);
  console.log(`floor: ${parents} parents, then ${parents * 3} children and ${parents} status writes at ${QPS} QPS (burst ${BURST}), made directly by ${WORKERS} workers in ${seconds(floorMs)}`);
  printComparison(floorMs, results);
} finally {
  await hook.close();
  await plane.stop();
}
