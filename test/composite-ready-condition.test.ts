/**
 * The parent's Ready condition without waves (docs/ordering-and-readiness.md, "The parent's Ready
 * condition"), on the real control plane, from a controller manifest that says `readyCondition: true`:
 * a Deployment, a PersistentVolumeClaim and a ConfigMap, no loom annotation. The parent is
 * `Ready=False ChildrenNotReady` naming the unready children until the test binds the claim (its
 * status subresource: the plane binds nothing) and reports the Deployment's pod ready (the Deployment
 * and ReplicaSet controllers roll it up into the Deployment's status), then `True`. Converged, loom
 * writes the parent no more: syncs the test brings about (each one seen in a child it updates) change
 * nothing on the parent. A child write the API server refuses makes it `WriteFailed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { APPLY_MODES, startModeHosts } from './support/apply-modes.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { parentReadyOf, parentReadyWhen, type ParentReady } from './support/parent-ready.ts';
import { reportPods } from './support/pod-status.ts';
import { parentWritesOverSyncs } from './support/quiet-parent.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { recordWatches } from './support/watch-record.ts';

const LABEL = 'ready-condition';
const PARENT = TEST_PARENT_KINDS.readyParent;
let clients: TestClients;
let hosts: TestLoom[] = [];
let namespace: string;

/**
 * The controller as a user writes it. The ConfigMap carries the parent's `poke` annotation (so the
 * test sees each sync that read a new one), and a key the API server refuses when `spec.broken`. Each
 * apply strategy's host runs a copy for the parents labelled with it.
 */
const MANIFEST = `
apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata:
  name: ready-condition
spec:
  generateSelector: true
  readyCondition: true
  parentResource:
    apiVersion: ${TEST_GROUP}/v1
    resource: ${PARENT.plural}
  childResources:
    - apiVersion: v1
      resource: configmaps
      updateStrategy: { method: InPlace }
    - apiVersion: v1
      resource: persistentvolumeclaims
      updateStrategy: { method: InPlace }
    - apiVersion: apps/v1
      resource: deployments
      updateStrategy: { method: InPlace }
  hooks:
    sync:
      jsonata:
        expression: |
          (
            $n := parent.metadata.name;
            $labels := { "app": $n };
            {
              "children": [
                { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $n & "-config" },
                  "data": parent.spec.broken = true ? { "not a key!": "x" } : { "poke": parent.metadata.annotations.poke ? parent.metadata.annotations.poke : "none" } },
                { "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": { "name": $n & "-data" },
                  "spec": { "accessModes": ["ReadWriteOnce"], "resources": { "requests": { "storage": "1Gi" } } } },
                { "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": $n },
                  "spec": { "replicas": 1, "selector": { "matchLabels": $labels },
                    "template": { "metadata": { "labels": $labels }, "spec": { "containers": [{ "name": "app", "image": "app:1" }] } } } }
              ],
              "status": { "hook": "ok" }
            }
          )
`;

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });
const getParent = (name: string) => clients.writer.get(parentRef(name));
const applyParent = (name: string, spec: object, annotations: Record<string, string> = {}) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name, namespace, annotations, labels: { apply: name } }, spec });
/** The parent and its Ready condition, once `accept` takes them. */
const readyWhen = (name: string, accept: (c: ParentReady, parent: KubeObject) => boolean, what: string) => parentReadyWhen(() => getParent(name), accept, what);

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  hosts = await startModeHosts(clients, LABEL, MANIFEST);
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
});

describe.each(APPLY_MODES)('the Ready condition of a parent whose children have no order, with $applyStrategy', ({ mode }) => {
  it('stays False naming the unready children until the claim is bound and the Deployment ready, then True, then writes the parent no more; a refused write is WriteFailed', async () => {
    // The parent is named after its apply strategy, whose host alone runs it.
    const name = mode;
    const stop = new AbortController();
    const { seen, established } = recordWatches(clients.client, [`/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${PARENT.plural}`], stop.signal);
    await established;
    try {
      await applyParent(name, {});
      const first = await readyWhen(name, (c) => c.reason === 'ChildrenNotReady' && /PersistentVolumeClaim/.test(c.message ?? '') && /Deployment/.test(c.message ?? ''), 'Ready=False naming the claim and the Deployment');
      expect(first.ready).toMatchObject({ status: 'False', observedGeneration: first.parent.metadata.generation });
      expect(first.ready.message).toContain(`Deployment ${namespace}/${name} is InProgress`);
      expect(first.ready.message).toContain(`PersistentVolumeClaim ${namespace}/${name}-data is InProgress`);
      expect(first.ready.message).not.toContain('ConfigMap');

      const claim = await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: `${name}-data` }), 'the claim');
      await clients.writer.replaceStatus({ ...claim, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } });
      const bound = await readyWhen(name, (c) => c.reason === 'ChildrenNotReady' && !/PersistentVolumeClaim/.test(c.message ?? ''), 'Ready=False naming the Deployment alone');
      expect(bound.ready.message).toContain(`Deployment ${namespace}/${name} is InProgress`);

      await reportPods(clients, namespace, `app=${name}`, 'Running');
      const converged = await readyWhen(name, (c) => c.status === 'True', 'Ready=True');
      expect(converged.ready).toMatchObject({ reason: 'ChildrenReady', message: '3 children are ready', observedGeneration: converged.parent.metadata.generation });
      expect((converged.parent.status as { hook?: string }).hook).toBe('ok');

      // Syncs the test brings about by annotating the parent, each seen in the ConfigMap it updates.
      const loomWrites = await parentWritesOverSyncs({
        seen, name, since: converged.parent.metadata.resourceVersion,
        poke: (poke) => applyParent(name, {}, { poke }),
        pokeSeen: async () => ((await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` }))?.data as { poke?: string } | undefined)?.poke,
      });
      expect(loomWrites.map((e) => e.object.status), 'status writes after convergence').toEqual([]);
      const after = parentReadyOf(await getParent(name));
      expect(after).toEqual(converged.ready);

      await applyParent(name, { broken: true });
      const failed = await readyWhen(name, (c, parent) => c.reason === 'WriteFailed' && c.observedGeneration === parent.metadata.generation, 'Ready=False WriteFailed');
      expect(failed.ready.status).toBe('False');
      expect(failed.parent.metadata.generation).toBe(2);
      expect(failed.ready.message).toContain(`${name}-config`);

      await applyParent(name, {});
      const mended = await readyWhen(name, (c, parent) => c.status === 'True' && c.observedGeneration === parent.metadata.generation, 'Ready=True once the write lands');
      expect(mended.ready.reason).toBe('ChildrenReady');
      expect(mended.parent.metadata.generation).toBe(3);
    } finally {
      stop.abort();
    }
  });
});
