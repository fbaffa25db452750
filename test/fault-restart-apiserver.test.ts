/**
 * Fault R2: the API server restarts under a running loom. On a control plane of its own (restarting
 * the shared one would cut off every other test file), loom converges three parents; then the API
 * server loom talks to stops, and while it is down a parent is edited and another created through a
 * second API server on the same etcd (the other replica of an HA control plane). Once it is back,
 * loom must still be running (its `done` still pending), must have seen the outage (its watches
 * failed and retried), must catch up on both changes, must follow a further edit (its watches
 * resumed, not merely relisted once), and every child made before the outage keeps its UID.
 * Prints the outage's length and how long loom took to catch up.
 */
import { rm } from 'node:fs/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane, type ControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter } from '../src/kube/index.ts';
import { runLoom, type RunningLoom } from '../src/main.ts';
import { controlApiServer, type ApiServerControl } from './support/api-server-control.ts';
import { eventually } from './support/cluster.ts';
import { parentCrd, TEST_GROUP, type ParentKind } from './support/test-crd.ts';

const LABEL = 'restart-apiserver';
const KIND: ParentKind = { plural: 'outages', kind: 'Outage' };
const NAMESPACE = 'default';
/** Loom's watches back off up to 30 s while the API server is away; catching up may take that long. */
const CATCH_UP_MS = 90_000;

/** One ConfigMap per parent carrying its colour; the status echoes the colour and counts the child. */
const SYNC = `{
  "children": [{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": parent.metadata.name & "-config" },
    "data": { "color": parent.spec.color }
  }],
  "status": { "color": parent.spec.color, "observed": $count($keys(children."ConfigMap.v1")) }
}`;

let plane: ControlPlane | undefined;
let apiServer: ApiServerControl | undefined;
let writer: ObjectWriter;
const stopLoom = new AbortController();
let loom: RunningLoom | undefined;
/** How loom's `done` settled, if it did: it must not while the API server restarts. */
let loomEnded: string | undefined;
/** loom's warnings and errors, one JSON line each. */
const loomLog: string[] = [];
let passed = false;

const writerFor = async (kubeconfigPath: string): Promise<ObjectWriter> =>
  writerFromDiscovery(createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfigPath }) }), 'loom-test');
const parent = (name: string, color: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace: NAMESPACE }, spec: { color } });
const childOf = (w: ObjectWriter, name: string) => w.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NAMESPACE, name: `${name}-config` });
const watchFailures = (): number => loomLog.filter((line) => line.includes('list/watch failed')).length;

/** Resolves with the parent's child once the child and the parent's status both show `color`. */
async function converged(name: string, color: string): Promise<KubeObject> {
  return eventually(async () => {
    const child = await childOf(writer, name);
    const p = await writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace: NAMESPACE, name });
    const status = p?.status as { color?: string; observed?: number } | undefined;
    const done = (child?.data as { color?: string } | undefined)?.color === color && status?.color === color && status.observed === 1;
    return done ? child : undefined;
  }, `${name} to converge on ${color}`, CATCH_UP_MS);
}

async function startLoom(kubeconfig: string): Promise<void> {
  const logger = pino({ level: 'warn' }, { write: (line: string) => void loomLog.push(line) });
  loom = await runLoom({
    config: {
      kubeconfig, workers: 2, applyStrategy: 'server-side-apply', fieldManager: 'loom',
      discoveryIntervalMs: 2_000, cacheFlushIntervalMs: 0, clientQps: 200, clientBurst: 400,
      metricsAddress: undefined, probeAddress: undefined,
      targetSelector: { matchLabels: { 'loom-test': LABEL } }, eventsQps: 1 / 300, eventsBurst: 25,
    },
    logger, signal: stopLoom.signal,
  });
  loom.done.then(() => (loomEnded = 'resolved'), (err: unknown) => (loomEnded = `rejected: ${String(err)}`));
}

beforeAll(async () => {
  // The parent CRD exists before the controller-manager starts, as in the shared plane.
  plane = await startControlPlane({ crds: [...(await crdManifests()), parentCrd(KIND)] });
  apiServer = await controlApiServer(plane);
  writer = await writerFor(plane.kubeconfigPath);
  await writer.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'restart-apiserver', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { jsonata: { expression: SYNC } } },
    },
  }, { fieldManager: 'loom-test' });
  await startLoom(plane.kubeconfigPath);
}, 180_000);

afterAll(async () => {
  stopLoom.abort();
  await loom?.done.catch(() => undefined);
  await apiServer?.close();
  // The first API server exited (we stopped it), so the plane keeps its logs; drop them if all passed.
  await plane?.stop({ keepLogs: !passed });
  if (plane && passed) await rm(plane.runDir, { recursive: true, force: true });
  else if (plane) console.log(`R2: control plane logs kept in ${plane.runDir}`);
}, 60_000);

describe('the API server restarting under a running loom', () => {
  it('keeps loom running, and it catches up on what changed while the server was down', async () => {
    for (const name of ['one', 'two', 'three']) await writer.apply(parent(name, 'red'), { fieldManager: 'loom-test' });
    const uids = new Map<string, string | undefined>();
    for (const name of ['one', 'two', 'three']) uids.set(name, (await converged(name, 'red')).metadata.uid);

    const replica = await apiServer!.startReplica();
    const side = await writerFor(replica.kubeconfigPath);
    const downAt = systemClock.now();
    await apiServer!.stop();
    const stoppedMs = systemClock.now() - downAt;
    await eventually(() => Promise.resolve(watchFailures() > 0 || undefined), 'loom to notice the API server is gone');
    await side.apply(parent('one', 'blue'), { fieldManager: 'loom-test' });
    await side.apply(parent('four', 'green'), { fieldManager: 'loom-test' });
    // Nobody acts on the edit while loom's API server is away.
    expect((await childOf(side, 'one'))?.data).toEqual({ color: 'red' });
    const failuresWhileDown = watchFailures();

    const startAt = systemClock.now();
    await apiServer!.start();
    const readyMs = systemClock.now() - startAt;
    expect((await converged('one', 'blue')).metadata.uid).toBe(uids.get('one'));
    await converged('four', 'green');
    // From the start, not from /readyz: the server answers loom before its post-start hooks all finish.
    const caughtUpMs = systemClock.now() - startAt;

    const editAt = systemClock.now();
    await writer.apply(parent('two', 'yellow'), { fieldManager: 'loom-test' });
    expect((await converged('two', 'yellow')).metadata.uid).toBe(uids.get('two'));
    const liveEditMs = systemClock.now() - editAt;
    expect((await childOf(writer, 'three'))?.metadata.uid).toBe(uids.get('three'));
    expect(loomEnded).toBeUndefined();

    console.log(`R2 API server restart: down ${startAt + readyMs - downAt} ms in all (SIGTERM to exit ${stoppedMs} ms, `
      + `start to /readyz ${readyMs} ms); loom logged ${failuresWhileDown} failed list/watch attempts meanwhile, had caught up `
      + `on the edit and the new parent ${caughtUpMs} ms after the restart began, and followed a fresh edit in ${liveEditMs} ms`);
    passed = true;
  }, 180_000);
});
