/**
 * The service-per-pod example (examples/service-per-pod/) on the real control plane: its hook runs
 * as its own process, both DecoratorControllers are applied as shipped but pointed at it, and the
 * example StatefulSet is applied in the test's namespace. Each Pod ordinal gets a Service owned by
 * the StatefulSet and stamped with the decorator's name; each Pod the statefulset controller creates
 * gets its pod-name label (the second decorator); taking an annotation off the StatefulSet runs the
 * finalize hook, which removes the Services, and then the decorator's finalizer goes.
 *
 * The Pods never run (no kubelet); the StatefulSet is `Parallel`, so both are created anyway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { eventuallyGone, objectWhen } from './support/shelf.ts';

const LABEL = 'example-service-per-pod';
const EXAMPLE = 'service-per-pod';
const FINALIZER = 'metacontroller.io/decoratorcontroller-service-per-pod';
const ORDINALS = [0, 1];

let clients: TestClients;
let running: RunningExample | undefined;
let namespace: string;

const statefulSet = () => clients.writer.get({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name: 'nginx' });
const service = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'Service', namespace, name });
const pod = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'Pod', namespace, name });

/** The example StatefulSet (not its headless Service) with two replicas, in the test's namespace. */
async function applyStatefulSet(): Promise<KubeObject> {
  const example = (await exampleManifests(EXAMPLE, 'statefulset.yaml')).find((doc) => doc.kind === 'StatefulSet')!;
  return clients.apply({ ...example, metadata: { ...example.metadata, namespace }, spec: { ...(example.spec as object), replicas: ORDINALS.length } });
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  running = await startExample(clients, EXAMPLE, { label: LABEL, controllers: ['controller.yaml', 'pod-name-label-controller.yaml'] });
});

afterAll(async () => {
  await running?.stop();
});

describe('the service-per-pod example', () => {
  it('gives each Pod a Service and a pod-name label, and removes the Services when the StatefulSet opts out', async () => {
    const sts = await applyStatefulSet();
    const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'nginx', uid: sts.metadata.uid, controller: true };

    for (const i of ORDINALS) {
      const svc = await eventually(() => service(`nginx-${i}`), `Service nginx-${i}`);
      expect(svc.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
      expect(svc.metadata.annotations).toMatchObject({ 'metacontroller.k8s.io/decorator-controller': 'service-per-pod' });
      expect(svc.spec).toMatchObject({ selector: { 'pod-name': `nginx-${i}` }, ports: [{ name: 'port-80', port: 80, targetPort: 80 }] });
      const labelled = await objectWhen(() => pod(`nginx-${i}`), (p) => p.metadata.labels?.['pod-name'] !== undefined, `the pod-name label on nginx-${i}`);
      expect(labelled.metadata.labels?.['pod-name']).toBe(`nginx-${i}`);
    }
    expect((await statefulSet())?.metadata.finalizers).toContain(FINALIZER);
    expect(await service(`nginx-${ORDINALS.length}`)).toBeUndefined();

    // Opting out: the StatefulSet no longer matches, so the finalize hook runs while it is not deleted.
    await clients.writer.patchJson({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name: 'nginx' }, [
      { op: 'remove', path: '/metadata/annotations/service-per-pod-label' },
    ]);
    for (const i of ORDINALS) await eventuallyGone(() => service(`nginx-${i}`), `Service nginx-${i} to be removed`);
    const released = await objectWhen(statefulSet, (s) => !(s.metadata.finalizers ?? []).includes(FINALIZER), 'the finalizer to be removed');
    expect(released.metadata.deletionTimestamp).toBeUndefined();
  });
});
