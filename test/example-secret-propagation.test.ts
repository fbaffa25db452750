/**
 * The secret-propagation example (examples/secret-propagation/) on the real control plane: its hook
 * runs as its own process (`node examples/secret-propagation/hook.ts`) and the shipped controller is
 * pointed at it. A cluster-scoped SecretPropagation copies its source Secret into every namespace its
 * label selector matches (source and namespaces are related objects, chosen by the customize hook),
 * owned by it; a namespace gaining the label gets a copy, one losing it loses the copy; the copies
 * follow the source, go with it, and go with the propagation.
 *
 * Propagations are cluster-scoped, so each case uses its own propagation and source name
 * (`loom-it-…`); the namespaces and their selector label are this file's own; the host runs only
 * controllers labelled `loom-test: example-secret-propagation`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { eventuallyGone, secretHolding, statusWhen, stopAndDeleteParents } from './support/shelf.ts';

const LABEL = 'example-secret-propagation';
const EXAMPLE = 'secret-propagation';
const API_VERSION = 'examples.loom.dev/v1';
const KIND = 'SecretPropagation';
/** The namespace label this file's propagations select. */
const SELECT = 'secret-propagation-test/copy';

let clients: TestClients;
let running: RunningExample | undefined;
let source: string;
let red: string;
let green: string;
let late: string;
const propagations: string[] = [];

interface PropagationStatus {
  expected_copies?: number;
  actual_copies?: number;
  observedGeneration?: number;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The shipped example propagation under another name, copying `sourceName` into the namespaces labelled {@link SELECT}. */
async function applyPropagation(name: string, sourceName: string): Promise<KubeObject> {
  const [example] = await exampleManifests(EXAMPLE, 'secretpropagation.yaml');
  if (!propagations.includes(name)) propagations.push(name);
  const spec = { sourceName, sourceNamespace: source, targetNamespaceLabelSelector: { matchLabels: { [SELECT]: 'yes' } } };
  return clients.apply({ ...example!, metadata: { name }, spec });
}

const applySource = (name: string, data: Record<string, string>, type = 'Opaque') =>
  clients.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: source }, type, data });
const labelNamespace = (name: string, selected: boolean) =>
  clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: selected ? { [SELECT]: 'yes' } : {} } });
const secret = (namespace: string, name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
const copyGone = (namespace: string, name: string) => eventuallyGone(() => secret(namespace, name), `the copy in ${namespace} to be deleted`);
const propagationWhen = (name: string, accept: (status: PropagationStatus) => boolean, what: string) =>
  statusWhen(() => clients.writer.get({ apiVersion: API_VERSION, kind: KIND, name }), accept, what);

/** The copy in `namespace` once it holds `data` with `type`. */
const copyWith = (namespace: string, name: string, data: Record<string, string>, type?: string) => secretHolding(clients, { namespace, name }, data, type);

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [source, red, green, late] = await Promise.all([
    createTestNamespace(kc, 'sp-source'), createTestNamespace(kc, 'sp-red'), createTestNamespace(kc, 'sp-green'), createTestNamespace(kc, 'sp-late'),
  ]);
  // The source's namespace matches too: it is skipped, its Secret is the source itself.
  await Promise.all([source, red, green].map((ns) => labelNamespace(ns, true)));
  running = await startExample(clients, EXAMPLE, { label: LABEL });
});

afterAll(async () => {
  await stopAndDeleteParents(running?.loom, clients, { apiVersion: API_VERSION, kind: KIND, names: propagations });
  await running?.stop();
});

describe('the secret-propagation example', () => {
  it('copies the source into every selected namespace but its own, owned by the propagation, and follows it in place', async () => {
    await applySource('loom-it-token', { token: b64('first') });
    const parent = await applyPropagation('loom-it-propagate', 'loom-it-token');
    const owner = [{ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-propagate', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const copies = await Promise.all([red, green].map((ns) => copyWith(ns, 'loom-it-token', { token: b64('first') })));
    for (const copy of copies) expect(copy.metadata.ownerReferences).toEqual(owner);
    const status = await propagationWhen('loom-it-propagate', (s) => s.actual_copies === 2, 'both copies to be counted');
    expect(status).toEqual({ expected_copies: 2, actual_copies: 2, observedGeneration: 1 });
    expect(await secret(late, 'loom-it-token')).toBeUndefined();
    expect((await secret(source, 'loom-it-token'))?.metadata.ownerReferences).toBeUndefined();

    await applySource('loom-it-token', { token: b64('second') });
    for (const before of copies) {
      const after = await copyWith(before.metadata.namespace!, 'loom-it-token', { token: b64('second') });
      expect(after.metadata.uid).toBe(before.metadata.uid);
    }
  });

  it('copies into a namespace that gains the label, and deletes the copy when it loses it', async () => {
    await applySource('loom-it-follow', { token: b64('follow') });
    await applyPropagation('loom-it-follow', 'loom-it-follow');
    await propagationWhen('loom-it-follow', (s) => s.actual_copies === 2, 'both copies to be counted');

    await labelNamespace(late, true);
    await copyWith(late, 'loom-it-follow', { token: b64('follow') });
    expect(await propagationWhen('loom-it-follow', (s) => s.actual_copies === 3, 'three copies')).toMatchObject({ expected_copies: 3 });

    await labelNamespace(late, false);
    await copyGone(late, 'loom-it-follow');
    expect(await propagationWhen('loom-it-follow', (s) => s.expected_copies === 2, 'two namespaces again')).toMatchObject({ actual_copies: 2 });
    expect(await secret(red, 'loom-it-follow')).toBeDefined();
  });

  it('deletes the copies with the source, and makes them again when it comes back with another type', async () => {
    await applySource('loom-it-fragile', { token: b64('v1') });
    await applyPropagation('loom-it-fragile', 'loom-it-fragile');
    await propagationWhen('loom-it-fragile', (s) => s.actual_copies === 2, 'both copies to be counted');

    expect(await clients.writer.delete({ apiVersion: 'v1', kind: 'Secret', namespace: source, name: 'loom-it-fragile' })).toBe(true);
    await Promise.all([red, green].map((ns) => copyGone(ns, 'loom-it-fragile')));

    await applySource('loom-it-fragile', { token: b64('v2') }, 'example.com/token');
    await Promise.all([red, green].map((ns) => copyWith(ns, 'loom-it-fragile', { token: b64('v2') }, 'example.com/token')));
  });

  it('has its copies garbage-collected when the propagation is deleted', async () => {
    await applySource('loom-it-doomed', { token: b64('doomed') });
    await applyPropagation('loom-it-doomed', 'loom-it-doomed');
    await propagationWhen('loom-it-doomed', (s) => s.actual_copies === 2, 'both copies to be counted');

    expect(await clients.writer.delete({ apiVersion: API_VERSION, kind: KIND, name: 'loom-it-doomed' })).toBe(true);
    await Promise.all([red, green].map((ns) => copyGone(ns, 'loom-it-doomed')));
    expect(await secret(source, 'loom-it-doomed')).toBeDefined();
  });
});
