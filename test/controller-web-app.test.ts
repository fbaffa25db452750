/**
 * The shelf's web-app controller (controllers/web-app/) on the real control plane, applied exactly as
 * shipped but for the test label: a WebApp gets its Deployment, Service and PodDisruptionBudget, owned
 * by it, and its status turns ready once the Deployment reports its replicas ready.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { applyShippedController, shelfManifest } from './support/shelf.ts';

const LABEL = 'web-app';
/** The shelf folder: `controllers/web-app/`. */
const SHELF = 'web-app';
const LABELS = { 'app.kubernetes.io/name': 'web-app', 'app.kubernetes.io/instance': 'shop' };
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

interface WebAppStatus {
  ready?: boolean;
  replicas?: number;
  readyReplicas?: number;
  deploymentObservedGeneration?: number;
}

const child = (apiVersion: string, kind: string) => (): Promise<KubeObject | undefined> =>
  clients.writer.get({ apiVersion, kind, namespace, name: 'shop' });
const webApp = child('apps.loom.dev/v1', 'WebApp');
const deployment = child('apps/v1', 'Deployment');

/**
 * Marks the WebApp's pods Ready, as a kubelet would (there is none). Pods rather than the Deployment's
 * status: the Deployment controller recomputes that status from its ReplicaSets and at once puts
 * back what they say, whereas a pod's status stays as written and the ReplicaSet and Deployment
 * controllers roll it up into `readyReplicas` themselves.
 */
async function reportPodsReady(): Promise<void> {
  const pods = await clients.client.request<{ items: KubeObject[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/pods`, query: { labelSelector: 'app.kubernetes.io/instance=shop' },
  });
  const now = new Date(systemClock.now()).toISOString();
  for (const pod of pods.items) {
    const conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
    await clients.client.request({
      method: 'PUT', path: `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`,
      body: { ...pod, status: { ...(pod.status as object), phase: 'Running', conditions, startTime: now } },
    });
  }
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('the web-app controller', () => {
  it('runs a WebApp as a Deployment, a Service and a PodDisruptionBudget, and rolls up readiness', async () => {
    await applyShippedController(clients, SHELF, LABEL);
    const example = await shelfManifest(SHELF, 'webapp.yaml');
    const parent = await clients.apply({
      ...example, metadata: { name: 'shop', namespace }, spec: { image: 'ghcr.io/acme/shop:1.0', replicas: 2, port: 9000 },
    });
    const owner = { apiVersion: 'apps.loom.dev/v1', kind: 'WebApp', name: 'shop', uid: parent.metadata.uid, controller: true };

    const deployed = await eventually(deployment, 'the Deployment');
    expect(deployed.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(deployed.spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: LABELS },
      template: { metadata: { labels: LABELS }, spec: { containers: [{ name: 'web', image: 'ghcr.io/acme/shop:1.0', ports: [{ name: 'http', containerPort: 9000 }] }] } },
    });

    const service = await eventually(child('v1', 'Service'), 'the Service');
    expect(service.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(service.spec).toMatchObject({ selector: LABELS, ports: [{ name: 'http', port: 9000, targetPort: 9000 }] });

    const pdb = await eventually(child('policy/v1', 'PodDisruptionBudget'), 'the PodDisruptionBudget');
    expect(pdb.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(pdb.spec).toMatchObject({ minAvailable: 1, selector: { matchLabels: LABELS } });

    const status = await eventually(async () => {
      const current = (await webApp())?.status as WebAppStatus | undefined;
      if (current?.ready === true) return current;
      await reportPodsReady();
      return undefined;
    }, 'the WebApp to report ready');
    expect(status).toMatchObject({ ready: true, replicas: 2, readyReplicas: 2 });
    expect(status.deploymentObservedGeneration).toBeGreaterThanOrEqual(1);
  });
});
