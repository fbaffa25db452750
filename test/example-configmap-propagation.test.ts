/**
 * The configmap-propagation example (examples/configmap-propagation/) on the real control plane: its
 * hook runs as its own process (`node examples/configmap-propagation/hook.ts`) and the shipped
 * controller is pointed at it. A cluster-scoped ConfigMapPropagation copies its source (a related
 * object, chosen by the customize hook) into the listed namespaces, owned by it; the copies follow
 * the source in place and go with a namespace leaving the list, with the source, and with the
 * propagation.
 *
 * Propagations are cluster-scoped, so each case uses its own propagation and source name
 * (`loom-it-…`); the host runs only controllers labelled `loom-test: example-configmap-propagation`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { eventuallyGone, objectWhen, statusWhen, stopAndDeleteParents } from './support/shelf.ts';

const LABEL = 'example-configmap-propagation';
const EXAMPLE = 'configmap-propagation';
const API_VERSION = 'examples.loom.dev/v1';
const KIND = 'ConfigMapPropagation';

let clients: TestClients;
let running: RunningExample | undefined;
let source: string;
let one: string;
let two: string;
const propagations: string[] = [];

interface PropagationStatus {
  expected_copies?: number;
  actual_copies?: number;
  observedGeneration?: number;
}

/** The shipped example propagation under another name, copying `sourceName` into `targets`. */
async function applyPropagation(name: string, sourceName: string, targets: string[]): Promise<KubeObject> {
  const [example] = await exampleManifests(EXAMPLE, 'propagation.yaml');
  if (!propagations.includes(name)) propagations.push(name);
  return clients.apply({ ...example!, metadata: { name }, spec: { sourceName, sourceNamespace: source, targetNamespaces: targets } });
}

const applySource = (name: string, data: Record<string, string>) =>
  clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: source }, data });
const configMap = (namespace: string, name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const propagationWhen = (name: string, accept: (status: PropagationStatus) => boolean, what: string) =>
  statusWhen(() => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, name }), accept, what);

/** The copy in `namespace` once it holds `data`. */
const copyWith = (namespace: string, name: string, data: Record<string, string>) =>
  objectWhen(() => configMap(namespace, name), (cm) => JSON.stringify(cm.data) === JSON.stringify(data), `the copy ${namespace}/${name} to hold ${JSON.stringify(data)}`);
const copyGone = (namespace: string, name: string) => eventuallyGone(() => configMap(namespace, name), `the copy in ${namespace} to be deleted`);

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [source, one, two] = await Promise.all([createTestNamespace(kc, 'cmp-source'), createTestNamespace(kc, 'cmp-one'), createTestNamespace(kc, 'cmp-two')]);
  running = await startExample(clients, EXAMPLE, { label: LABEL });
});

afterAll(async () => {
  await stopAndDeleteParents(running?.loom, clients, { apiVersion: API_VERSION, kind: KIND, names: propagations });
  await running?.stop();
});

describe('the configmap-propagation example', () => {
  it('copies the source into each listed namespace but its own, owned by the propagation, and follows it in place', async () => {
    await applySource('loom-it-settings', { region: 'eu' });
    // The source's own namespace is listed too: it is skipped, the source is related, not a child.
    const parent = await applyPropagation('loom-it-propagate', 'loom-it-settings', [one, two, source]);
    const owner = [{ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-propagate', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const copies = await Promise.all([one, two].map((ns) => copyWith(ns, 'loom-it-settings', { region: 'eu' })));
    for (const copy of copies) expect(copy.metadata.ownerReferences).toEqual(owner);
    const status = await propagationWhen('loom-it-propagate', (s) => s.actual_copies === 2, 'both copies to be counted');
    expect(status).toEqual({ expected_copies: 2, actual_copies: 2, observedGeneration: 1 });
    expect((await configMap(source, 'loom-it-settings'))?.metadata.ownerReferences).toBeUndefined();

    await applySource('loom-it-settings', { region: 'us', tier: 'gold' });
    for (const before of copies) {
      const after = await copyWith(before.metadata.namespace!, 'loom-it-settings', { region: 'us', tier: 'gold' });
      expect(after.metadata.uid).toBe(before.metadata.uid);
    }
  });

  it('deletes the copy of a namespace taken off the list', async () => {
    await applySource('loom-it-shrink', { v: '1' });
    await applyPropagation('loom-it-shrink', 'loom-it-shrink', [one, two]);
    await propagationWhen('loom-it-shrink', (s) => s.actual_copies === 2, 'both copies to be counted');

    await applyPropagation('loom-it-shrink', 'loom-it-shrink', [two]);
    await copyGone(one, 'loom-it-shrink');
    expect(await propagationWhen('loom-it-shrink', (s) => s.observedGeneration === 2, 'the new generation')).toEqual({ expected_copies: 1, actual_copies: 1, observedGeneration: 2 });
    expect(await configMap(two, 'loom-it-shrink')).toBeDefined();
  });

  it('deletes the copies with the source, and makes them again when it comes back', async () => {
    await applySource('loom-it-fragile', { v: '1' });
    await applyPropagation('loom-it-fragile', 'loom-it-fragile', [one, two]);
    await propagationWhen('loom-it-fragile', (s) => s.actual_copies === 2, 'both copies to be counted');

    expect(await clients.writer.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: source, name: 'loom-it-fragile' })).toBe(true);
    await Promise.all([one, two].map((ns) => copyGone(ns, 'loom-it-fragile')));
    expect(await propagationWhen('loom-it-fragile', (s) => s.actual_copies === 0, 'no copies to be counted')).toMatchObject({ expected_copies: 2 });

    await applySource('loom-it-fragile', { v: '2' });
    await Promise.all([one, two].map((ns) => copyWith(ns, 'loom-it-fragile', { v: '2' })));
  });

  it('has its copies garbage-collected when the propagation is deleted', async () => {
    await applySource('loom-it-doomed', { v: '1' });
    await applyPropagation('loom-it-doomed', 'loom-it-doomed', [one, two]);
    await eventually(() => configMap(two, 'loom-it-doomed'), 'the copy in the second namespace');

    expect(await clients.writer.delete({ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-doomed' })).toBe(true);
    await Promise.all([one, two].map((ns) => copyGone(ns, 'loom-it-doomed')));
    expect(await configMap(source, 'loom-it-doomed')).toBeDefined();
  });
});
