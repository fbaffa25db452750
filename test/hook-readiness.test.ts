/**
 * The hook sees readiness, on the real control plane (docs/ordering-and-readiness.md, "What the hook
 * sees"): a JSONata hook writes into its parent's status the `readiness` loom sent for a CRD-backed
 * child (judged by the child's `loom.dev/ready-when` annotation) and `$ready` of the same child (kstatus).
 * The test writes the child's status through its status subresource; each change of the child syncs
 * the parent again, and the status follows. A DecoratorController's v2 hook sees its attachments'
 * readiness the same way, keyed `namespace/name` as its `attachments` are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY_WHEN_ANNOTATION, type KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'hook-readiness';
/** The parents: the JSONata tests' type, told apart by their `mode` label. */
const PARENT = TEST_PARENT_KINDS.jsonata;
/** The children: a CRD with a status subresource the test writes. */
const CHILD = TEST_PARENT_KINDS.rollChild;
const CHILD_TYPE = `${CHILD.kind}.${TEST_GROUP}/v1`;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** One child `<parent>-db`, ready when its phase is Ready; the status says what the hook saw of it. */
const SYNC = `(
  $db := parent.metadata.name & "-db";
  {
    "children": [{
      "apiVersion": "${TEST_GROUP}/v1", "kind": "${CHILD.kind}",
      "metadata": { "name": $db, "annotations": { "${READY_WHEN_ANNOTATION}": "status.phase = 'Ready'" } },
      "spec": {}
    }],
    "status": {
      "db": $lookup(readiness."${CHILD_TYPE}", $db),
      "dbKstatus": $exists($lookup(children."${CHILD_TYPE}", $db)) ? $ready($lookup(children."${CHILD_TYPE}", $db)) : "absent"
    }
  }
)`;

const controller: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'hook-readiness', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { mode: 'readiness' } } },
    childResources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: CHILD.plural, updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: { expression: SYNC } } },
  },
};

interface SeenStatus {
  db?: { status: string; message: string };
  dbKstatus?: boolean | 'absent';
}

const parentStatus = async (): Promise<SeenStatus | undefined> =>
  (await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name: 'shop' }))?.status as SeenStatus | undefined;

/** Waits until the parent's status says `want` of its child. */
const statusWhere = (want: (seen: SeenStatus) => boolean, what: string) =>
  eventually(async () => {
    const seen = await parentStatus();
    return seen && want(seen) ? seen : undefined;
  }, what);

async function writeChildStatus(status: Record<string, unknown>): Promise<void> {
  const child = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: CHILD.kind, namespace, name: 'shop-db' });
  if (!child) throw new Error('the child is gone');
  await clients.writer.replaceStatus({ ...child, status });
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('the hook sees readiness', () => {
  it('gets each observed child\'s readiness by its readyWhen, and $ready by kstatus, as the child\'s status changes', async () => {
    await clients.apply(controller);
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name: 'shop', namespace, labels: { mode: 'readiness' } }, spec: {} });

    // Created, no status yet: its readyWhen is false; kstatus has nothing against an object without status.
    const created = await statusWhere((s) => s.db !== undefined, 'the child\'s readiness in the status');
    expect(created).toMatchObject({ db: { status: 'InProgress', message: `annotation ${READY_WHEN_ANNOTATION} is false` }, dbKstatus: true });

    await writeChildStatus({ phase: 'Ready' });
    const ready = await statusWhere((s) => s.db?.status === 'Current', 'the child to read as ready');
    expect(ready).toMatchObject({ db: { status: 'Current', message: `annotation ${READY_WHEN_ANNOTATION} is true` }, dbKstatus: true });

    // A Ready=False condition: the child's own rule still holds, kstatus's does not.
    await writeChildStatus({ phase: 'Ready', conditions: [{ type: 'Ready', status: 'False', reason: 'Warming' }] });
    const warming = await statusWhere((s) => s.dbKstatus === false, '$ready to turn false');
    expect(warming.db).toEqual({ status: 'Current', message: `annotation ${READY_WHEN_ANNOTATION} is true` });
  });
});

/** One ConfigMap attachment, ready once someone labels it approved; the target's annotation says what the hook saw. */
const DECORATOR_SYNC = `(
  $key := object.metadata.namespace & "/" & object.metadata.name & "-gate";
  {
    "attachments": [{
      "apiVersion": "v1", "kind": "ConfigMap",
      "metadata": { "name": object.metadata.name & "-gate", "namespace": object.metadata.namespace,
                    "annotations": { "${READY_WHEN_ANNOTATION}": "metadata.labels.approved = 'yes'" } }
    }],
    "annotations": { "gate-readiness": $exists($lookup(readiness."ConfigMap.v1", $key)) ? $lookup(readiness."ConfigMap.v1", $key).status : "none" }
  }
)`;

describe('a decorator\'s hook sees readiness', () => {
  it('gets its attachments\' readiness keyed as its v2 attachments are', async () => {
    await clients.apply({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
      metadata: { name: 'hook-readiness-decorator', labels: { 'loom-test': LABEL } },
      spec: {
        resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { mode: 'readiness-decorated' } } }],
        attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
        hooks: { sync: { version: 'v2', jsonata: { expression: DECORATOR_SYNC } } },
      },
    });
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name: 'gated', namespace, labels: { mode: 'readiness-decorated' } }, spec: {} });
    const seen = (value: string) => eventually(async () => {
      const target = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name: 'gated' });
      return target?.metadata.annotations?.['gate-readiness'] === value || undefined;
    }, `the target to say its attachment is ${value}`);
    await seen('InProgress');
    // Another field manager approves the attachment: loom's apply leaves the label alone, and the change syncs the target.
    await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gated-gate', namespace, labels: { approved: 'yes' } } });
    await seen('Current');
  });
});
