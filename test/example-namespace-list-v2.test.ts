/**
 * The namespace-list-v2 example (examples/namespace-list-v2/) on the real control plane: its hook runs
 * as its own process (`node examples/namespace-list-v2/hook.ts`) and the shipped controller is pointed
 * at it. A namespaced NamespaceInventory reads cluster-scoped Namespaces as related objects (hook
 * version v2) and reports the names its selector matches, following namespaces that gain or lose the
 * label; without a selector it lists every namespace. The same controller with v1 hooks is given no
 * namespaces at all.
 *
 * The parents live in this file's namespace; the selected namespaces carry a label of this file's own;
 * the host runs only controllers labelled `loom-test: example-namespace-list-v2`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { statusWhen } from './support/shelf.ts';

const LABEL = 'example-namespace-list-v2';
const EXAMPLE = 'namespace-list-v2';
const API_VERSION = 'examples.loom.dev/v1';
const KIND = 'NamespaceInventory';
/** The namespace label this file's NamespaceInventory selects. */
const MEMBER = 'namespace-list-test/member';

let clients: TestClients;
let running: RunningExample | undefined;
let controller: KubeObject;
let home: string;
let a: string;
let b: string;
let c: string;

interface NamespaceInventoryStatus {
  namespaces?: string[];
  count?: number;
  observedGeneration?: number;
}

/** The shipped example NamespaceInventory under another name in this file's namespace, with `spec`. */
async function applyList(name: string, spec: Record<string, unknown>): Promise<KubeObject> {
  const [example] = await exampleManifests(EXAMPLE, 'namespaceinventory.yaml');
  return clients.apply({ ...example!, metadata: { name, namespace: home }, spec });
}

const labelNamespace = (name: string, member: boolean) =>
  clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: member ? { [MEMBER]: 'yes' } : {} } });
const listWhen = (name: string, accept: (status: NamespaceInventoryStatus) => boolean, what: string) =>
  statusWhen(() => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, namespace: home, name }), accept, what);
/** The status of `name` once it lists exactly `expected`. */
const listing = (name: string, expected: string[]) =>
  listWhen(name, (s) => JSON.stringify(s.namespaces) === JSON.stringify(expected), `${name} to list ${expected.join(', ')}`);

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [home, a, b, c] = await Promise.all([createTestNamespace(kc, 'nl-home'), createTestNamespace(kc, 'nl-a'), createTestNamespace(kc, 'nl-b'), createTestNamespace(kc, 'nl-c')]);
  await Promise.all([a, b].map((ns) => labelNamespace(ns, true)));
  running = await startExample(clients, EXAMPLE, { label: LABEL });
  [controller] = running.controllers as [KubeObject];
});

afterAll(async () => {
  await running?.stop();
});

describe('the namespace-list-v2 example', () => {
  const members = () => [a, b].sort();

  it('lists the namespaces its selector matches, sorted, and makes no children', async () => {
    const parent = await applyList('members', { labelSelector: { matchLabels: { [MEMBER]: 'yes' } } });
    expect(await listing('members', members())).toEqual({ namespaces: members(), count: 2, observedGeneration: 1 });
    const children = await clients.client.request<{ items: KubeObject[] }>({
      method: 'GET', path: `/api/v1/namespaces/${home}/configmaps`, query: { labelSelector: `controller-uid=${parent.metadata.uid}` },
    });
    expect(children.items).toEqual([]);
  });

  it('follows a namespace gaining and losing the label', async () => {
    await listing('members', members());
    await labelNamespace(c, true);
    expect(await listing('members', [a, b, c].sort())).toMatchObject({ count: 3 });
    await labelNamespace(c, false);
    expect(await listing('members', members())).toMatchObject({ count: 2 });
  });

  it('lists every namespace without a selector', async () => {
    await applyList('everything', {});
    const expected = [home, a, b, c, 'default', 'kube-system'];
    const status = await listWhen('everything', (s) => expected.every((ns) => s.namespaces?.includes(ns)), `everything to list ${expected.join(', ')}`);
    expect(status.namespaces).toEqual([...status.namespaces!].sort());
    expect(status.count).toBe(status.namespaces!.length);
  });

  // Last: it changes the controller for every parent of this file.
  it('is given no namespaces when its hooks are version v1', async () => {
    const spec = controller.spec as { hooks: Record<string, { version?: string }> };
    const hooks = Object.fromEntries(Object.entries(spec.hooks).map(([name, h]) => [name, { ...h, version: 'v1' }]));
    await clients.apply({ ...controller, spec: { ...spec, hooks } });
    expect(await listing('members', [])).toMatchObject({ count: 0 });
  });
});
