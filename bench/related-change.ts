/**
 * What one related object's change costs a CompositeController with a customize hook
 * (docs/hook-protocol.md, "Customize and related objects"): N parents in 10 groups, each selecting the
 * ConfigMap labelled with its group (hook v2). After the first convergence one ConfigMap changes, 5
 * times; each round reports how long until every parent of that group was synced with the new
 * resourceVersion, how many sync calls the change caused (want: exactly the N/10 parents that select it
 * — Metacontroller routes by scanning every parent, loom through an index) and how many customize calls
 * (want 0: answers are cached per parent UID and generation). Run with
 * `npm run bench:related [-- parents]` (default 1000).
 */
import Fastify from 'fastify';
import { pino } from 'pino';
import type { KubeObject } from '../src/api/index.ts';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter } from '../src/kube/index.ts';
import { runLoom, type LoomConfig } from '../src/main.ts';

const parents = Number(process.argv[2] ?? 1000);
const GROUPS = 10;
const CHANGED_GROUP = 3;
const ROUNDS = 5;
const WORKERS = 5;
const API_GROUP = 'bench.loom.dev';
const NAMESPACE = 'related-bench';
const CONTROLLER = 'relbench';
/** How long any wait may take before the bench gives up and says what it saw. */
const WAIT_LIMIT_MS = 300_000;

