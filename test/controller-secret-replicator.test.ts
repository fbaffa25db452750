/**
 * The shelf's secret-replicator controller (controllers/secret-replicator/) on the real control plane,
 * applied exactly as shipped but for the test label: a cluster-scoped SecretReplication copies its
 * source Secret into every namespace its selector matches (source and namespaces are related objects,
 * chosen by the customize hook), owned by it; the copies follow the source in place, come and go with
 * a namespace's label, are kept while the source is missing, and go with the replication.
 *
 * Replications are cluster-scoped, so each case uses its own replication and source name
 * (`loom-it-…`); the namespaces and their selector label are this file's own; the host runs only
 * controllers labelled `loom-test: secret-replicator`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { eventuallyGone, secretHolding, shelfManifest, startShelfHost, statusWhen, stopAndDeleteParents } from './support/shelf.ts';

const LABEL = 'secret-replicator';
/** The shelf folder: `controllers/secret-replicator/`. */
const SHELF = 'secret-replicator';
const API_VERSION = 'secrets.loom.dev/v1';
const KIND = 'SecretReplication';
/** The namespace label this file's replications select. */
const SELECT = 'secret-replicator-test/replica';

let clients: TestClients;
let loom: TestLoom;
let source: string;
let red: string;
let green: string;
let late: string;
const replications: string[] = [];

interface ReplicationStatus {
  sourceFound?: boolean;
  namespaces?: number;
  copies?: number;
  replicated?: number;
  observedGeneration?: number;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The shipped example under another name, copying `sourceName` into the namespaces labelled {@link SELECT}. */
async function applyReplication(name: string, sourceName: string): Promise<KubeObject> {
  const example = await shelfManifest(SHELF, 'replication.yaml');
  if (!replications.includes(name)) replications.push(name);
  const spec = { source: { namespace: source, name: sourceName }, namespaceSelector: { matchLabels: { [SELECT]: 'yes' } } };
  return clients.apply({ ...example, metadata: { name }, spec });
}

const applySource = (name: string, data: Record<string, string>, type = 'Opaque') =>
  clients.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: source }, type, data });
const deleteSource = (name: string) => clients.writer.delete({ apiVersion: 'v1', kind: 'Secret', namespace: source, name });
const labelNamespace = (name: string, selected: boolean) =>
  clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: selected ? { [SELECT]: 'yes' } : {} } });
const replication = (name: string) => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, name });
const secret = (namespace: string, name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
const copyGone = (namespace: string, name: string) => eventuallyGone(() => secret(namespace, name), `the copy in ${namespace} to be deleted`);

/** The replication's status once `accept` holds for it. */
const replicationWhen = (name: string, accept: (status: ReplicationStatus) => boolean, what: string) =>
  statusWhen(() => replication(name), accept, what);

/** The copy in `namespace` once it holds `data` with `type`. */
const copyWith = (namespace: string, name: string, data: Record<string, string>, type?: string) => secretHolding(clients, { namespace, name }, data, type);

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [source, red, green, late] = await Promise.all([
    createTestNamespace(kc, 'sr-source'), createTestNamespace(kc, 'sr-red'), createTestNamespace(kc, 'sr-green'), createTestNamespace(kc, 'sr-late'),
  ]);
  // The source's namespace matches too: it is skipped, its Secret is the source itself.
  await Promise.all([source, red, green].map((ns) => labelNamespace(ns, true)));
  loom = await startShelfHost(clients, SHELF, LABEL);
});

afterAll(async () => {
  await stopAndDeleteParents(loom, clients, { apiVersion: API_VERSION, kind: KIND, names: replications });
});

