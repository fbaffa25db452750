/**
 * The global-configmap example (examples/global-configmap/) on the real control plane: its hook runs
 * as its own process (`node examples/global-configmap/hook.ts`) and the shipped controller is pointed
 * at it. A cluster-scoped GlobalConfigMap copies its source into every namespace (the source and
 * all namespaces are related objects, chosen by the customize hook), including one created
 * afterwards; the copies follow the source in place and go with the GlobalConfigMap.
 *
 * The copies land in every namespace of the shared control plane, other test files' too, so they carry
 * a name of this file's own (`loom-it-global-…`) and the GlobalConfigMap is deleted as soon as the
 * cases are done. The host runs only controllers labelled `loom-test: example-global-configmap`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { eventuallyGone, objectWhen, statusWhen, stopAndDeleteParents } from './support/shelf.ts';

const LABEL = 'example-global-configmap';
const EXAMPLE = 'global-configmap';
const API_VERSION = 'examples.loom.dev/v1';
const KIND = 'GlobalConfigMap';
const PARENT = 'loom-it-global';
const SOURCE = 'loom-it-global-settings';

let clients: TestClients;
let running: RunningExample | undefined;
let source: string;
let first: string;
let second: string;

interface GlobalStatus {
  expected_copies?: number;
  actual_copies?: number;
  observedGeneration?: number;
}

const applySource = (data: Record<string, string>) =>
  clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: SOURCE, namespace: source }, data });
const configMap = (namespace: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: SOURCE });
const parentWhen = (accept: (status: GlobalStatus) => boolean, what: string) =>
  statusWhen(() => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, name: PARENT }), accept, what);

/** The copy in `namespace` once it holds `data`. */
const copyWith = (namespace: string, data: Record<string, string>) =>
  objectWhen(() => configMap(namespace), (cm) => JSON.stringify(cm.data) === JSON.stringify(data), `the copy in ${namespace} to hold ${JSON.stringify(data)}`);

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [source, first, second] = await Promise.all([createTestNamespace(kc, 'gcm-source'), createTestNamespace(kc, 'gcm-first'), createTestNamespace(kc, 'gcm-second')]);
  running = await startExample(clients, EXAMPLE, { label: LABEL });
});

afterAll(async () => {
  await stopAndDeleteParents(running?.loom, clients, { apiVersion: API_VERSION, kind: KIND, names: [PARENT] });
  await running?.stop();
});

// The cases are stages of one GlobalConfigMap's life and run in order.
describe('the global-configmap example', () => {
  let parent: KubeObject;
  let copies: KubeObject[];

  it('copies the source into every namespace but its own, owned by the GlobalConfigMap', async () => {
    await applySource({ region: 'eu' });
    const [example] = await exampleManifests(EXAMPLE, 'globalconfigmap.yaml');
    parent = await clients.apply({ ...example!, metadata: { name: PARENT }, spec: { sourceName: SOURCE, sourceNamespace: source } });
    const owner = [{ apiVersion: API_VERSION, kind: KIND, name: PARENT, uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    copies = await Promise.all([first, second, 'default', 'kube-system'].map((ns) => copyWith(ns, { region: 'eu' })));
    for (const copy of copies) expect(copy.metadata.ownerReferences).toEqual(owner);
    expect((await configMap(source))?.metadata.ownerReferences).toBeUndefined();
    // Every namespace of the shared control plane counts, so the numbers are not this file's to know.
    const status = await parentWhen((s) => (s.actual_copies ?? 0) >= copies.length, 'the copies to be counted');
    expect(status.expected_copies).toBeGreaterThanOrEqual(copies.length);
    expect(status.observedGeneration).toBe(1);
  });

  it('copies the source into a namespace created afterwards', async () => {
    const late = await createTestNamespace(testKubeConfig(), 'gcm-late');
    const copy = await copyWith(late, { region: 'eu' });
    expect(copy.metadata.ownerReferences?.[0]?.uid).toBe(parent.metadata.uid);
    copies.push(copy);
  });

  it('updates the copies in place when the source changes', async () => {
    await applySource({ region: 'us' });
    for (const before of copies) {
      const after = await copyWith(before.metadata.namespace!, { region: 'us' });
      expect(after.metadata.uid).toBe(before.metadata.uid);
    }
  });

  it('has its copies garbage-collected when the GlobalConfigMap is deleted', async () => {
    expect(await clients.writer.delete({ apiVersion: API_VERSION, kind: KIND, name: PARENT })).toBe(true);
    await Promise.all(copies.map((copy) => eventuallyGone(() => configMap(copy.metadata.namespace!), `the copy in ${copy.metadata.namespace} to be deleted`)));
    expect(await configMap(source)).toBeDefined();
  });
});
