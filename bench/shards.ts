/**
 * Sharding across replicas: N parents × 3 ConfigMap children converged by 1, 2, 3… `loom run`
 * processes with `--shards 16`, each round on one local control plane with its own namespace and
 * Lease group. Prints, per replica count: the time from the first parent created until every parent's
 * status counts 3 children, each replica's peak resident set (`VmHWM`) and the parents it held
 * (`loom_shard_parents`), and, with more than one replica, the handover time after one replica is
 * killed with SIGKILL: from the kill until every bucket is held by the survivors (`--shard-lease-duration`
 * bounds it, plus a 2 s check).
 *
 * Run with `npm run bench:shards [-- parents] [--replicas 1,2,3] [--qps 500]` (default 1000 parents).
 * Each replica has the rate limit `--qps` of its own, as separate pods would. The loom under test is
 * the compiled package, started through its `loom` command, as in `bench:converge`.
 */
import { execFile, spawn } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import Fastify from 'fastify';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter, type RestClient } from '../src/kube/index.ts';
import { mib, processStats } from './process-stats.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { replicas: { type: 'string', default: '1,2,3' }, qps: { type: 'string', default: '500' } },
});
const parents = Number(positionals[0] ?? 1000);
const QPS = Number(flags.qps);
const BUCKETS = 16;
const WORKERS = 5;
const GROUP = 'bench.loom.dev';
const PLURAL = 'benches';
const LEASES_NAMESPACE = 'loom-bench';
const exec = promisify(execFile);

interface Replica {
  pid: number;
  metricsPort: number;
  exited: Promise<void>;
  signal(signal: NodeJS.Signals): void;
}

async function until(condition: () => Promise<boolean>, everyMs = 200): Promise<void> {
  while (!(await condition())) await systemClock.sleep(everyMs);
}

