/**
 * The shelf's configmap-propagation controller (controllers/configmap-propagation/) on the real control
 * plane, applied exactly as shipped but for the test label: a cluster-scoped ConfigMapPropagation copies
 * its source ConfigMap (a related object, chosen by the customize hook) into its target namespaces,
 * owned by it; the copies follow the source in place, are kept while the source is missing, and go
 * with their namespace's removal from the list or the propagation's deletion.
 *
 * Propagations are cluster-scoped, so each case uses its own propagation and source name
 * (`loom-it-…`); the namespaces are this file's own; the host runs only controllers labelled
 * `loom-test: configmap-propagation`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { eventuallyGone, objectWhen, shelfManifest, startShelfHost, statusWhen, stopAndDeleteParents, syncErrorMessages } from './support/shelf.ts';

const LABEL = 'configmap-propagation';
/** The shelf folder: `controllers/configmap-propagation/`. */
const SHELF = 'configmap-propagation';
const API_VERSION = 'config.loom.dev/v1';
const KIND = 'ConfigMapPropagation';

let clients: TestClients;
let loom: TestLoom;
let source: string;
let teamA: string;
let teamB: string;
const propagations: string[] = [];

interface PropagationStatus {
  sourceFound?: boolean;
  targets?: number;
  copies?: number;
  ready?: number;
  observedGeneration?: number;
}

/** The shipped example under another name, copying `sourceName` from this file's source namespace. */
async function applyPropagation(name: string, sourceName: string, targetNamespaces: string[]): Promise<KubeObject> {
  const example = await shelfManifest(SHELF, 'propagation.yaml');
  if (!propagations.includes(name)) propagations.push(name);
  return clients.apply({ ...example, metadata: { name }, spec: { source: { namespace: source, name: sourceName }, targetNamespaces } });
}

const applySource = (name: string, data: Record<string, string>, binaryData?: Record<string, string>) =>
  clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: source }, data, ...(binaryData ? { binaryData } : {}) });
const propagation = (name: string) => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, name });
const configMap = (namespace: string, name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const copyGone = (namespace: string, name: string) => eventuallyGone(() => configMap(namespace, name), `the copy in ${namespace} to be deleted`);

/** The propagation's status once `accept` holds for it. */
const propagationWhen = (name: string, accept: (status: PropagationStatus) => boolean, what: string) =>
  statusWhen(() => propagation(name), accept, what);

/** The copy in `namespace` once it holds `data`. */
function copyWith(namespace: string, name: string, data: Record<string, string>): Promise<KubeObject> {
  const holds = (copy: KubeObject) => JSON.stringify(copy.data) === JSON.stringify(data);
  return objectWhen(() => configMap(namespace, name), holds, `the copy ${namespace}/${name} to hold ${JSON.stringify(data)}`);
}

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [source, teamA, teamB] = await Promise.all([createTestNamespace(kc, 'cmp-source'), createTestNamespace(kc, 'cmp-team-a'), createTestNamespace(kc, 'cmp-team-b')]);
  loom = await startShelfHost(clients, SHELF, LABEL);
});

afterAll(async () => {
  await stopAndDeleteParents(loom, clients, { apiVersion: API_VERSION, kind: KIND, names: propagations });
});

