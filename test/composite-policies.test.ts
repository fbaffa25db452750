/**
 * Per-child lifecycle policies (docs/ordering-and-readiness.md, "Per-child lifecycle policies") on the
 * real control plane, in both apply strategies, with a JSONata hook that returns the children the
 * parent's spec lists: `Orphan` and `Retain` children survive their parent, whose finalizer loom then
 * removes; a child that drops out of the desired set is released and never adopted again (`Orphan`) or
 * kept, still owned (`Retain`), and a released child the answer names again is taken back; an immutable-field change recreates exactly that child
 * (`onImmutableChange: Recreate`) or fails the sync with the API server's words (the default);
 * `adopt: Never` leaves a matching orphan alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { syncErrorMessages } from './support/shelf.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'policies';
const RELEASED_FROM = 'loom.dev/released-from';
const { kind, plural } = TEST_PARENT_KINDS.lifecyclePolicy;
const MODES = [
  { mode: 'ssa', applyStrategy: 'server-side-apply' },
  { mode: 'dynamic', applyStrategy: 'dynamic-apply' },
] as const;
type Mode = (typeof MODES)[number]['mode'];

/**
 * One ConfigMap per entry of the parent's `spec.children`, with the entry's annotations, data and
 * `immutable`; a parent being deleted with `spec.hookGone` gets an error, as from a hook that went away.
 */
const CHILDREN = `$exists(parent.metadata.deletionTimestamp) and parent.spec.hookGone = true ? $error("the hook is gone") : {
  "children": [parent.spec.children.{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": $$.parent.metadata.name & "-" & name, "annotations": annotations, "labels": $$.parent.spec.selector.matchLabels },
    "immutable": immutable,
    "data": data
  }],
  "status": { "ok": true }
}`;

/** A child the parent's spec asks for. */
interface ChildSpec {
  name: string;
  annotations?: Record<string, string>;
  data?: Record<string, string>;
  immutable?: boolean;
}

let clients: TestClients;
const hosts: TestLoom[] = [];
let namespace: string;

const controllerName = (mode: Mode, variant = '') => `${LABEL}-${mode}${variant}`;
const finalizerOf = (mode: Mode) => `metacontroller.io/compositecontroller-${controllerName(mode)}`;

/**
 * The controller of one mode: it takes the parents labelled `policy: <mode><variant>`; `-never` adopts
 * nothing, `-typed` orphans every child by its type's rule.
 */
function controller(mode: Mode, variant: '' | '-never' | '-typed' = ''): KubeObject {
  const rule = { '': {}, '-never': { adopt: 'Never' }, '-typed': { deletionPolicy: 'Orphan' } }[variant];
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: controllerName(mode, variant), labels: { 'loom-test': `${LABEL}-${mode}` } },
    spec: {
      generateSelector: variant !== '-never',
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural, labelSelector: { matchLabels: { policy: `${mode}${variant}` } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' }, ...rule }],
      hooks: { sync: { jsonata: { expression: CHILDREN } } },
    },
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, TEST_PARENT_KINDS.lifecyclePolicy);
  for (const { mode, applyStrategy } of MODES) {
    hosts.push(await startTestLoom(`${LABEL}-${mode}`, { applyStrategy }));
    await clients.apply(controller(mode));
    await clients.apply(controller(mode, '-never'));
    await clients.apply(controller(mode, '-typed'));
  }
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
});

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind, namespace, name });
const childRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const getParent = (name: string) => clients.writer.get(parentRef(name));
const getChild = (name: string) => clients.writer.get(childRef(name));
const ownedBy = (child: KubeObject | undefined, uid: string | undefined): boolean => (child?.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
const policy = (name: string, deletionPolicy: string): ChildSpec => ({ name, annotations: { 'loom.dev/deletion-policy': deletionPolicy } });

function applyParent(name: string, policyLabel: string, children: ChildSpec[], extra: Record<string, unknown> = {}): Promise<KubeObject> {
  return clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind, metadata: { name, namespace, labels: { policy: policyLabel } }, spec: { children, ...extra } });
}

/** The children named, once all exist. */
function allExist(names: string[]): Promise<KubeObject[]> {
  return eventually(async () => {
    const found = await Promise.all(names.map(getChild));
    return found.every((c) => c !== undefined) ? found : undefined;
  }, `children ${names.join(', ')}`);
}