async function startReplica(entry: string, kubeconfig: string, round: string): Promise<Replica> {
  const metricsPort = await freeLoopbackPort();
  const child = spawn(process.execPath, [
    entry, 'run', '--kubeconfig', kubeconfig, '--workers', String(WORKERS), '--client-go-qps', String(QPS), '--client-go-burst', String(2 * QPS),
    '--target-label-selector', `${GROUP}/round=${round}`, '--shards', String(BUCKETS), '--leader-election-namespace', LEASES_NAMESPACE,
    '--leader-election-id', round, '--metrics-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', '0', '--log-level', 'warn',
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(() => fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.ok, () => false), 50);
  return { pid: child.pid!, metricsPort, exited, signal: (s) => child.kill(s) };
}

async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith(name)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Bucket → holder, for the Leases of `round`. */
async function holders(client: RestClient, round: string): Promise<Map<string, string>> {
  const list = await client.request<{ items: { metadata: { name: string }; spec?: { holderIdentity?: string } }[] }>({
    method: 'GET', path: `/apis/coordination.k8s.io/v1/namespaces/${LEASES_NAMESPACE}/leases`, query: { labelSelector: `loom.dev/shard-group=${round}` },
  });
  return new Map(list.items.filter((l) => l.metadata.name.includes('-shard-') && l.spec?.holderIdentity).map((l) => [l.metadata.name, l.spec!.holderIdentity!]));
}

/** Resolves when every bucket is held by `count` holders, as evenly as can be. */
async function untilSplit(client: RestClient, round: string, count: number): Promise<void> {
  await until(async () => {
    const byBucket = await holders(client, round);
    const shares = new Map<string, number>();
    for (const holder of byBucket.values()) shares.set(holder, (shares.get(holder) ?? 0) + 1);
    return byBucket.size === BUCKETS && shares.size === count && Math.max(...shares.values()) - Math.min(...shares.values()) <= 1;
  }, 100);
}

async function startHook(): Promise<{ url: string; close: () => Promise<void> }> {
  const hook = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  hook.post('/sync', (req) => {
    const { parent, children } = req.body as { parent: { metadata: { name: string } }; children: Record<string, object> };
    return {
      status: { children: Object.keys(children['ConfigMap.v1'] ?? {}).length },
      children: [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-${i}` }, data: { i: String(i) } })),
    };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  return { url, close: () => hook.close() };
}

async function converged(client: RestClient, namespace: string): Promise<boolean> {
  const list = await client.request<{ items: { status?: { children?: number } }[] }>({ method: 'GET', path: `/apis/${GROUP}/v1/namespaces/${namespace}/${PLURAL}` });
  return list.items.filter((p) => p.status?.children === 3).length === parents;
}

async function round(count: number, ctx: { entry: string; kubeconfig: string; client: RestClient; writer: ObjectWriter; hookUrl: string }): Promise<string> {
  const name = `shards-${count}`;
  await ctx.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await ctx.writer.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name, labels: { [`${GROUP}/round`]: name } },
    spec: { generateSelector: true, parentResource: { apiVersion: `${GROUP}/v1`, resource: PLURAL, labelSelector: { matchLabels: { round: name } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }], hooks: { sync: { webhook: { url: ctx.hookUrl } } } },
  }, { fieldManager: 'bench' });
  const replicas: Replica[] = [];
  for (let i = 0; i < count; i++) replicas.push(await startReplica(ctx.entry, ctx.kubeconfig, name));
  await untilSplit(ctx.client, name, count);

  const started = systemClock.now();
  let next = 0;
  await Promise.all(Array.from({ length: WORKERS }, async () => {
    while (next < parents) {
      const i = next++;
      await ctx.writer.create({ apiVersion: `${GROUP}/v1`, kind: 'Bench', metadata: { name: `p${i}`, namespace: name, labels: { round: name } }, spec: {} });
    }
  }));
  await until(() => converged(ctx.client, name), 250);
  const convergeMs = systemClock.now() - started;
  const stats = await Promise.all(replicas.map(async (r) => ({ peak: (await processStats(r.pid)).peakRssBytes, parents: await metric(r.metricsPort, 'loom_shard_parents{') })));
  let line = `${count} replica${count > 1 ? 's' : ''}: converged ${parents} parents x 3 children in ${(convergeMs / 1000).toFixed(1)} s; `
    + `per replica: ${stats.map((s) => `${mib(s.peak)} peak, ${s.parents} parents`).join(' | ')}`;
  if (count > 1) {
    const killedAt = systemClock.now();
    replicas[0]!.signal('SIGKILL');
    await replicas[0]!.exited;
    await untilSplit(ctx.client, name, count - 1);
    line += `; after a SIGKILL its buckets were held by the others in ${((systemClock.now() - killedAt) / 1000).toFixed(1)} s`;
  }
  for (const r of replicas.slice(count > 1 ? 1 : 0)) {
    r.signal('SIGTERM');
    await r.exited;
  }
  // Gone before the next round, so no replica of it caches this round's objects.
  await ctx.writer.delete({ apiVersion: 'v1', kind: 'Namespace', name });
  await until(async () => (await ctx.writer.get({ apiVersion: 'v1', kind: 'Namespace', name })) === undefined, 500);
  return line;
}

await exec('bash', ['scripts/build.sh']);
const plane = await startControlPlane({
  crds: [...(await crdManifests()), {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${PLURAL}.${GROUP}` },
    spec: { group: GROUP, scope: 'Namespaced', names: { plural: PLURAL, singular: 'bench', kind: 'Bench', listKind: 'BenchList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }],
});
const hook = await startHook();
try {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: plane.kubeconfigPath }) });
  const writer = await writerFromDiscovery(client, 'loom-bench');
  await writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASES_NAMESPACE } });
  const ctx = { entry: 'dist/src/cli/bin.js', kubeconfig: plane.kubeconfigPath, client, writer, hookUrl: hook.url };
  const lines: string[] = [];
  for (const count of flags.replicas.split(',').map(Number)) {
    const line = await round(count, ctx);
    console.log(line);
    lines.push(line);
  }
  console.log(`\n${parents} parents x 3 children, --shards ${BUCKETS}, each replica --client-go-qps=${QPS} --client-go-burst=${2 * QPS} --workers=${WORKERS}:\n${lines.map((l) => `  ${l}`).join('\n')}`);
} finally {
  await hook.close();
  await plane.stop();
}