describe('the configmap-propagation controller', () => {
  it('copies the source into every target namespace, owned by the propagation, and follows its changes in place', async () => {
    await applySource('loom-it-settings', { mode: 'blue' }, { 'logo.png': 'iVBORw0KGgo=' });
    // The source's own namespace in the list is skipped: a copy there would be the source itself.
    const parent = await applyPropagation('loom-it-copy', 'loom-it-settings', [teamA, source, teamB]);
    const owner = [{ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-copy', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const copies = await Promise.all([teamA, teamB].map((ns) => eventually(() => configMap(ns, 'loom-it-settings'), `the copy in ${ns}`)));
    for (const copy of copies) {
      expect(copy.metadata.ownerReferences).toEqual(owner);
      expect(copy.metadata.labels).toMatchObject({ 'config.loom.dev/propagation': 'loom-it-copy' });
      expect(copy.data).toEqual({ mode: 'blue' });
      expect(copy.binaryData).toEqual({ 'logo.png': 'iVBORw0KGgo=' });
    }
    const status = await propagationWhen('loom-it-copy', (s) => s.ready === 2, 'both copies to be ready');
    expect(status).toEqual({ sourceFound: true, targets: 2, copies: 2, ready: 2, observedGeneration: 1 });
    // The source is related, not a child: loom neither claims nor labels it.
    expect((await configMap(source, 'loom-it-settings'))?.metadata.ownerReferences).toBeUndefined();

    // The test's field manager drops binaryData: the copies drop it too.
    await applySource('loom-it-settings', { mode: 'green', extra: 'yes' });
    for (const before of copies) {
      const after = await copyWith(before.metadata.namespace!, 'loom-it-settings', { extra: 'yes', mode: 'green' });
      expect(after.metadata.uid).toBe(before.metadata.uid);
      expect(after.binaryData).toBeUndefined();
    }
    expect(await propagationWhen('loom-it-copy', (s) => s.ready === 2, 'both copies to be ready again')).toMatchObject({ sourceFound: true });
  });

  it('deletes the copy of a namespace removed from targetNamespaces, and only that one', async () => {
    await applySource('loom-it-removal', { k: 'v' });
    await applyPropagation('loom-it-remove', 'loom-it-removal', [teamA, teamB]);
    await propagationWhen('loom-it-remove', (s) => s.ready === 2, 'both copies to be ready');
    const keptUid = (await configMap(teamA, 'loom-it-removal'))?.metadata.uid;

    await applyPropagation('loom-it-remove', 'loom-it-removal', [teamA]);
    await copyGone(teamB, 'loom-it-removal');
    const status = await propagationWhen('loom-it-remove', (s) => s.targets === 1, 'one target left');
    expect(status).toEqual({ sourceFound: true, targets: 1, copies: 1, ready: 1, observedGeneration: 2 });
    expect((await configMap(teamA, 'loom-it-removal'))?.metadata.uid).toBe(keptUid);
  });

  it('writes the other copies when a target namespace does not exist, and reports the failure', async () => {
    await applySource('loom-it-partial', { k: 'v' });
    await applyPropagation('loom-it-partial', 'loom-it-partial', [teamA, 'cmp-no-such-namespace', teamB]);
    const status = await propagationWhen('loom-it-partial', (s) => s.ready === 2, 'the two possible copies to be ready');
    // One copy cannot be written, so generation 1 is not observed: no observedGeneration yet.
    expect(status).toEqual({ sourceFound: true, targets: 3, copies: 2, ready: 2 });
    const [message] = await syncErrorMessages(clients, { kind: KIND, name: 'loom-it-partial' });
    expect(message).toMatch(/cmp-no-such-namespace/);
  });

  it('keeps the copies while the source is missing, and follows the source again once it is back', async () => {
    await applySource('loom-it-fragile', { version: '1' });
    await applyPropagation('loom-it-missing', 'loom-it-fragile', [teamA, teamB]);
    await propagationWhen('loom-it-missing', (s) => s.ready === 2, 'both copies to be ready');
    const before = await Promise.all([teamA, teamB].map((ns) => configMap(ns, 'loom-it-fragile')));

    expect(await clients.writer.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: source, name: 'loom-it-fragile' })).toBe(true);
    // Status is written after the children of the same sync: once it says the source is gone, that
    // sync has already left the copies as they were.
    const status = await propagationWhen('loom-it-missing', (s) => s.sourceFound === false, 'the source to be reported missing');
    expect(status).toEqual({ sourceFound: false, targets: 2, copies: 2, ready: 0, observedGeneration: 1 });
    const during = await Promise.all([teamA, teamB].map((ns) => configMap(ns, 'loom-it-fragile')));
    expect(during.map((cm) => [cm?.metadata.uid, cm?.data])).toEqual(before.map((cm) => [cm?.metadata.uid, { version: '1' }]));

    await applySource('loom-it-fragile', { version: '2' });
    for (const copy of before) {
      const after = await copyWith(copy!.metadata.namespace!, 'loom-it-fragile', { version: '2' });
      expect(after.metadata.uid).toBe(copy!.metadata.uid);
    }
    expect(await propagationWhen('loom-it-missing', (s) => s.sourceFound === true && s.ready === 2, 'the source to be found again')).toMatchObject({ copies: 2 });
  });

  it('has its copies garbage-collected when the propagation is deleted', async () => {
    await applySource('loom-it-doomed', { k: 'v' });
    await applyPropagation('loom-it-delete', 'loom-it-doomed', [teamA, teamB]);
    await propagationWhen('loom-it-delete', (s) => s.ready === 2, 'both copies to be ready');

    expect(await clients.writer.delete({ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-delete' })).toBe(true);
    await Promise.all([teamA, teamB].map((ns) => copyGone(ns, 'loom-it-doomed')));
    expect(await configMap(source, 'loom-it-doomed')).toBeDefined();
  });
});
