/**
 * Switching from Metacontroller v4.17.2 to loom on the same objects, and back. Children and
 * attachments are first written as Metacontroller leaves them in each of its apply modes
 * (`support/metacontroller.ts`: its last-applied annotation, its field manager and operations, its
 * controller reference), then loom starts on the same parents, in each of its apply strategies.
 *
 * What must hold: loom's first sync deletes and recreates nothing; a later edit reaches every child,
 * and a field dropped from the desired state goes at the first sync after the edit (a Recreate child
 * is recreated for it); under server-side apply the fields are loom's alone afterwards; a converged
 * loom writes nothing more. Handed back to Metacontroller's dynamic apply, every child keeps its
 * controller reference and follows Metacontroller's edits, removals included.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROLLER_UID_LABEL, DECORATOR_CONTROLLER_ANNOTATION, LAST_APPLIED_ANNOTATION, type KubeObject } from '../src/api/index.ts';
import { controllerRefFor } from '../src/core/index.ts';
import { isInvalid } from '../src/kube/index.ts';
import { ownershipTakeover } from '../src/core/ownership-takeover.ts';
import { createTestNamespace, eventually, managersOf, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { goJson, syncAsMetacontroller, writeAsMetacontroller, type MetacontrollerMode } from './support/metacontroller.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'migration';
const KIND = TEST_PARENT_KINDS.migration;
const MODES: MetacontrollerMode[] = ['dynamic-apply', 'server-side-apply', 'dynamic-then-server-side-apply'];

interface Spec {
  data: Record<string, string>;
  secret: Record<string, string>;
}
/** What Metacontroller last synced; the edit loom must carry (`a` changed, `b` and `old` dropped); Metacontroller's edit after the rollback. */
const BEFORE: Spec = { data: { a: '1', b: '2' }, secret: { token: 'dG9rZW4=', old: 'b2xk' } };
const AFTER: Spec = { data: { a: '10' }, secret: { token: 'dG9rZW4=' } };
const BACK: Spec = { data: { c: '3' }, secret: { token: 'dG9rZW4=' } };

let clients: TestClients;
let namespace: string;
let hooks: FastifyInstance;
let url: string;
/** Hook calls so far, per parent or target name. */
const calls = new Map<string, number>();

/** A parent's children (a target's attachment) as the hook answers them: no namespace, no label. */
function hookAnswer(obj: KubeObject): KubeObject[] {
  const { data, secret } = obj.spec as Spec;
  const name = obj.metadata.name ?? '';
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-cm` }, data };
  if (obj.metadata.labels?.role === 'target') return [configMap];
  return [configMap, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-secret` }, data: secret }];
}

function answered(obj: KubeObject): KubeObject[] {
  calls.set(obj.metadata.name ?? '', (calls.get(obj.metadata.name ?? '') ?? 0) + 1);
  return hookAnswer(obj);
}

/** The objects Metacontroller passes on to write: namespace defaulted, its label or annotation added. */
function metacontrollerDesired(obj: KubeObject, strategy: string): KubeObject[] {
  const stamp = obj.metadata.labels?.role === 'target'
    ? { annotations: { [DECORATOR_CONTROLLER_ANNOTATION]: `migration-${strategy}-decorator` } }
    : { labels: { [CONTROLLER_UID_LABEL]: obj.metadata.uid ?? '' } };
  return hookAnswer(obj).map((child) => ({ ...child, metadata: { ...child.metadata, namespace, ...stamp } }));
}

function controllers(strategy: string): KubeObject[] {
  const meta = (name: string) => ({ name, labels: { 'loom-test': `${LABEL}-${strategy}` } });
  const resource = (role: string) => ({ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { role, strategy } } });
  return [{
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: meta(`migration-${strategy}`),
    spec: {
      generateSelector: true, parentResource: resource('parent'), resyncPeriodSeconds: 1,
      childResources: [
        { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } },
        { apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'Recreate' } },
      ],
      hooks: { sync: { webhook: { url: `${url}/composite` } } },
    },
  }, {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: meta(`migration-${strategy}-decorator`),
    spec: {
      resources: [resource('target')], resyncPeriodSeconds: 1,
      attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url: `${url}/decorator` } } },
    },
  }];
}

/** The child of that name now, if there is one (a Recreate child is briefly absent). */
const findChild = (child: KubeObject): Promise<KubeObject | undefined> =>
  clients.writer.get({ apiVersion: 'v1', kind: child.kind, namespace, name: child.metadata.name ?? '' });
