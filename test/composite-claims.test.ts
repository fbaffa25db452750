/**
 * Claiming children on the real control plane (docs/concepts.md, "Claiming and adoption"): a matching
 * orphan is adopted, an owned child that stops matching is released (orphaned, not deleted), a claimed
 * child the hook no longer returns is deleted, and with `generateSelector` children are tied to the
 * parent by `controller-uid`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'claims';
const PARENT = TEST_PARENT_KINDS.claim;
let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;

interface ClaimSpec {
  selector?: { matchLabels: Record<string, string> };
  /** Names of the ConfigMaps the hook returns, labelled with the selector's matchLabels. */
  wants?: string[];
}

interface HookRequest {
  parent: KubeObject & { spec: ClaimSpec };
  children: Record<string, Record<string, KubeObject>>;
}

/** One sync call: the selector value (or uid label) the parent had, and the ConfigMap names it observed. */
interface Observation {
  selects: string | undefined;
  seen: string[];
}

/** The sync calls per parent name, in call order. */
const observed = new Map<string, Observation[]>();

/** Desired: one ConfigMap per name in `spec.wants`; `generated` children carry only `app=<parent>`. */
function sync(req: HookRequest) {
  const { parent } = req;
  const name = parent.metadata.name!;
  const seen = Object.keys(req.children['ConfigMap.v1'] ?? {}).sort();
  observed.set(name, [...(observed.get(name) ?? []), { selects: parent.spec.selector?.matchLabels.claim, seen }]);
  const labels = parent.spec.selector?.matchLabels ?? { app: name };
  return {
    status: { observed: seen },
    children: (parent.spec.wants ?? []).map((child) => ({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: child, labels }, data: { owner: name },
    })),
  };
}

/** A CompositeController handling only parents labelled `case=<kase>`. */
function controller(kase: string, generateSelector: boolean, url: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `claims-${kase}`, labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { case: kase } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      generateSelector,
      hooks: { sync: { webhook: { url } } },
    },
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'claims');
  await createParentCrd(clients, PARENT);
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as HookRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL);
  await clients.apply(controller('selector', false, url));
  await clients.apply(controller('generated', true, url));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

/** A parent of the `selector` controller, selecting `claim=<selects>`. */
const claim = (name: string, selects: string, wants: string[]): KubeObject => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind,
  metadata: { name, namespace, labels: { case: 'selector' } },
  spec: { selector: { matchLabels: { claim: selects } }, wants },
});
const configMap = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { owner: 'test' },
});
const configMapRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const controllerRef = (parent: KubeObject) => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, name: parent.metadata.name, uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true,
});
const ownedBy = (child: KubeObject | undefined, parent: KubeObject): boolean =>
  (child?.metadata.ownerReferences ?? []).some((ref) => ref.uid === parent.metadata.uid);

/** The child once it exists and `ready` holds for it. */
const childWhen = (name: string, ready: (child: KubeObject) => boolean, what: string): Promise<KubeObject> =>
  eventually(async () => {
    const child = await clients.writer.get(configMapRef(name));
    return child && ready(child) ? child : undefined;
  }, what);

/** A sync call of `parent` (while it selected `claim=<selects>`) that observed exactly `names`. */
const observedExactly = (parent: string, names: string[], selects?: string): Promise<Observation> =>
  eventually(() => Promise.resolve((observed.get(parent) ?? []).find((o) => o.selects === selects && JSON.stringify(o.seen) === JSON.stringify(names))),
    `${parent} to observe ${names.join(', ') || 'no children'}`);

describe('CompositeController claiming', () => {
  it('adopts a matching orphan that existed before the parent', async () => {
    await clients.apply(configMap('adopt-orphan', { claim: 'adopt' }));
    const parent = await clients.apply(claim('adopt', 'adopt', ['adopt-orphan']));
    const adopted = await childWhen('adopt-orphan', (c) => ownedBy(c, parent), 'the orphan to be adopted');
    expect(adopted.metadata.ownerReferences).toEqual([controllerRef(parent)]);
    await observedExactly('adopt', ['adopt-orphan'], 'adopt');
  });

  it('releases an owned child that no longer matches the selector, without deleting it', async () => {
    const parent = await clients.apply(claim('release', 'release', ['release-child']));
    await childWhen('release-child', (c) => ownedBy(c, parent), 'the child to be created');
    await observedExactly('release', ['release-child'], 'release');
    // The hook stops returning it too: a desired child must match the new selector.
    await clients.apply(claim('release', 'release-2', []));
    const released = await childWhen('release-child', (c) => !ownedBy(c, parent), 'the child to be released');
    expect(released.metadata.ownerReferences ?? []).toEqual([]);
    expect(released.metadata.labels).toEqual({ claim: 'release' });
    await observedExactly('release', [], 'release-2');
  });

  it('deletes a claimed child the hook no longer returns', async () => {
    const parent = await clients.apply(claim('prune', 'prune', ['prune-keep', 'prune-drop']));
    await childWhen('prune-drop', (c) => ownedBy(c, parent), 'the child to drop to be created');
    await observedExactly('prune', ['prune-drop', 'prune-keep'], 'prune');
    await clients.apply(claim('prune', 'prune', ['prune-keep']));
    const gone = await eventually(async () => ((await clients.writer.get(configMapRef('prune-drop'))) ? undefined : true), 'the dropped child to be deleted');
    expect(gone).toBe(true);
    const kept = await clients.writer.get(configMapRef('prune-keep'));
    expect(kept?.metadata.ownerReferences).toEqual([controllerRef(parent)]);
  });

  it('with generateSelector, labels children controller-uid=<parent uid> and needs no spec.selector', async () => {
    const parent = await clients.apply({
      apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind,
      metadata: { name: 'generated', namespace, labels: { case: 'generated' } },
      spec: { wants: ['generated-child'] },
    });
    const child = await childWhen('generated-child', (c) => ownedBy(c, parent), 'the child to be created');
    expect(child.metadata.labels).toEqual({ app: 'generated', 'controller-uid': parent.metadata.uid });
    expect(child.metadata.ownerReferences).toEqual([controllerRef(parent)]);
    await observedExactly('generated', ['generated-child']);
  });
});
