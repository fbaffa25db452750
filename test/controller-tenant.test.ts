/**
 * The shelf's tenant controller (controllers/tenant/) on the real control plane, applied exactly as
 * shipped but for the test label: a cluster-scoped Tenant gets its namespace, the admins' RoleBinding
 * and a ResourceQuota, all owned by it; edits update them in place; deleting the Tenant hands them to
 * the garbage collector.
 *
 * Tenants are cluster-scoped, so each case uses its own Tenant name (`loom-it…`); the host runs only
 * controllers labelled `loom-test: tenant`, so no other test file's host runs this controller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { eventually } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { eventuallyGone, objectWhen, shelfManifest, startShelfHost, statusWhen, stopAndDeleteParents } from './support/shelf.ts';

const LABEL = 'tenant';
/** The shelf folder: `controllers/tenant/`. */
const SHELF = 'tenant';
const RBAC = 'rbac.authorization.k8s.io';

let clients: TestClients;
let loom: TestLoom;
const tenants: string[] = [];

interface TenantStatus {
  namespace?: string;
  ready?: boolean;
  admins?: number;
  observedGeneration?: number;
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** The shipped example Tenant under another name, with `spec` changes on top. */
async function applyTenant(name: string, spec: Record<string, unknown> = {}): Promise<KubeObject> {
  const example = await shelfManifest(SHELF, 'tenant.yaml');
  if (!tenants.includes(name)) tenants.push(name);
  return clients.apply({ ...example, metadata: { name }, spec: { ...(example.spec as object), ...spec } });
}

const tenant = (name: string) => clients.writer.get({ apiVersion: 'tenancy.loom.dev/v1', kind: 'Tenant', name });
const namespaceOf = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'Namespace', name });
const binding = (namespace: string) => clients.writer.get({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', namespace, name: 'tenant-admins' });
const quota = (namespace: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace, name: 'tenant-quota' });

const subjectsOf = (rb: KubeObject | undefined) => rb?.subjects as Subject[] | undefined;
const hardOf = (rq: KubeObject | undefined) => (rq?.spec as { hard?: Record<string, string> } | undefined)?.hard;

/** The Tenant's status once `accept` holds for it. */
const tenantWhen = (name: string, accept: (status: TenantStatus) => boolean, what: string) => statusWhen(() => tenant(name), accept, what);

beforeAll(async () => {
  clients = await testClients();
  loom = await startShelfHost(clients, SHELF, LABEL);
});

afterAll(async () => {
  await stopAndDeleteParents(loom, clients, { apiVersion: 'tenancy.loom.dev/v1', kind: 'Tenant', names: tenants });
});

describe('the tenant controller', () => {
  it('gives a Tenant a namespace, an admin RoleBinding and a quota it owns, and reports ready', async () => {
    // Dots are valid in a Tenant's name but not in a namespace's: $dnsName turns them into dashes.
    const parent = await applyTenant('loom-it.acme');
    const namespace = 'tenant-loom-it-acme';
    const owner = [{ apiVersion: 'tenancy.loom.dev/v1', kind: 'Tenant', name: 'loom-it.acme', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];

    const ns = await eventually(() => namespaceOf(namespace), `namespace ${namespace}`);
    expect(ns.metadata.ownerReferences).toEqual(owner);
    expect(ns.metadata.labels).toMatchObject({ 'tenancy.loom.dev/tenant': 'loom-it.acme', 'pod-security.kubernetes.io/enforce': 'restricted' });

    const rb = await eventually(() => binding(namespace), 'the RoleBinding');
    expect(rb.metadata.ownerReferences).toEqual(owner);
    expect(rb.roleRef).toEqual({ apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' });
    expect(subjectsOf(rb)).toEqual([
      { kind: 'User', apiGroup: RBAC, name: 'alice@acme.example' },
      { kind: 'Group', apiGroup: RBAC, name: 'acme-devs' },
      { kind: 'ServiceAccount', name: 'deployer', namespace },
    ]);

    const rq = await eventually(() => quota(namespace), 'the ResourceQuota');
    expect(rq.metadata.ownerReferences).toEqual(owner);
    expect(hardOf(rq)).toEqual({ 'limits.cpu': '8', 'limits.memory': '16Gi', pods: '50' });

    const status = await tenantWhen('loom-it.acme', (s) => s.ready === true, 'the Tenant to report ready');
    expect(status).toEqual({ namespace, ready: true, admins: 3, observedGeneration: 1 });
  });

  it('updates the RoleBinding and the quota in place, and drops the RoleBinding when no admin is left', async () => {
    await applyTenant('loom-it-update');
    const namespace = 'tenant-loom-it-update';
    const rbBefore = await eventually(() => binding(namespace), 'the RoleBinding');
    const rqBefore = await eventually(() => quota(namespace), 'the ResourceQuota');

    // The test's field manager drops quota.cpu and quota.memory: the CRD's defaults come back.
    await applyTenant('loom-it-update', { admins: [{ kind: 'Group', name: 'auditors' }], quota: { pods: 5 } });
    const rbAfter = await objectWhen(() => binding(namespace), (rb) => subjectsOf(rb)?.length === 1, 'the RoleBinding to follow spec.admins');
    expect(subjectsOf(rbAfter)).toEqual([{ kind: 'Group', apiGroup: RBAC, name: 'auditors' }]);
    expect(rbAfter.metadata.uid).toBe(rbBefore.metadata.uid);
    const rqAfter = await objectWhen(() => quota(namespace), (rq) => hardOf(rq)?.pods === '5', 'the quota to follow spec.quota');
    expect(hardOf(rqAfter)).toEqual({ 'limits.cpu': '4', 'limits.memory': '8Gi', pods: '5' });
    expect(rqAfter.metadata.uid).toBe(rqBefore.metadata.uid);
    expect(await tenantWhen('loom-it-update', (s) => s.admins === 1, 'the admin count')).toMatchObject({ ready: true });

    await applyTenant('loom-it-update', { admins: [] });
    await eventuallyGone(() => binding(namespace), 'the RoleBinding to be deleted');
    expect(await tenantWhen('loom-it-update', (s) => s.admins === 0, 'the admin count')).toMatchObject({ namespace, ready: true });
    expect((await quota(namespace))?.metadata.uid).toBe(rqBefore.metadata.uid);
  });

  it('has its children garbage-collected when the Tenant is deleted', async () => {
    await applyTenant('loom-it-delete');
    const namespace = 'tenant-loom-it-delete';
    await tenantWhen('loom-it-delete', (s) => s.ready === true, 'the Tenant to report ready');
    const nsUid = (await namespaceOf(namespace))?.metadata.uid;

    expect(await clients.writer.delete({ apiVersion: 'tenancy.loom.dev/v1', kind: 'Tenant', name: 'loom-it-delete' })).toBe(true);
    await eventuallyGone(() => binding(namespace), 'the RoleBinding to be deleted');
    // The namespace controller empties a deleted namespace before removing it: gone or on its way.
    await eventually(async () => {
      const current = await namespaceOf(namespace);
      return current === undefined || current.metadata.uid !== nsUid || current.metadata.deletionTimestamp ? true : undefined;
    }, 'the namespace to be deleted');
    expect(await tenant('loom-it-delete')).toBeUndefined();
  });
});
