/**
 * The crd-roles example (examples/crd-roles/) on the real control plane: its hook runs as its own
 * process and its DecoratorController is applied as shipped but pointed at it. A CRD the test makes
 * (cluster-scoped, so with a name of its own) gets a reader ClusterRole owned by it; taking the
 * annotation off runs the finalize hook, which deletes the role, and then the decorator's finalizer
 * goes; deleting the CRD runs it too, and the CRD goes once the role is gone. The test deletes its
 * CRD itself rather than leave it to anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { eventually } from './support/cluster.ts';
import { startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { eventuallyGone, objectWhen } from './support/shelf.ts';

const LABEL = 'example-crd-roles';
const EXAMPLE = 'crd-roles';
const FINALIZER = 'metacontroller.io/decoratorcontroller-crd-roles';
const GROUP = 'crd-roles.test.loom.dev';
const CRD_NAME = `gadgets.${GROUP}`;
const ROLE_NAME = `${CRD_NAME}-reader`;
const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD_NAME };

let clients: TestClients;
let running: RunningExample | undefined;

const crd = () => clients.writer.get(CRD_REF);
const role = () => clients.writer.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: ROLE_NAME });

/** A small CRD of the test's own, opting in. */
const gadgets: KubeObject = {
  apiVersion: CRD_REF.apiVersion, kind: CRD_REF.kind,
  metadata: { name: CRD_NAME, annotations: { 'enable-default-roles': 'yes' } },
  spec: {
    group: GROUP, scope: 'Cluster',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

beforeAll(async () => {
  clients = await testClients();
  running = await startExample(clients, EXAMPLE, { label: LABEL });
});

/** Stops the host, then deletes the CRD, first taking off the finalizer a failed test may have left. */
afterAll(async () => {
  await running?.stop();
  const left = await crd();
  const index = left?.metadata.finalizers?.indexOf(FINALIZER) ?? -1;
  if (index >= 0) await clients.writer.patchJson(CRD_REF, [{ op: 'remove', path: `/metadata/finalizers/${index}` }]);
  await clients.writer.delete(CRD_REF);
  await clients.writer.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: ROLE_NAME });
});

describe('the crd-roles example', () => {
  it('gives an annotated CRD a reader ClusterRole, and deletes it when the CRD opts out', async () => {
    const created = await clients.apply(gadgets);

    const reader = await eventually(role, 'the reader ClusterRole');
    expect(reader.metadata.ownerReferences).toEqual([
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD_NAME, uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(reader.metadata.annotations).toMatchObject({ 'metacontroller.k8s.io/decorator-controller': 'crd-roles' });
    expect(reader.rules).toEqual([{ apiGroups: [GROUP], resources: ['gadgets'], verbs: ['get', 'list', 'watch'] }]);
    await objectWhen(crd, (c) => (c.metadata.finalizers ?? []).includes(FINALIZER), "the decorator's finalizer on the CRD");

    // Opting out: the finalize hook runs on the CRD, which stays, and the role goes.
    await clients.writer.patchJson(CRD_REF, [{ op: 'remove', path: '/metadata/annotations/enable-default-roles' }]);
    await eventuallyGone(role, 'the ClusterRole to be deleted');
    const released = await objectWhen(crd, (c) => !(c.metadata.finalizers ?? []).includes(FINALIZER), "the decorator's finalizer to be removed");
    expect(released.metadata.deletionTimestamp).toBeUndefined();
  });

  it('deletes the role before the CRD itself goes, opted in again', async () => {
    await clients.apply(gadgets);
    await eventually(role, 'the reader ClusterRole back');
    await objectWhen(crd, (c) => (c.metadata.finalizers ?? []).includes(FINALIZER), "the decorator's finalizer on the CRD");

    expect(await clients.writer.delete(CRD_REF)).toBe(true);
    await eventuallyGone(role, 'the ClusterRole to be deleted');
    await eventuallyGone(crd, 'the CRD to be deleted');
  });
});
