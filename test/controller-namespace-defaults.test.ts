/**
 * The ready-made `controllers/namespace-defaults` controller, as shipped, on the real control plane:
 * a labelled Namespace gets its ResourceQuota, LimitRange and default-deny NetworkPolicy, owned by the
 * Namespace, and the quota follows the namespace's annotations in place.
 *
 * The shipped parent selector (`loom.dev/defaults: enabled`) only matches the namespaces this file
 * creates; the host runs only controllers labelled `loom-test: namespace-defaults`, so no other test
 * file's host runs this controller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { eventually } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { objectWhen, startShelfHost, stopAndDeleteParents, syncErrorMessages } from './support/shelf.ts';

const LABEL = 'namespace-defaults';
/** The shelf folder: `controllers/namespace-defaults/`. */
const SHELF = 'namespace-defaults';

let clients: TestClients;
let loom: TestLoom;
const created: string[] = [];

beforeAll(async () => {
  clients = await testClients();
  loom = await startShelfHost(clients, SHELF, LABEL);
});

afterAll(async () => {
  await stopAndDeleteParents(loom, clients, { apiVersion: 'v1', kind: 'Namespace', names: created });
});

async function createNamespace(annotations: Record<string, string>): Promise<KubeObject> {
  const ns = await clients.writer.create({
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { generateName: `${LABEL}-`, labels: { 'loom.dev/defaults': 'enabled' }, annotations },
  });
  created.push(ns.metadata.name!);
  return ns;
}

const child = (apiVersion: string, kind: string, namespace: string, name: string) =>
  eventually(() => clients.writer.get({ apiVersion, kind, namespace, name }), `${kind} ${namespace}/${name}`);

const hardOf = (quota: KubeObject | undefined) => (quota?.spec as { hard?: Record<string, string> } | undefined)?.hard;

describe('controllers/namespace-defaults', () => {
  it('gives a labelled namespace its quota, limits and default-deny policy', async () => {
    const ns = await createNamespace({ 'loom.dev/quota-cpu': '2' });
    const name = ns.metadata.name!;
    const owner = [{ apiVersion: 'v1', kind: 'Namespace', name, uid: ns.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const quota = await child('v1', 'ResourceQuota', name, 'defaults');
    expect(hardOf(quota)).toEqual({ 'limits.cpu': '2', 'limits.memory': '8Gi', pods: '20' });
    expect(quota.metadata.ownerReferences).toEqual(owner);

    const limits = await child('v1', 'LimitRange', name, 'defaults');
    expect(limits.spec).toEqual({ limits: [{ type: 'Container', defaultRequest: { cpu: '100m', memory: '128Mi' }, default: { cpu: '500m', memory: '512Mi' } }] });
    expect(limits.metadata.ownerReferences).toEqual(owner);

    const deny = await child('networking.k8s.io/v1', 'NetworkPolicy', name, 'default-deny');
    expect(deny.spec).toEqual({
      podSelector: {}, policyTypes: ['Ingress', 'Egress'],
      egress: [{
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
        ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
      }],
    });
    expect(deny.metadata.ownerReferences).toEqual(owner);
  });

  it('updates the quota in place when the annotation changes', async () => {
    const ns = await createNamespace({});
    const name = ns.metadata.name!;
    const before = await child('v1', 'ResourceQuota', name, 'defaults');
    expect(hardOf(before)).toEqual({ 'limits.cpu': '4', 'limits.memory': '8Gi', pods: '20' });

    await clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations: { 'loom.dev/quota-pods': '7' } } });
    const quota = () => clients.writer.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace: name, name: 'defaults' });
    const after = await objectWhen(quota, (q) => hardOf(q)?.pods === '7', 'the quota to follow the annotation');
    expect(hardOf(after)).toEqual({ 'limits.cpu': '4', 'limits.memory': '8Gi', pods: '7' });
    expect(after.metadata.uid).toBe(before.metadata.uid);
  });

  it('reports an annotation that is not a quantity as a SyncError on the namespace', async () => {
    const ns = await createNamespace({ 'loom.dev/quota-cpu': 'lots' });
    const name = ns.metadata.name!;
    const messages = await syncErrorMessages(clients, { kind: 'Namespace', name });
    // The event names the refused child; it does not carry the API server's reason (see the report).
    expect(messages[0]).toMatch(new RegExp(`ResourceQuota ${name}/defaults`));
    // The other children do not wait for the quota.
    await child('v1', 'LimitRange', name, 'defaults');
    expect(await clients.writer.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace: name, name: 'defaults' })).toBeUndefined();
  });
});