describe('the secret-replicator controller', () => {
  it('copies the source into every selected namespace, owned by the replication, and follows its changes in place', async () => {
    await applySource('loom-it-token', { token: b64('first') });
    const parent = await applyReplication('loom-it-replicate', 'loom-it-token');
    const owner = [{ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-replicate', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const copies = await Promise.all([red, green].map((ns) => eventually(() => secret(ns, 'loom-it-token'), `the copy in ${ns}`)));
    for (const copy of copies) {
      expect(copy.metadata.ownerReferences).toEqual(owner);
      expect(copy.metadata.labels).toMatchObject({ 'secrets.loom.dev/replication': 'loom-it-replicate' });
      expect(copy.type).toBe('Opaque');
      expect(copy.data).toEqual({ token: b64('first') });
    }
    const status = await replicationWhen('loom-it-replicate', (s) => s.replicated === 2, 'both copies to be replicated');
    expect(status).toEqual({ sourceFound: true, namespaces: 2, copies: 2, replicated: 2, observedGeneration: 1 });
    expect(JSON.stringify(status)).not.toContain(b64('first'));
    // Not in an unselected namespace; the source itself is related, not a child: neither claimed nor labelled.
    expect(await secret(late, 'loom-it-token')).toBeUndefined();
    expect((await secret(source, 'loom-it-token'))?.metadata.ownerReferences).toBeUndefined();

    await applySource('loom-it-token', { token: b64('second'), extra: b64('more') });
    for (const before of copies) {
      const after = await copyWith(before.metadata.namespace!, 'loom-it-token', { extra: b64('more'), token: b64('second') });
      expect(after.metadata.uid).toBe(before.metadata.uid);
    }
    expect(await replicationWhen('loom-it-replicate', (s) => s.replicated === 2, 'both copies to be replicated again')).toMatchObject({ sourceFound: true });
  });

  it('copies into a namespace that comes to match the selector, and deletes the copy when it stops matching', async () => {
    await applySource('loom-it-follow', { token: b64('follow') });
    await applyReplication('loom-it-follow', 'loom-it-follow');
    await replicationWhen('loom-it-follow', (s) => s.replicated === 2, 'both copies to be replicated');

    await labelNamespace(late, true);
    const copy = await copyWith(late, 'loom-it-follow', { token: b64('follow') });
    expect(copy.metadata.labels).toMatchObject({ 'secrets.loom.dev/replication': 'loom-it-follow' });
    expect(await replicationWhen('loom-it-follow', (s) => s.replicated === 3, 'three copies')).toMatchObject({ namespaces: 3, copies: 3 });

    await labelNamespace(late, false);
    await copyGone(late, 'loom-it-follow');
    expect(await replicationWhen('loom-it-follow', (s) => s.namespaces === 2, 'two namespaces again')).toMatchObject({ copies: 2, replicated: 2 });
    expect(await secret(red, 'loom-it-follow')).toBeDefined();
  });

  it('keeps the copies while the source is missing, and remakes them when it comes back with another type', async () => {
    await applySource('loom-it-fragile', { token: b64('v1') });
    await applyReplication('loom-it-missing', 'loom-it-fragile');
    await replicationWhen('loom-it-missing', (s) => s.replicated === 2, 'both copies to be replicated');
    const before = await Promise.all([red, green].map((ns) => secret(ns, 'loom-it-fragile')));

    expect(await deleteSource('loom-it-fragile')).toBe(true);
    // Status is written after the children of the same sync: once it says the source is gone, that
    // sync has already left the copies as they were.
    const status = await replicationWhen('loom-it-missing', (s) => s.sourceFound === false, 'the source to be reported missing');
    expect(status).toEqual({ sourceFound: false, namespaces: 2, copies: 2, replicated: 0, observedGeneration: 1 });
    const during = await Promise.all([red, green].map((ns) => secret(ns, 'loom-it-fragile')));
    expect(during.map((s) => [s?.metadata.uid, s?.type, s?.data])).toEqual(before.map((s) => [s?.metadata.uid, 'Opaque', { token: b64('v1') }]));

    // A Secret's type is immutable: the copies of the old type are deleted and made again.
    await applySource('loom-it-fragile', { token: b64('v2') }, 'example.com/token');
    for (const old of before) {
      const remade = await copyWith(old!.metadata.namespace!, 'loom-it-fragile', { token: b64('v2') }, 'example.com/token');
      expect(remade.metadata.uid).not.toBe(old!.metadata.uid);
    }
    expect(await replicationWhen('loom-it-missing', (s) => s.sourceFound === true && s.replicated === 2, 'the copies to be remade')).toMatchObject({ copies: 2 });
  });

  it('has its copies garbage-collected when the replication is deleted', async () => {
    await applySource('loom-it-doomed', { token: b64('doomed') });
    await applyReplication('loom-it-delete', 'loom-it-doomed');
    await replicationWhen('loom-it-delete', (s) => s.replicated === 2, 'both copies to be replicated');

    expect(await clients.writer.delete({ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-delete' })).toBe(true);
    await Promise.all([red, green].map((ns) => copyGone(ns, 'loom-it-doomed')));
    expect(await secret(source, 'loom-it-doomed')).toBeDefined();
  });
});
