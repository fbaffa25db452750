/**
 * DecoratorController on the real control plane (docs/concepts.md, "DecoratorController writes"): a
 * built-in namespaced target (StatefulSet) and a cluster-scoped one (Namespace), both with v2 hooks, get
 * labels and annotations merged (`null` deletes), attachments owned by the target and stamped with the
 * decorator's name, and the decorator's finalizer; opting out and deleting call the finalize hook, which
 * lets go. One DecoratorController with two target types decorates only what each type's selector picks.
 * A CRD target's status is replaced by the hook's; an invalid answer fails the sync with a SyncError and
 * writes nothing. loom's order and policy annotations on attachments are ignored, as Metacontroller ignores them.
 *
 * The hooks are JSONata, so each answer is computed from the request alone: the target's
 * `seen-attachments` annotation lists the keys of the attachments the hook was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'decorator';
const KIND = TEST_PARENT_KINDS.decorated;
const ANNOTATION = 'metacontroller.k8s.io/decorator-controller';

/** Labels and one attachment per target; the attachment's namespace is the target's (or the Namespace itself). */
const SYNC = `{
  "labels": { "decorated": "true", "remove-me": null },
  "annotations": { "seen-attachments": $join($sort($keys(attachments."ConfigMap.v1")), ",") },
  "attachments": [{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": object.metadata.name & "-info", "namespace": object.metadata.namespace ? object.metadata.namespace : object.metadata.name },
    "data": { "kind": object.kind }
  }],
  "status": object.kind = "${KIND.kind}" ? { "decoratedBy": "loom" } : null
}`;
const FINALIZE = '{ "finalized": true, "labels": { "decorated": null } }';
/** The related ConfigMap's `mode` as a label on the target. */
const RELATED_SYNC = '{ "labels": { "mode": $each(related."ConfigMap.v1", function($cm) { $cm.data.mode }) } }';
/** For the decorator of two target types: each target is labelled with its own kind. */
const MULTI_SYNC = '{ "labels": { "decorated-kind": object.kind } }';
/** Labels, plus an attachment of a type the decorator does not declare: the whole answer is refused. */
const BAD_SYNC = '{ "labels": { "decorated": "true" }, "attachments": [{ "apiVersion": "v1", "kind": "Secret", "metadata": { "name": "nope" } }] }';

/**
 * Two attachments carrying loom's order and policy annotations, which a decorator ignores as
 * Metacontroller does: a wave, a dependency on a sibling nobody asks for (an order a CompositeController
 * refuses), `Orphan`. With the target's label `drop`, the first is not wanted any more.
 */
const ANNOTATED_SYNC = `{
  "attachments": [
    $exists(object.metadata.labels.drop) ? undefined : {
      "apiVersion": "v1", "kind": "ConfigMap",
      "metadata": { "name": object.metadata.name & "-late", "namespace": object.metadata.namespace,
        "annotations": { "loom.dev/wave": "1", "loom.dev/depends-on": "ConfigMap/missing", "loom.dev/deletion-policy": "Orphan" } }
    },
    { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": object.metadata.name & "-early", "namespace": object.metadata.namespace } }
  ]
}`;

let clients: TestClients;
let loom: TestLoom;
let namespace: string;

function decorator(name: string, resource: object, version: 'v1' | 'v2'): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      resources: [resource],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { version, jsonata: { expression: SYNC } }, finalize: { version, jsonata: { expression: FINALIZE } } },
    },
  };
}

const statefulSet = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace, labels },
  spec: {
    selector: { matchLabels: { app: name } }, serviceName: name, replicas: 0,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  },
});

const get = (apiVersion: string, kind: string, name: string, ns: string | undefined = namespace) =>
  clients.writer.get({ apiVersion, kind, namespace: ns, name });
const getSts = (name: string) => get('apps/v1', 'StatefulSet', name);
const getStsOnce = async (name: string): Promise<KubeObject> => until(() => getSts(name), () => true, `StatefulSet ${name}`);
const getNs = (name: string) => get('v1', 'Namespace', name, undefined);

/** Waits until `probe` holds for the object. */
function until(read: () => Promise<KubeObject | undefined>, holds: (obj: KubeObject) => boolean, what: string): Promise<KubeObject> {
  return eventually(async () => {
    const obj = await read();
    return obj && holds(obj) ? obj : undefined;
  }, what);
}

