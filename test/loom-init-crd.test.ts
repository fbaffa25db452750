/**
 * The CRD a `loom init` CompositeController scaffold writes, on the real control plane: the API server
 * takes it, keeps a standard Ready condition in the status (the schema names it), and shows that
 * condition's status in the Ready column of `kubectl get` (the server-side Table), with the reason
 * in the wide view. Which condition loom writes is the sync's business, tested where it is written.
 */
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { crdYaml } from '../src/cli/init-manifests.ts';
import { scaffoldNames } from '../src/cli/init-names.ts';
import { systemClock } from '../src/engine/index.ts';
import { waitForCrdsEstablished } from '../src/kube/index.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients } from './support/loom.ts';

const names = scaffoldNames({ kind: 'InitScaffold', group: 'init.test.loom.dev', version: 'v1alpha1' });
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

interface Table {
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[];
}

let clients: TestClients;
let namespace: string;

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'init-crd');
  const crd = load(crdYaml({ names, hook: 'jsonata', controller: 'composite' })) as KubeObject;
  await clients.apply(crd);
  await waitForCrdsEstablished(clients.client, [names.crdName], { sleep: (ms, signal) => systemClock.sleep(ms, signal) });
  await clients.refresh();
});

/** Creates an object of the scaffold's kind and writes `status` through the status subresource, as loom does. */
async function withStatus(name: string, status: object): Promise<KubeObject> {
  const created = await clients.apply({ apiVersion: names.apiVersion, kind: names.kind, metadata: { name, namespace }, spec: { message: 'hi' } });
  return clients.client.request<KubeObject>({
    method: 'PUT', path: `/apis/${names.apiVersion}/namespaces/${namespace}/${names.plural}/${name}/status`, body: { ...created, status },
  });
}

/** The named columns of `name`'s row in the server-side Table `kubectl get` prints. */
async function columnsOf(name: string): Promise<Record<string, unknown>> {
  const table = await clients.client.request<Table>({ method: 'GET', path: `/apis/${names.apiVersion}/namespaces/${namespace}/${names.plural}`, accept: TABLE });
  const row = table.rows.find((r) => r.object.metadata.name === name);
  return Object.fromEntries(table.columnDefinitions.map((column, i) => [column.name, row?.cells[i]]));
}

describe('the CRD of a loom init CompositeController scaffold', () => {
  it('keeps a Ready condition in the status and shows its status as the Ready column, its reason in the wide view', async () => {
    const condition = { type: 'Ready', status: 'False', reason: 'ChildrenNotReady', message: 'ConfigMap default/held is InProgress', observedGeneration: 1, lastTransitionTime: '2026-11-27T06:00:00Z' };
    const written = await withStatus('held', { observedGeneration: 1, ready: false, conditions: [condition] });
    expect(written.status).toEqual({ observedGeneration: 1, ready: false, conditions: [condition] });
    expect(await columnsOf('held')).toMatchObject({ Ready: 'False', Reason: 'ChildrenNotReady' });
    const table = await clients.client.request<Table>({ method: 'GET', path: `/apis/${names.apiVersion}/namespaces/${namespace}/${names.plural}`, accept: TABLE });
    expect(table.columnDefinitions.find((c) => c.name === 'Reason')?.priority).toBe(1);
  });

  it('shows True once the condition is', async () => {
    await withStatus('ready', { conditions: [{ type: 'Ready', status: 'True', reason: 'ChildrenReady', message: '', lastTransitionTime: '2026-11-27T06:00:00Z' }] });
    expect(await columnsOf('ready')).toMatchObject({ Ready: 'True', Reason: 'ChildrenReady' });
  });

  it('shows no Ready value (kubectl prints <none>) before any condition is written', async () => {
    await withStatus('new', { ready: false });
    expect(await columnsOf('new')).toMatchObject({ Ready: null });
  });

  it('refuses two conditions of one type', async () => {
    const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-27T06:00:00Z' };
    await expect(withStatus('twice', { conditions: [ready, { ...ready, status: 'False' }] })).rejects.toThrow(/Duplicate value/);
  });
});
