/**
 * Worked example 1 of docs/ordering-examples.md on the real control plane, from its manifest less the
 * snapshot source (the local plane serves no snapshot API): a PersistentVolumeClaim (wave 0,
 * `deletionPolicy: Retain`) before the StatefulSet that mounts it
 * (wave 1). The StatefulSet is held, and the parent's Ready names it, until the test binds the claim
 * (the plane binds nothing); the order is proven from watch events. Ready turns True once the test
 * reports the StatefulSet's pod ready. Deleting the parent deletes the StatefulSet and releases the
 * claim, which stays.
 */
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { parentReadyWhen, type ParentReady } from './support/parent-ready.ts';
import { reportPods } from './support/pod-status.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { inRevisionOrder, recordWatches, type RecordedEvent } from './support/watch-record.ts';

const LABEL = 'claim-first';
const PARENT = TEST_PARENT_KINDS.cache;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** Example 1's controller as the page shows it, for the test's parent type. */
const MANIFEST = `
apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata:
  name: cache
  labels:
    loom-test: ${LABEL}
spec:
  generateSelector: true
  readyCondition: true
  parentResource:
    apiVersion: ${TEST_GROUP}/v1
    resource: ${PARENT.plural}
  childResources:
    - apiVersion: v1
      resource: persistentvolumeclaims
      wave: 0
      deletionPolicy: Retain
    - apiVersion: apps/v1
      resource: statefulsets
      wave: 1
      updateStrategy: { method: InPlace }
  hooks:
    sync:
      jsonata:
        expression: |
          (
            $name := parent.metadata.name;
            $labels := { "app": $name };
            {
              "children": [
                {
                  "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                  "metadata": { "name": $name & "-data" },
                  "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": { "requests": { "storage": parent.spec.size ?? "1Gi" } }
                  }
                },
                {
                  "apiVersion": "apps/v1", "kind": "StatefulSet",
                  "metadata": { "name": $name },
                  "spec": {
                    "serviceName": $name, "replicas": 1,
                    "selector": { "matchLabels": $labels },
                    "template": {
                      "metadata": { "labels": $labels },
                      "spec": {
                        "containers": [{ "name": "cache", "image": parent.spec.image,
                          "volumeMounts": [{ "name": "data", "mountPath": "/data" }] }],
                        "volumes": [{ "name": "data", "persistentVolumeClaim": { "claimName": $name & "-data" } }]
                      }
                    }
                  }
                }
              ]
            }
          )
`;

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });
const getClaim = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name });
const getStatefulSet = (name: string) => clients.writer.get({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name });

/** The parent's Ready condition once `accept` takes it. */
const readyWhen = async (name: string, accept: (c: ParentReady) => boolean, what: string) =>
  (await parentReadyWhen(() => clients.writer.get(parentRef(name)), accept, what)).ready;

const bound = (claim: KubeObject): boolean => (claim.status as { phase?: string } | undefined)?.phase === 'Bound';

/** StatefulSet events that came before the claim's first Bound event (by revision), described. */
function statefulSetsBeforeBound(seen: readonly RecordedEvent[]): string[] {
  const early: string[] = [];
  for (const event of inRevisionOrder(seen)) {
    if (event.object.kind === 'PersistentVolumeClaim' && bound(event.object)) return early;
    if (event.object.kind === 'StatefulSet') early.push(`${event.type} ${event.object.metadata.name} at ${event.revision}`);
  }
  return [...early, 'the claim was never bound'];
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  loom = await startTestLoom(LABEL);
  await clients.apply(load(MANIFEST) as KubeObject);
});

afterAll(async () => {
  await loom?.stop();
});

describe('a claim before the StatefulSet that mounts it', () => {
  it('holds the StatefulSet until the claim is bound, is Ready once its pod is, and keeps the claim when the parent goes', async () => {
    const name = 'web';
    const stop = new AbortController();
    const paths = [`/api/v1/namespaces/${namespace}/persistentvolumeclaims`, `/apis/apps/v1/namespaces/${namespace}/statefulsets`];
    const { seen, established } = recordWatches(clients.client, paths, stop.signal);
    await established;
    try {
      await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name, namespace }, spec: { image: 'cache:1' } });
      const held = await readyWhen(name, (c) => c.reason === 'ChildrenHeld', 'Ready=False ChildrenHeld');
      expect(held.message).toMatch(new RegExp(`^StatefulSet ${namespace}/${name} waits for PersistentVolumeClaim ${namespace}/${name}-data \\(InProgress: `));
      const claim = await eventually(() => getClaim(`${name}-data`), 'the claim');
      expect(await getStatefulSet(name)).toBeUndefined();

      await clients.writer.replaceStatus({ ...claim, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } });
      await eventually(() => getStatefulSet(name), 'the StatefulSet created');
      expect(statefulSetsBeforeBound(seen)).toEqual([]);
      await reportPods(clients, namespace, `app=${name}`, 'Running');
      expect(await readyWhen(name, (c) => c.status === 'True', 'Ready=True')).toMatchObject({ reason: 'ChildrenReady', message: '2 children are ready', observedGeneration: 1 });

      const parent = await clients.writer.get(parentRef(name));
      await clients.writer.delete(parentRef(name));
      await eventually(async () => ((await clients.writer.get(parentRef(name))) ? undefined : true), 'the parent gone');
      await eventually(async () => ((await getStatefulSet(name)) ? undefined : true), 'the StatefulSet deleted');
      const kept = await getClaim(`${name}-data`);
      expect(kept?.metadata.uid).toBe(claim.metadata.uid);
      expect((kept?.metadata.ownerReferences ?? []).filter((r) => r.uid === parent?.metadata.uid)).toEqual([]);
      expect(kept?.metadata.annotations?.['loom.dev/released-from']).toBe(parent?.metadata.uid);
    } finally {
      stop.abort();
    }
  });
});