/** The parent, once a sync of its current generation has written its children and status. */
function synced(name: string): Promise<KubeObject> {
  return eventually(async () => {
    const parent = await getParent(name);
    const observed = (parent?.status as { observedGeneration?: number } | undefined)?.observedGeneration;
    return parent && observed === parent.metadata.generation ? parent : undefined;
  }, `a sync of ${name}'s current generation`);
}

async function deleteAndWaitGone(name: string): Promise<void> {
  await clients.writer.delete(parentRef(name));
  await eventually(async () => ((await getParent(name)) === undefined ? true : undefined), `parent ${name} to be gone`);
}

/** The child `name`, checked released by the parent of UID `uid` and still the same object. */
async function expectReleased(name: string, before: KubeObject, uid: string | undefined): Promise<void> {
  const child = await getChild(name);
  expect(child?.metadata.uid, `${name} survives as the same object`).toBe(before.metadata.uid);
  expect(ownedBy(child, uid), `${name} has no owner reference to its parent`).toBe(false);
  expect(child?.metadata.annotations?.[RELEASED_FROM]).toBe(uid);
}

describe.each(MODES)('lifecycle policies with $applyStrategy', ({ mode }) => {
  it('keeps Orphan and Retain children when their parent is deleted: loom releases them, removes its finalizer, and the parent goes, with no hook needed', async () => {
    const name = `${mode}-deleted`;
    await applyParent(name, mode, [{ name: 'plain' }, policy('orphan', 'Orphan'), policy('retain', 'Retain')], { hookGone: true });
    const [plain, orphan, retain] = await allExist([`${name}-plain`, `${name}-orphan`, `${name}-retain`]);
    const parent = await synced(name);
    expect(parent.metadata.finalizers).toContain(finalizerOf(mode));
    expect(ownedBy(orphan, parent.metadata.uid) && ownedBy(retain, parent.metadata.uid)).toBe(true);
    await deleteAndWaitGone(name);
    await expectReleased(`${name}-orphan`, orphan!, parent.metadata.uid);
    await expectReleased(`${name}-retain`, retain!, parent.metadata.uid);
    await eventually(async () => ((await getChild(`${name}-plain`))?.metadata.uid === plain!.metadata.uid ? undefined : true), 'the Delete child to be deleted');
  });

  it('releases an Orphan child that drops out of the desired set and never adopts it again; keeps a Retain one owned', async () => {
    const name = `${mode}-dropped`;
    await applyParent(name, mode, [{ name: 'plain' }, policy('orphan', 'Orphan'), policy('retain', 'Retain')]);
    const [, orphan, retain] = await allExist([`${name}-plain`, `${name}-orphan`, `${name}-retain`]);
    const { metadata: { uid } } = await synced(name);
    await applyParent(name, mode, [{ name: 'plain' }]);
    await synced(name);
    await expectReleased(`${name}-orphan`, orphan!, uid);
    // Still matching the parent's selector: a sync of a newer generation must not adopt it back.
    expect((await getChild(`${name}-orphan`))?.metadata.labels?.['controller-uid']).toBe(uid);
    await applyParent(name, mode, [{ name: 'plain' }], { touched: 1 });
    const later = await synced(name);
    expect(ownedBy(await getChild(`${name}-orphan`), uid), 'the released child is not adopted again').toBe(false);
    const kept = await getChild(`${name}-retain`);
    expect(kept?.metadata.uid).toBe(retain!.metadata.uid);
    expect(ownedBy(kept, uid), 'the Retain child is still owned').toBe(true);
    expect(later.metadata.finalizers, 'the finalizer stays while the Retain child is claimed').toContain(finalizerOf(mode));
    await deleteAndWaitGone(name);
    await expectReleased(`${name}-retain`, retain!, uid);
  });

  it('takes back a released Orphan child once the answer names it again: the same object, adopted, with no error', async () => {
    const name = `${mode}-again`;
    await applyParent(name, mode, [policy('orphan', 'Orphan')]);
    const [orphan] = await allExist([`${name}-orphan`]);
    const { metadata: { uid } } = await synced(name);
    await applyParent(name, mode, []);
    await synced(name);
    await eventually(async () => ((await getChild(`${name}-orphan`))?.metadata.annotations?.[RELEASED_FROM] === uid ? true : undefined), 'the Orphan child to be released');
    await applyParent(name, mode, [policy('orphan', 'Orphan')]);
    const back = await eventually(async () => {
      const child = await getChild(`${name}-orphan`);
      return ownedBy(child, uid) ? child : undefined;
    }, 'the released child to be adopted again');
    expect(back?.metadata.uid, 'the same object').toBe(orphan!.metadata.uid);
    expect(back?.metadata.annotations?.[RELEASED_FROM], 'no longer marked released').toBeUndefined();
  });

  it('recreates exactly the child whose update changes an immutable field, with onImmutableChange: Recreate; its siblings keep their UIDs', async () => {
    const name = `${mode}-immutable`;
    const spec = (v: string): ChildSpec[] => [
      { name: 'frozen', immutable: true, data: { v }, annotations: { 'loom.dev/on-immutable-change': 'Recreate' } },
      { name: 'sibling', data: { v } },
      { name: 'other', data: { v: '1' } },
    ];
    await applyParent(name, mode, spec('1'));
    const [frozen, sibling, other] = await allExist([`${name}-frozen`, `${name}-sibling`, `${name}-other`]);
    // No child needs loom at the parent's deletion: no finalizer, as without policies.
    expect((await synced(name)).metadata.finalizers ?? []).toEqual([]);
    await applyParent(name, mode, spec('2'));
    const recreated = await eventually(async () => {
      const child = await getChild(`${name}-frozen`);
      return child && child.metadata.uid !== frozen!.metadata.uid && (child.data as { v?: string } | undefined)?.v === '2' ? child : undefined;
    }, 'the immutable child recreated with the new data');
    expect(recreated.immutable).toBe(true);
    const updated = await eventually(async () => {
      const child = await getChild(`${name}-sibling`);
      return (child?.data as { v?: string } | undefined)?.v === '2' ? child : undefined;
    }, 'the sibling updated in place');
    expect(updated.metadata.uid).toBe(sibling!.metadata.uid);
    expect((await getChild(`${name}-other`))?.metadata.uid).toBe(other!.metadata.uid);
  });

  it('fails the sync with the API server\'s words on an immutable-field change by default, keeping the child', async () => {
    const name = `${mode}-refused`;
    await applyParent(name, mode, [{ name: 'frozen', immutable: true, data: { v: '1' } }]);
    const [frozen] = await allExist([`${name}-frozen`]);
    await synced(name);
    await applyParent(name, mode, [{ name: 'frozen', immutable: true, data: { v: '2' } }]);
    const messages = await syncErrorMessages(clients, { kind, name });
    expect(messages.join('\n')).toMatch(/data: Forbidden: field is immutable when `immutable` is set/);
    const kept = await getChild(`${name}-frozen`);
    expect(kept?.metadata.uid).toBe(frozen!.metadata.uid);
    expect(kept?.data).toEqual({ v: '1' });
  });

  it('adopts no matching orphan with adopt: Never, and says so when a desired child\'s name is taken by one', async () => {
    const name = `${mode}-never`;
    const labels = { app: name };
    const orphan = (suffix: string) => clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${suffix}`, namespace, labels }, data: { by: 'test' } });
    const bystander = await orphan('bystander');
    await orphan('taken');
    await applyParent(name, `${mode}-never`, [{ name: 'taken' }], { selector: { matchLabels: labels } });
    const messages = await syncErrorMessages(clients, { kind, name });
    expect(messages.join('\n')).toMatch(/ConfigMap \S+-taken already exists and has no controller, and its child type says adopt: Never/);
    const after = await getChild(`${name}-bystander`);
    expect(after?.metadata.uid).toBe(bystander.metadata.uid);
    expect(after?.metadata.ownerReferences ?? []).toEqual([]);
  });
  it('orphans the children of a type whose rule says deletionPolicy: Orphan', async () => {
    const name = `${mode}-typed`;
    await applyParent(name, `${mode}-typed`, [{ name: 'kept' }]);
    const [kept] = await allExist([`${name}-kept`]);
    const parent = await synced(name);
    expect(parent.metadata.finalizers).toContain(`metacontroller.io/compositecontroller-${controllerName(mode, '-typed')}`);
    await deleteAndWaitGone(name);
    await expectReleased(`${name}-kept`, kept!, parent.metadata.uid);
  });
});