async function getChild(child: KubeObject): Promise<KubeObject> {
  const found = await findChild(child);
  if (!found) throw new Error(`${child.kind} ${child.metadata.name ?? ''} is gone`);
  return found;
}
const contentOf = (obj: KubeObject | undefined): unknown => obj?.data;

/**
 * Applies `child` as loom's field manager without `force`, as a dry run: the API server answers 409
 * Conflict if another manager still owns a field whose value this would change.
 */
function applyWithoutForce(child: KubeObject): Promise<unknown> {
  return clients.client.request({
    method: 'PATCH', path: `/api/v1/namespaces/${namespace}/${child.kind.toLowerCase()}s/${child.metadata.name}`,
    query: { fieldManager: 'loom', dryRun: 'All' }, contentType: 'application/apply-patch+yaml', body: child,
  });
}

/** Resolves once every object named has had `more` hook calls after `since`. */
async function synced(names: readonly string[], more: number, since: ReadonlyMap<string, number> = new Map(calls)): Promise<void> {
  const done = () => names.every((name) => (calls.get(name) ?? 0) >= (since.get(name) ?? 0) + more);
  await eventually(() => Promise.resolve(done() || undefined), `${more} more syncs of ${names.join(', ')}`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hooks = Fastify();
  hooks.post('/composite', (req) => ({ children: answered((req.body as { parent: KubeObject }).parent) }));
  hooks.post('/decorator', (req) => ({ attachments: answered((req.body as { object: KubeObject }).object) }));
  url = await hooks.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await hooks?.close();
});

describe('the ownership takeover', () => {
  it('is refused when the child changed after loom observed it, so that change is kept', async () => {
    const parent = await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'raced', namespace, labels: { role: 'none' } }, spec: BEFORE });
    const [desired] = metacontrollerDesired(parent, 'none');
    const observed = await writeAsMetacontroller(clients.client, parent, desired!, 'dynamic-apply');
    const takeOver = ownershipTakeover(observed, 'loom')!;
    await clients.client.request({ method: 'PATCH', path: `/api/v1/namespaces/${namespace}/configmaps/${observed.metadata.name}`, query: { fieldManager: 'someone' },
      contentType: 'application/merge-patch+json', body: { data: { theirs: 'x' } } });
    const refusal = await clients.writer.patchJson({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: observed.metadata.name ?? '' }, takeOver).then(() => undefined, (err: unknown) => err);
    expect(isInvalid(refusal)).toBe(true);
    const after = await getChild(observed);
    expect(contentOf(after)).toEqual({ ...BEFORE.data, theirs: 'x' });
    expect(managersOf(after)).toEqual(['metacontroller/Update', 'someone/Update']);
  });
});

/** A parent or decorator target, how Metacontroller last wrote its objects, and those objects as it left them. */
interface Owner {
  obj: KubeObject;
  mode: MetacontrollerMode;
  children: KubeObject[];
}

/** One child (or attachment) of an owner. */
interface Slot {
  owner: Owner;
  index: number;
  before: KubeObject;
}

const contentFor = (kind: string, spec: Spec): Record<string, string> => (kind === 'Secret' ? spec.secret : spec.data);