/** A new Namespace that opts in to `decorate-ns`, once decorated and carrying the finalizer; returns its name. */
async function decoratedNamespace(prefix: string): Promise<string> {
  const ns = await createTestNamespace(testKubeConfig(), prefix);
  await clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, annotations: { 'loom-test/decorate': 'yes' } } });
  await until(() => getNs(ns), (o) => o.metadata.annotations?.['seen-attachments'] !== undefined && (o.metadata.finalizers ?? []).length > 0, `Namespace ${ns} to be decorated`);
  return ns;
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL);
  await clients.apply(decorator('decorate-sts', { apiVersion: 'apps/v1', resource: 'statefulsets', labelSelector: { matchLabels: { decorate: 'yes' } } }, 'v2'));
  await clients.apply(decorator('decorate-ns', { apiVersion: 'v1', resource: 'namespaces', annotationSelector: { matchAnnotations: { 'loom-test/decorate': 'yes' } } }, 'v2'));
  await clients.apply(decorator('decorate-crd', { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchExpressions: [{ key: 'bad', operator: 'DoesNotExist' }, { key: 'related', operator: 'DoesNotExist' }] } }, 'v2'));
  const related = decorator('decorate-related', { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { related: 'yes' } } }, 'v2');
  await clients.apply({ ...related, spec: { ...related.spec as object, hooks: {
    customize: { version: 'v2', jsonata: { expression: '{ "relatedResources": [{ "apiVersion": "v1", "resource": "configmaps", "namespace": object.metadata.namespace ? object.metadata.namespace : parent.metadata.namespace, "names": [parent.spec.settings] }] }' } },
    sync: { version: 'v2', jsonata: { expression: RELATED_SYNC } },
  } } });
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
    metadata: { name: 'decorate-multi', labels: { 'loom-test': LABEL } },
    spec: {
      resources: [
        { apiVersion: 'apps/v1', resource: 'deployments', labelSelector: { matchLabels: { multi: 'yes' } } },
        { apiVersion: 'v1', resource: 'services', labelSelector: { matchLabels: { multi: 'yes' } } },
      ],
      hooks: { sync: { version: 'v2', jsonata: { expression: MULTI_SYNC } } },
    },
  });
  const annotated = decorator('decorate-annotated', { apiVersion: 'apps/v1', resource: 'statefulsets', labelSelector: { matchLabels: { annotated: 'yes' } } }, 'v2');
  await clients.apply({ ...annotated, spec: { ...annotated.spec as object, hooks: { sync: { version: 'v2', jsonata: { expression: ANNOTATED_SYNC } } } } });
  const bad = decorator('decorate-bad', { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { bad: 'yes' } } }, 'v2');
  await clients.apply({ ...bad, spec: { ...bad.spec as object, hooks: { sync: { version: 'v2', jsonata: { expression: BAD_SYNC } } } } });
});

afterAll(async () => {
  await loom?.stop();
});

