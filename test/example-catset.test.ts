/**
 * The catset example (examples/catset/) on the real control plane, its hook run as its own process
 * (`node examples/catset/hook.ts`) and its controller applied as shipped but for the webhook URL and
 * the test label: a CatSet of 3 scales up one Pod at a time, each Pod only once the one below it is
 * Ready, with one PVC per Pod; a template change then recreates the Pods one at a time, highest
 * ordinal first, each only once the one before is Ready again, until `Updated` is `OnLatestRevision`;
 * deleting the CatSet tears its Pods down through the finalize hook before it goes.
 *
 * There is no kubelet: the test plays it, writing each Pod's `Running`/`Ready` status. A Pod with no
 * node is deleted at once, so a recreation takes one sync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { isConflict } from '../src/kube/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';

const LABEL = 'example-catset';
const NAME = 'nginx-backend';
const API_VERSION = 'examples.loom.dev/v1';
const ROLLED = 'examples.loom.dev/rolled';

let clients: TestClients;
let running: RunningExample | undefined;
let namespace: string;
let shipped: KubeObject;

interface CatSetStatus {
  replicas?: number;
  readyReplicas?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

const pod = (ordinal: number) => clients.writer.get({ apiVersion: 'v1', kind: 'Pod', namespace, name: `${NAME}-${ordinal}` });
const claim = (ordinal: number) => clients.writer.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: `www-${NAME}-${ordinal}` });
const catset = () => clients.writer.get({ apiVersion: API_VERSION, kind: 'CatSet', namespace, name: NAME });
const statusOf = async () => (await catset())?.status as CatSetStatus | undefined;
const updatedOf = (status: CatSetStatus | undefined) => status?.conditions?.find((c) => c.type === 'Updated');

/** The example CatSet in the test namespace, its Pod template annotated with `rolled` when given. */
function applyCatSet(rolled?: string): Promise<KubeObject> {
  const spec = structuredClone(shipped.spec) as { template: { metadata: { annotations?: Record<string, string> } } };
  if (rolled) spec.template.metadata.annotations = { [ROLLED]: rolled };
  return clients.apply({ ...shipped, metadata: { name: NAME, namespace }, spec });
}

/** Waits for the CatSet's status to satisfy `accept`. */
function statusWhen(accept: (status: CatSetStatus) => boolean, what: string): Promise<CatSetStatus> {
  return eventually(async () => {
    const status = await statusOf();
    return status && accept(status) ? status : undefined;
  }, what);
}

/** Plays the kubelet: the Pod (this very one, by UID) is Running and Ready. */
async function markReady(ordinal: number, uid: string | undefined): Promise<void> {
  await eventually(async () => {
    const current = await pod(ordinal);
    if (!current || current.metadata.uid !== uid) throw new Error(`pod ${ordinal} was replaced before the test marked it Ready`);
    try {
      await clients.writer.replaceStatus({ ...current, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
      return true;
    } catch (err) {
      if (isConflict(err)) return undefined; // loom wrote the Pod meanwhile: read it again
      throw err;
    }
  }, `pod ${ordinal} marked Ready`);
}

/** Waits for Pod `ordinal` to exist and satisfy `accept`. */
function podWhen(ordinal: number, accept: (pod: KubeObject) => boolean, what: string): Promise<KubeObject> {
  return eventually(async () => {
    const current = await pod(ordinal);
    return current && accept(current) ? current : undefined;
  }, `pod ${ordinal} ${what}`);
}

/** The rollout waits for Pod `ordinal` (to become Ready, once it has been recreated). */
const waitingOn = (status: CatSetStatus, ordinal: number) =>
  updatedOf(status)?.reason === 'RolloutWaiting' && Boolean(updatedOf(status)?.message?.includes(`Pod ${NAME}-${ordinal} failed status check`));

const rolledOf = (p: KubeObject | undefined) => p?.metadata.annotations?.[ROLLED];

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  shipped = (await exampleManifests('catset', 'catset.yaml')).find((doc) => doc.kind === 'CatSet')!;
  running = await startExample(clients, 'catset', { label: LABEL });
});

afterAll(async () => {
  await running?.stop();
});

describe('the catset example', () => {
  it('creates each Pod only once the Pods below it are Ready, each with its own claim', async () => {
    const parent = await applyCatSet();
    for (const ordinal of [0, 1, 2]) {
      const created = await podWhen(ordinal, () => true, 'created');
      expect(created.spec).toMatchObject({ hostname: `${NAME}-${ordinal}`, subdomain: NAME });
      expect(created.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'CatSet', name: NAME, uid: parent.metadata.uid, controller: true });
      const pvc = await eventually(() => claim(ordinal), `claim ${ordinal}`);
      expect(pvc.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'CatSet', uid: parent.metadata.uid });
      // A sync has seen this Pod not Ready yet: had the hook asked for the next one, it would exist now.
      await statusWhen((s) => s.replicas === ordinal + 1 && s.readyReplicas === ordinal, `status at ${ordinal + 1} Pods, ${ordinal} Ready`);
      expect(await pod(ordinal + 1)).toBeUndefined();
      await markReady(ordinal, created.metadata.uid);
    }
    const status = await statusWhen((s) => s.readyReplicas === 3, 'three Ready Pods');
    expect(status.replicas).toBe(3);
    expect(updatedOf(status)).toMatchObject({ status: 'True', reason: 'OnLatestRevision' });
    expect(await pod(3)).toBeUndefined();
  });

  it('rolls a template change out one Pod at a time, highest ordinal first, each waiting for the one before to be Ready', async () => {
    const before = await Promise.all([0, 1, 2].map(pod));
    await applyCatSet('v2');
    for (const ordinal of [2, 1, 0]) {
      const recreated = await podWhen(ordinal, (p) => rolledOf(p) === 'v2', 'recreated with the new template');
      expect(recreated.metadata.uid).not.toBe(before[ordinal]?.metadata.uid);
      // The rollout waits on this Pod while the lower ones are still the old Pods. Once the last
      // Pod has moved, every Pod is on the latest revision: `OnLatestRevision` needs no wait
      // (docs/hook-protocol.md, "Rolling updates").
      if (ordinal > 0) {
        const waiting = await statusWhen((s) => waitingOn(s, ordinal), `the rollout waiting on Pod ${ordinal}`);
        expect(updatedOf(waiting)?.status).toBe('False');
      }
      for (const lower of [0, 1].filter((n) => n < ordinal)) expect((await pod(lower))?.metadata.uid).toBe(before[lower]?.metadata.uid);
      await markReady(ordinal, recreated.metadata.uid);
    }
    const done = await statusWhen((s) => updatedOf(s)?.reason === 'OnLatestRevision' && s.readyReplicas === 3, 'the rollout to finish');
    expect(updatedOf(done)?.status).toBe('True');
    expect((await Promise.all([0, 1, 2].map(pod))).map(rolledOf)).toEqual(['v2', 'v2', 'v2']);
  });

  it('tears the Pods down through the finalize hook when the CatSet is deleted', async () => {
    expect((await catset())?.metadata.finalizers).toContain('metacontroller.io/compositecontroller-catset-controller');
    await clients.writer.delete({ apiVersion: API_VERSION, kind: 'CatSet', namespace, name: NAME });
    await eventually(async () => ((await catset()) ? undefined : true), 'the CatSet to be gone');
    expect(await Promise.all([0, 1, 2].map(pod))).toEqual([undefined, undefined, undefined]);
  });
});