describe.each(['server-side-apply', 'dynamic-apply'] as const)('switching from Metacontroller to loom in %s and back', (strategy) => {
  const short = strategy === 'server-side-apply' ? 'ssa' : 'dyn';
  const owners: Owner[] = [];
  const requests: { method: string; path: string }[] = [];
  const names = () => owners.map((o) => o.obj.metadata.name ?? '');
  const slots = (): Slot[] => owners.flatMap((owner) => owner.children.map((before, index) => ({ owner, index, before })));
  /** What Metacontroller would write for the slot, for the owner's spec now or for `spec`. */
  const desiredOf = ({ owner, index }: Slot, spec?: Spec): KubeObject => metacontrollerDesired(spec ? { ...owner.obj, spec } : owner.obj, short)[index]!;
  let loom: TestLoom | undefined;

  const editAll = (spec: Spec) => Promise.all(owners.map(async (owner) => {
    const { name = '', labels = {} } = owner.obj.metadata;
    owner.obj = await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels }, spec });
  }));

  beforeAll(async () => {
    for (const [role, modes] of [['parent', MODES], ['target', MODES.slice(0, 2)]] as const) {
      for (const mode of modes) {
        const obj = await clients.apply({
          apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: `${short}-${role}-${mode}`, namespace, labels: { role, strategy: short } }, spec: BEFORE,
        });
        const children = await Promise.all(metacontrollerDesired(obj, short).map((d) => writeAsMetacontroller(clients.client, obj, d, mode)));
        owners.push({ obj, mode, children });
      }
    }
    loom = await startTestLoom(`${LABEL}-${short}`, { applyStrategy: strategy, fieldManager: 'loom' }, (r) => requests.push(r));
    for (const controller of controllers(short)) await clients.apply(controller);
  });

  afterAll(async () => {
    await loom?.stop();
  });

  /** The slot's child after loom's first sync: the same object, and loom's. */
  async function expectTakenOver(slot: Slot): Promise<void> {
    const { owner, before } = slot;
    const after = await getChild(before);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(contentOf(after)).toEqual(contentOf(before));
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(owner.obj)]);
    if (strategy === 'dynamic-apply') {
      // Recorded byte for byte as Metacontroller records it: a child it left so is not even written.
      expect(after.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe(goJson(desiredOf(slot)));
      if (owner.mode === 'dynamic-apply') expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      return;
    }
    expect(managersOf(after)).toEqual(['loom/Apply']);
    expect(after.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBeUndefined();
    // No field is Metacontroller's any more: loom's next edit would not even need `force`.
    const next = desiredOf(slot, AFTER);
    await applyWithoutForce({ ...next, metadata: { ...next.metadata, ownerReferences: [controllerRefFor(owner.obj)] } });
  }

  /** The slot's child once it has followed the edit to AFTER. */
  async function expectEdited({ owner, before }: Slot): Promise<void> {
    const after = await eventually(async () => {
      const child = await findChild(before);
      return JSON.stringify(contentOf(child)) === JSON.stringify(contentFor(before.kind, AFTER)) ? child : undefined;
    }, `${before.kind} ${before.metadata.name} to follow the edit`);
    // Only the Recreate child (the Secret, whose `old` went) is recreated for the edit.
    if (before.kind === 'Secret') expect(after.metadata.uid).not.toBe(before.metadata.uid);
    else expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(owner.obj)]);
    if (strategy === 'server-side-apply') expect(managersOf(after)).toEqual(['loom/Apply']);
  }

  /** One sync of the slot's child by Metacontroller's dynamic apply, for the owner's spec `spec`. */
  async function expectHandedBack(slot: Slot, spec: Spec): Promise<void> {
    const desired = desiredOf(slot);
    const observed = await getChild(slot.before);
    const method = desired.kind === 'Secret' ? 'Recreate' : 'InPlace';
    const after = await syncAsMetacontroller(clients.client, { parent: slot.owner.obj, observed, desired, method });
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(slot.owner.obj)]);
    expect(contentOf(after)).toEqual(contentFor(desired.kind, spec));
    // After server-side apply, which drops the record, Metacontroller's first sync writes it again:
    // in place, or by recreating the child.
    if (strategy === 'server-side-apply' && spec === AFTER) return;
    // loom's dynamic apply records what Metacontroller records: taking a child back changes nothing.
    expect(after.metadata.uid).toBe(observed.metadata.uid);
    if (method === 'Recreate' || spec === AFTER) expect(after.metadata.resourceVersion).toBe(observed.metadata.resourceVersion);
  }

  it('takes every child over at its first sync without deleting or recreating any', async () => {
    await synced(names(), 2);
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    for (const slot of slots()) await expectTakenOver(slot);
  });

  it('carries an edit to every child, removing the dropped fields at the first sync after it', async () => {
    await editAll(AFTER);
    for (const slot of slots()) await expectEdited(slot);
  });

  it('writes nothing more once converged', async () => {
    await synced(names(), 1);
    const first = requests.length;
    await synced(names(), 2);
    expect(requests.slice(first).filter((r) => r.method !== 'GET' && r.method !== 'WATCH')).toEqual([]);
  });

  it('hands every child back to Metacontroller\'s dynamic apply, still owned, following its edits', async () => {
    await loom?.stop();
    loom = undefined;
    for (const spec of [AFTER, BACK]) {
      await editAll(spec);
      for (const slot of slots()) await expectHandedBack(slot, spec);
    }
  });
});
