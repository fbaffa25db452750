/**
 * The bluegreen-deployment example (examples/bluegreen-deployment/) on the real control plane: its
 * hook runs as its own process (`node examples/bluegreen-deployment/hook.ts`), its controller.yaml
 * is applied as shipped but pointed at that process, and the example parent is applied in the test's
 * namespace. A new Pod template goes to the idle colour, and the Service moves to it only once its
 * ReplicaSet has every replica ready; the old colour is then scaled to 0.
 *
 * Nothing runs Pods here (no scheduler, no kubelet), so the test plays the kubelet: it marks the
 * Pods of one colour Ready, and the replicaset controller rolls that up into the ReplicaSet's
 * `readyReplicas` and `availableReplicas`, which is what the hook waits for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { objectWhen, statusWhen } from './support/shelf.ts';

const LABEL = 'example-bluegreen';
const EXAMPLE = 'bluegreen-deployment';
const REPLICAS = 2;

let clients: TestClients;
let running: RunningExample | undefined;
let namespace: string;

interface BlueGreenStatus {
  activeColor?: string;
  active?: { replicas?: number; readyReplicas?: number };
  inactive?: { replicas?: number; readyReplicas?: number };
}

interface ReplicaSetShape {
  spec: { replicas: number; template: { metadata: { labels: Record<string, string> }; spec: { containers: { image: string }[] } } };
  status?: { replicas?: number; readyReplicas?: number };
}

const parent = () => clients.writer.get({ apiVersion: 'examples.loom.dev/v1', kind: 'BlueGreenDeployment', namespace, name: 'nginx' });
const replicaSet = (color: string) => clients.writer.get({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: `nginx-${color}` });
const service = () => clients.writer.get({ apiVersion: 'v1', kind: 'Service', namespace, name: 'nginx-frontend' });

const rsOf = (obj: KubeObject) => obj as unknown as ReplicaSetShape;
const imageOf = (rs: KubeObject) => rsOf(rs).spec.template.spec.containers[0]?.image;
const selectedColor = async () => ((await service())?.spec as { selector?: Record<string, string> } | undefined)?.selector?.color;
const statusWhenBgd = (accept: (s: BlueGreenStatus) => boolean, what: string) => statusWhen<BlueGreenStatus>(parent, accept, what);

/** The example parent with `REPLICAS` replicas and `image`, applied in the test's namespace. */
async function applyParent(image: string): Promise<KubeObject> {
  const [example] = await exampleManifests(EXAMPLE, 'bluegreen-deployment.yaml');
  const spec = structuredClone(example!.spec) as { replicas: number; minReadySeconds?: number; template: { spec: { containers: { image: string }[] } } };
  spec.replicas = REPLICAS;
  delete spec.minReadySeconds; // Pods are marked Ready by hand: available at once, not 5 s later
  spec.template.spec.containers[0]!.image = image;
  return clients.apply({ ...example!, metadata: { name: 'nginx', namespace }, spec });
}

/** Marks every Pod of `color` Ready, as a kubelet would; `true` once there are `REPLICAS` of them. */
async function markPodsReady(color: string): Promise<true | undefined> {
  const pods = await clients.client.request<{ items: KubeObject[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/pods`, query: { labelSelector: `app=nginx,color=${color}` },
  });
  const now = new Date(systemClock.now()).toISOString();
  const conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
  // List items come without apiVersion and kind.
  for (const pod of pods.items) {
    await clients.writer.replaceStatus({ ...pod, apiVersion: 'v1', kind: 'Pod', status: { ...(pod.status as object), phase: 'Running', conditions, startTime: now } });
  }
  return pods.items.length === REPLICAS ? true : undefined;
}

/** Marks `color`'s Pods Ready until its ReplicaSet reports them all ready. */
async function makeReady(color: string): Promise<void> {
  await eventually(async () => {
    await markPodsReady(color);
    const rs = await replicaSet(color);
    return rs && rsOf(rs).status?.readyReplicas === REPLICAS ? true : undefined;
  }, `every ${color} Pod ready`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  running = await startExample(clients, EXAMPLE, { label: LABEL });
});

afterAll(async () => {
  await running?.stop();
});

describe('the bluegreen-deployment example', () => {
  it('rolls a new template out on the idle colour and switches the Service once it is ready', async () => {
    const created = await applyParent('nginx:1.26');
    const owner = { apiVersion: 'examples.loom.dev/v1', kind: 'BlueGreenDeployment', name: 'nginx', uid: created.metadata.uid, controller: true };

    // Created: blue runs every replica and the Service selects it; green exists, idle.
    const blue = await objectWhen(() => replicaSet('blue'), (rs) => rsOf(rs).spec.replicas === REPLICAS, 'the blue ReplicaSet');
    expect(blue.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(imageOf(blue)).toBe('nginx:1.26');
    expect(rsOf(blue).spec.template.metadata.labels).toEqual({ app: 'nginx', component: 'frontend', color: 'blue' });
    const green = await eventually(() => replicaSet('green'), 'the green ReplicaSet');
    expect(rsOf(green).spec.replicas).toBe(0);
    const svc = await eventually(service, 'the Service');
    expect(svc.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(svc.spec).toMatchObject({ selector: { app: 'nginx', component: 'frontend', color: 'blue' }, ports: [{ port: 80 }] });
    await makeReady('blue');
    await statusWhenBgd((s) => s.activeColor === 'blue' && s.active?.readyReplicas === REPLICAS, 'blue reported active and ready');

    // A new template goes to green; while green's Pods are not ready the Service stays on blue.
    await applyParent('nginx:1.27');
    const rolling = await objectWhen(() => replicaSet('green'), (rs) => rsOf(rs).spec.replicas === REPLICAS, 'green scaled up');
    expect(imageOf(rolling)).toBe('nginx:1.27');
    // The hook has seen green's Pods exist, not ready, and still keeps blue live.
    const waiting = await statusWhenBgd((s) => s.inactive?.replicas === REPLICAS, 'green reported with its Pods');
    expect(waiting).toMatchObject({ activeColor: 'blue', active: { readyReplicas: REPLICAS } });
    expect(await selectedColor()).toBe('blue');
    expect(rsOf((await replicaSet('blue'))!).spec.replicas).toBe(REPLICAS);

    // Green ready: the Service switches to green and blue scales to 0.
    await makeReady('green');
    await eventually(async () => ((await selectedColor()) === 'green' ? true : undefined), 'the Service to select green');
    const drained = await objectWhen(() => replicaSet('blue'), (rs) => rsOf(rs).spec.replicas === 0 && (rsOf(rs).status?.replicas ?? 0) === 0, 'blue scaled to 0');
    expect(imageOf(drained)).toBe('nginx:1.26');
    const done = await statusWhenBgd((s) => s.activeColor === 'green' && s.inactive?.replicas === 0, 'green reported active');
    expect(done.active).toMatchObject({ replicas: REPLICAS, readyReplicas: REPLICAS });
  });
});