const RELBENCH_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `relbenches.${API_GROUP}` },
  spec: {
    group: API_GROUP, scope: 'Namespaced', names: { plural: 'relbenches', singular: 'relbench', kind: 'RelBench', listKind: 'RelBenchList' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** One sync hook call: which parent, when, and the related ConfigMaps it was given as `name@resourceVersion`. */
interface SyncCall { parent: string; at: number; seen: string[] }

/** Everything the webhooks were asked, in order. */
interface HookLog { customize: string[]; syncs: SyncCall[] }

/** What one change of the group's ConfigMap caused. */
interface RoundResult {
  /** From the write of the ConfigMap until the last selecting parent's sync saw its new resourceVersion. */
  ms: number;
  syncs: number;
  /** Sync calls for parents that do not select the changed ConfigMap (want 0). */
  otherSyncs: number;
  /** Selecting parents synced more than once for this change. */
  repeated: number;
  customize: number;
}

const groupOf = (name: string): number => Number(name.slice(1)) % GROUPS;
const configMapName = (group: number): string => `group-${group}`;

/** The customize and sync webhooks; they only record what they are asked. */
async function startHooks(): Promise<{ url: string; log: HookLog; close: () => Promise<void> }> {
  const log: HookLog = { customize: [], syncs: [] };
  const hook = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  hook.post('/customize', (req) => {
    const { parent } = req.body as { parent: KubeObject & { spec: { group: number } } };
    log.customize.push(parent.metadata.name!);
    return { relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: NAMESPACE, labelSelector: { matchLabels: { group: String(parent.spec.group) } } }] };
  });
  hook.post('/sync', (req) => {
    const { parent, related } = req.body as { parent: KubeObject; related: Record<string, Record<string, KubeObject>> };
    const seen = Object.values(related).flatMap((objects) => Object.values(objects).map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`));
    log.syncs.push({ parent: parent.metadata.name!, at: systemClock.now(), seen });
    return { children: [], status: { related: seen.length } };
  });
  const url = await hook.listen({ host: '127.0.0.1', port: 0 });
  return { url, log, close: () => hook.close() };
}

function loomConfig(kubeconfig: string): LoomConfig {
  return {
    kubeconfig, workers: WORKERS, applyStrategy: 'server-side-apply', fieldManager: 'loom',
    discoveryIntervalMs: 30_000, cacheFlushIntervalMs: 0, clientQps: 1_000_000, clientBurst: 1_000_000,
    metricsAddress: { host: '127.0.0.1', port: 0 }, probeAddress: undefined, eventsQps: 1 / 300, eventsBurst: 25,
  };
}

function controller(url: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: CONTROLLER },
    spec: {
      generateSelector: true, parentResource: { apiVersion: `${API_GROUP}/v1`, resource: 'relbenches' },
      hooks: { customize: { version: 'v2', webhook: { url: `${url}/customize` } }, sync: { version: 'v2', webhook: { url: `${url}/sync` } } },
    },
  };
}

const applyConfigMap = (writer: ObjectWriter, group: number, data: Record<string, string>): Promise<KubeObject> => writer.apply(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName(group), namespace: NAMESPACE, labels: { group: String(group) } }, data },
  { fieldManager: 'bench' },
);

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = systemClock.now() + WAIT_LIMIT_MS;
  while (!(await condition())) {
    if (systemClock.now() > deadline) throw new Error(`gave up after ${WAIT_LIMIT_MS / 1000} s waiting for ${what}`);
    await systemClock.sleep(50);
  }
}

/** The queue depth of the bench controller, from loom's metrics endpoint. */
async function queueDepth(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text.split('\n')
    .filter((line) => line.startsWith('loom_queue_depth{') && line.includes(`controller="${CONTROLLER}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Idle: an empty queue and no hook call for 2 s, so every call a change causes has been counted. */
async function untilIdle(log: HookLog, metricsPort: number): Promise<void> {
  let last = -1;
  let quietSince = systemClock.now();
  await until('loom to go idle', async () => {
    const calls = log.syncs.length + log.customize.length;
    if (calls !== last || (await queueDepth(metricsPort)) > 0) {
      last = calls;
      quietSince = systemClock.now();
    }
    return systemClock.now() - quietSince >= 2000;
  });
}

/** The time by which every parent in `names` had a sync that saw `token` (`name@resourceVersion`), if all had. */
function lastToSee(calls: SyncCall[], names: Set<string>, token: string): number | undefined {
  const first = new Map<string, number>();
  for (const call of calls) if (names.has(call.parent) && !first.has(call.parent) && call.seen.includes(token)) first.set(call.parent, call.at);
  return first.size === names.size ? Math.max(...first.values()) : undefined;
}

function countByParent(calls: SyncCall[]): Map<string, number> {
  const perParent = new Map<string, number>();
  for (const call of calls) perParent.set(call.parent, (perParent.get(call.parent) ?? 0) + 1);
  return perParent;
}

/** Changes the ConfigMap of CHANGED_GROUP once and counts what followed until loom is idle again. */
async function changeRound(round: number, ctx: { writer: ObjectWriter; log: HookLog; metricsPort: number; selecting: Set<string> }): Promise<RoundResult> {
  const { log, selecting } = ctx;
  const [syncsBefore, customizeBefore] = [log.syncs.length, log.customize.length];
  const started = systemClock.now();
  const changed = await applyConfigMap(ctx.writer, CHANGED_GROUP, { round: String(round) });
  const token = `${changed.metadata.name}@${changed.metadata.resourceVersion}`;
  let doneAt: number | undefined;
  await until(`all ${selecting.size} parents of group ${CHANGED_GROUP} to see ${token}`, () => (doneAt = lastToSee(log.syncs.slice(syncsBefore), selecting, token)) !== undefined);
  await untilIdle(log, ctx.metricsPort);
  const after = log.syncs.slice(syncsBefore);
  const perParent = countByParent(after);
  return {
    ms: doneAt! - started, syncs: after.length,
    otherSyncs: after.filter((c) => !selecting.has(c.parent)).length,
    repeated: [...perParent].filter(([name, n]) => selecting.has(name) && n > 1).length,
    customize: log.customize.length - customizeBefore,
  };
}

/** Creates the parents and waits until each was synced once with its group's ConfigMap; returns the ms that took. */
async function converge(writer: ObjectWriter, log: HookLog, names: string[]): Promise<number> {
  const started = systemClock.now();
  await inBatches(names, WORKERS, (name) => writer.create({ apiVersion: `${API_GROUP}/v1`, kind: 'RelBench', metadata: { name, namespace: NAMESPACE }, spec: { group: groupOf(name) } }));
  const synced = new Map<string, number>();
  await until(`a first sync of all ${names.length} parents`, () => {
    for (const call of log.syncs) if (!synced.has(call.parent) && call.seen.length > 0) synced.set(call.parent, call.at);
    return synced.size === names.length;
  });
  return Math.max(...synced.values()) - started;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const millis = (ms: number): string => `${Math.round(ms)} ms`;

/** `calls×parents` pairs, e.g. `2×986, 3×14`: how many parents were synced how often. */
function callsPerParent(calls: SyncCall[]): string {
  const histogram = new Map<number, number>();
  for (const n of countByParent(calls).values()) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  return [...histogram].sort(([a], [b]) => a - b).map(([n, count]) => `${n}×${count}`).join(', ');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function printRound(round: number, r: RoundResult, selecting: number): void {
  console.log(`  round ${round}: ${millis(r.ms).padStart(7)}  sync calls ${r.syncs} (want ${selecting}; non-selecting ${r.otherSyncs}, selecting synced >1× ${r.repeated})  customize calls ${r.customize}`);
}

function printSummary(results: RoundResult[]): void {
  const pick = (f: (r: RoundResult) => number): number => median(results.map(f));
  console.log(`  median : ${millis(pick((r) => r.ms)).padStart(7)}  sync calls ${pick((r) => r.syncs)}, non-selecting ${pick((r) => r.otherSyncs)}, customize ${pick((r) => r.customize)}`);
}

/** Starts loom on the plane, converges the parents, then runs the change rounds. */
async function runBench(kubeconfig: string): Promise<void> {
  const writer = await writerFromDiscovery(createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfig }) }), 'loom-bench');
  await writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  for (let g = 0; g < GROUPS; g++) await applyConfigMap(writer, g, { round: '0' });
  const hooks = await startHooks();
  const stop = new AbortController();
  const loom = await runLoom({ config: loomConfig(kubeconfig), logger: pino({ level: 'warn' }), signal: stop.signal });
  try {
    await writer.apply(controller(hooks.url), { fieldManager: 'bench' });
    const names = Array.from({ length: parents }, (_, i) => `p${i}`);
    const convergeMs = await converge(writer, hooks.log, names);
    await untilIdle(hooks.log, loom.metricsPort!);
    console.log(`initial: ${parents} parents in ${GROUPS} groups, every parent synced once in ${seconds(convergeMs)}`);
    console.log(`  until idle: ${hooks.log.customize.length} customize calls (want ${parents}), ${hooks.log.syncs.length} sync calls (calls×parents: ${callsPerParent(hooks.log.syncs)})`);
    const selecting = new Set(names.filter((name) => groupOf(name) === CHANGED_GROUP));
    console.log(`change ConfigMap ${configMapName(CHANGED_GROUP)} (selected by ${selecting.size} parents), ${ROUNDS} rounds, ${WORKERS} workers:`);
    const results: RoundResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      results.push(await changeRound(round, { writer, log: hooks.log, metricsPort: loom.metricsPort!, selecting }));
      printRound(round, results.at(-1)!, selecting.size);
    }
    printSummary(results);
  } finally {
    stop.abort();
    await loom.done;
    await hooks.close();
  }
}

const plane = await startControlPlane({ crds: [...(await crdManifests()), RELBENCH_CRD] });
try {
  await runBench(plane.kubeconfigPath);
} finally {
  await plane.stop();
}