describe('DecoratorController', () => {
  it('decorates a StatefulSet: labels, annotations, an owned attachment, v2 keys and the finalizer', async () => {
    await clients.apply(statefulSet('web', { decorate: 'yes', 'remove-me': 'x', keep: 'me' }));
    const sts = await until(() => getSts('web'), (o) => o.metadata.annotations?.['seen-attachments'] !== undefined, 'the StatefulSet to be decorated');
    expect(sts.metadata.labels).toEqual({ decorate: 'yes', keep: 'me', decorated: 'true' });
    expect(sts.metadata.annotations?.['seen-attachments']).toBe(`${namespace}/web-info`);
    expect(sts.metadata.finalizers).toContain('metacontroller.io/decoratorcontroller-decorate-sts');
    const info = await get('v1', 'ConfigMap', 'web-info');
    expect(info?.data).toEqual({ kind: 'StatefulSet' });
    expect(info?.metadata.annotations?.[ANNOTATION]).toBe('decorate-sts');
    expect(info?.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  });

  it('finalizes a StatefulSet that opts out: its attachment is deleted and the finalizer removed', async () => {
    await clients.apply(statefulSet('opt-out', { decorate: 'yes' }));
    await eventually(() => get('v1', 'ConfigMap', 'opt-out-info'), 'the attachment');
    const current = (await getSts('opt-out'))!;
    await clients.writer.replace({ ...current, metadata: { ...current.metadata, labels: { decorate: 'no', decorated: 'true' } } });
    const after = await until(() => getSts('opt-out'), (o) => !o.metadata.finalizers?.length, 'the finalizer to go');
    expect(after.metadata.labels).toEqual({ decorate: 'no' });
    await eventually(async () => ((await get('v1', 'ConfigMap', 'opt-out-info')) === undefined) || undefined, 'the attachment to be deleted');
  });

  it('finalizes a deleted StatefulSet, which then goes', async () => {
    await clients.apply(statefulSet('doomed', { decorate: 'yes' }));
    await until(() => getSts('doomed'), (o) => (o.metadata.finalizers ?? []).length > 0, 'the finalizer');
    await clients.writer.delete({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace, name: 'doomed' });
    await eventually(async () => ((await getSts('doomed')) === undefined) || undefined, 'the StatefulSet to be gone');
  });

  it('decorates a cluster-scoped Namespace selected by annotation, with v2 keys and the finalizer', async () => {
    const ns = await decoratedNamespace('decorated');
    const decorated = (await getNs(ns))!;
    expect(decorated.metadata.labels?.decorated).toBe('true');
    expect(decorated.metadata.annotations?.['seen-attachments']).toBe(`${ns}/${ns}-info`);
    expect(decorated.metadata.finalizers).toEqual(['metacontroller.io/decoratorcontroller-decorate-ns']);
    const info = await get('v1', 'ConfigMap', `${ns}-info`, ns);
    expect(info?.data).toEqual({ kind: 'Namespace' });
    expect(info?.metadata.annotations?.[ANNOTATION]).toBe('decorate-ns');
    expect(info?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Namespace', name: ns, uid: decorated.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  });

  it('finalizes a Namespace that opts out: its attachment is deleted, its label and the finalizer removed', async () => {
    const ns = await decoratedNamespace('opt-out-ns');
    await eventually(() => get('v1', 'ConfigMap', `${ns}-info`, ns), 'the attachment');
    await clients.writer.patchJson({ apiVersion: 'v1', kind: 'Namespace', name: ns }, [{ op: 'replace', path: '/metadata/annotations/loom-test~1decorate', value: 'no' }]);
    const after = await until(() => getNs(ns), (o) => !o.metadata.finalizers?.length, 'the finalizer to go');
    expect(after.metadata.labels?.decorated).toBeUndefined();
    await eventually(async () => ((await get('v1', 'ConfigMap', `${ns}-info`, ns)) === undefined) || undefined, 'the attachment to be deleted');
  });

  it('finalizes a deleted Namespace, which then goes', async () => {
    const ns = await decoratedNamespace('doomed-ns');
    await clients.writer.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    // The namespace controller empties the Namespace; only loom can remove its own finalizer after that.
    await eventually(async () => ((await getNs(ns)) === undefined) || undefined, 'the Namespace to be gone', 45_000);
  });

  it('decorates targets of several types from one DecoratorController, each chosen by its selector', async () => {
    const service = (name: string, multi: string): KubeObject => ({
      apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels: { multi } }, spec: { ports: [{ port: 80 }], selector: { app: name } },
    });
    await clients.apply(service('multi-svc', 'yes'));
    await clients.apply(service('other-svc', 'no'));
    await clients.apply({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'multi-deploy', namespace, labels: { multi: 'yes' } },
      spec: { replicas: 0, selector: { matchLabels: { app: 'multi' } }, template: { metadata: { labels: { app: 'multi' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const kindLabel = (o: KubeObject) => o.metadata.labels?.['decorated-kind'];
    const deploy = await until(() => get('apps/v1', 'Deployment', 'multi-deploy'), (o) => kindLabel(o) !== undefined, 'the Deployment to be decorated');
    const svc = await until(() => get('v1', 'Service', 'multi-svc'), (o) => kindLabel(o) !== undefined, 'the Service to be decorated');
    expect([kindLabel(deploy), kindLabel(svc)]).toEqual(['Deployment', 'Service']);
    // Once a Service created after other-svc is decorated, the decorator has seen other-svc too: left alone.
    await clients.apply(service('late-svc', 'yes'));
    await until(() => get('v1', 'Service', 'late-svc'), (o) => kindLabel(o) === 'Service', 'a later Service to be decorated');
    expect((await get('v1', 'Service', 'other-svc'))?.metadata.labels).toEqual({ multi: 'no' });
  });

  it('replaces the status of a CRD target with the hook\'s', async () => {
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'crd-target', namespace }, spec: {} });
    const target = await until(() => get(`${TEST_GROUP}/v1`, KIND.kind, 'crd-target'), (o) => o.status !== undefined, 'the status');
    expect(target.status).toEqual({ decoratedBy: 'loom' });
  });

  it('gives the sync hook the related objects its customize hook asks for, and syncs again when they change', async () => {
    await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { mode: 'first' } });
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'with-related', namespace, labels: { related: 'yes' } }, spec: { settings: 'settings' } });
    const read = () => get(`${TEST_GROUP}/v1`, KIND.kind, 'with-related');
    expect((await until(read, (o) => o.metadata.labels?.mode !== undefined, 'the mode label')).metadata.labels?.mode).toBe('first');
    await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { mode: 'second' } });
    expect((await until(read, (o) => o.metadata.labels?.mode === 'second', 'the label to follow the ConfigMap')).metadata.labels?.mode).toBe('second');
  });

  it('ignores loom.dev order and policy annotations on attachments, as Metacontroller does: all written at once, deleted when dropped', async () => {
    await clients.apply(statefulSet('annotated', { annotated: 'yes' }));
    const target = await getStsOnce('annotated');
    const late = await until(() => get('v1', 'ConfigMap', 'annotated-late'), () => true, 'the attachment of wave 1 that depends on a missing sibling');
    expect(await get('v1', 'ConfigMap', 'annotated-early')).toBeDefined();
    expect(late.metadata.ownerReferences?.[0]?.uid).toBe(target.metadata.uid);
    await clients.apply(statefulSet('annotated', { annotated: 'yes', drop: 'yes' }));
    // Deleted, not released: its deletion policy means nothing on an attachment.
    await eventually(async () => ((await get('v1', 'ConfigMap', 'annotated-late')) === undefined ? true : undefined), 'the dropped attachment to be deleted');
  });

  it('refuses an answer with an undeclared attachment type: SyncError, and nothing written', async () => {
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'bad-answer', namespace, labels: { bad: 'yes' } }, spec: {} });
    const message = await eventually(async () => {
      const list = await clients.client.request<{ items: { reason?: string; message?: string }[] }>({
        method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: 'involvedObject.name=bad-answer' },
      });
      return list.items.find((e) => e.reason === 'SyncError')?.message;
    }, 'a SyncError on the target');
    expect(message).toMatch(/attachments are invalid: desired child Secret [^ ]*nope has type Secret.v1, which is not a declared/);
    // The controller object counts the failing target, with that error; Ready stays True (it runs).
    const failing = await eventually(async () => {
      const obj = await get('metacontroller.k8s.io/v1alpha1', 'DecoratorController', 'decorate-bad', undefined);
      const status = obj?.status as { failingParents?: number; conditions?: { type: string; status: string; message: string }[] } | undefined;
      const condition = status?.conditions?.find((c) => c.type === 'SyncsFailing' && c.status === 'True');
      return condition && { condition, count: status?.failingParents, ready: status?.conditions?.find((c) => c.type === 'Ready')?.status };
    }, 'SyncsFailing=True on the DecoratorController');
    expect(failing.count).toBe(1);
    expect(failing.ready).toBe('True');
    expect(failing.condition.message).toBe(`1 parent's last sync failed; latest: ${TEST_GROUP}/v1/${KIND.plural} ${namespace}/bad-answer: ${message.replace(/^Sync error: /, '')}`);
    const target = await get(`${TEST_GROUP}/v1`, KIND.kind, 'bad-answer');
    expect(target?.metadata.labels).toEqual({ bad: 'yes' });
    expect(await get('v1', 'Secret', 'nope')).toBeUndefined();
  });
});
