/**
 * The indexed-job example (examples/indexed-job/) on the real control plane, its hook run as its own
 * process (`node examples/indexed-job/hook.ts`) and its controller applied as shipped but for the
 * webhook URL and the test label: an IndexedJob with 3 completions and parallelism 2 runs exactly 2
 * Pods, starts the third once one Succeeded, never recreates a Pod that Succeeded, and is `Complete`
 * once all three have.
 *
 * There is no kubelet: the test plays it, writing each Pod's phase.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { isConflict } from '../src/kube/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, startExample, type RunningExample } from './support/example-hook.ts';
import { testClients, type TestClients } from './support/loom.ts';

const LABEL = 'example-indexed-job';
const NAME = 'print-index';

let clients: TestClients;
let running: RunningExample | undefined;
let namespace: string;

interface JobStatus {
  completions?: number;
  active?: number;
  succeeded?: number;
  failed?: number;
  conditions?: { type: string; status: string }[];
}

const pod = (index: number) => clients.writer.get({ apiVersion: 'v1', kind: 'Pod', namespace, name: `${NAME}-${index}` });
const podNames = async () => {
  const list = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/pods` });
  return list.items.map((p) => p.metadata.name).sort();
};

/** Waits for the IndexedJob's status to satisfy `accept`. */
function statusWhen(accept: (status: JobStatus) => boolean, what: string): Promise<JobStatus> {
  return eventually(async () => {
    const job = await clients.writer.get({ apiVersion: 'examples.loom.dev/v1', kind: 'IndexedJob', namespace, name: NAME });
    const status = job?.status as JobStatus | undefined;
    return status && accept(status) ? status : undefined;
  }, `the IndexedJob's status: ${what}`);
}

/** Plays the kubelet: the Pod of `index` ran to success. */
async function markSucceeded(index: number): Promise<void> {
  await eventually(async () => {
    const current = await eventually(() => pod(index), `pod ${index}`);
    try {
      await clients.writer.replaceStatus({ ...current, status: { phase: 'Succeeded' } });
      return true;
    } catch (err) {
      if (isConflict(err)) return undefined; // written meanwhile: read it again
      throw err;
    }
  }, `pod ${index} marked Succeeded`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  running = await startExample(clients, 'indexed-job', { label: LABEL });
});

afterAll(async () => {
  await running?.stop();
});

describe('the indexed-job example', () => {
  it('runs at most `parallelism` Pods with their index, replaces none that Succeeded, and completes', async () => {
    const [shipped] = await exampleManifests('indexed-job', 'indexed-job.yaml');
    const spec = { ...(shipped!.spec as object), completions: 3, parallelism: 2 };
    const job = await clients.apply({ ...shipped!, metadata: { name: NAME, namespace }, spec });

    // A sync has seen both Pods running: had it asked for a third, it would exist now.
    await statusWhen((s) => s.active === 2, 'two active');
    expect(await podNames()).toEqual([`${NAME}-0`, `${NAME}-1`]);
    const first = await pod(0);
    expect(first?.metadata.labels).toMatchObject({ app: 'print-index', 'controller-uid': job.metadata.uid });
    expect(first?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'IndexedJob', name: NAME, uid: job.metadata.uid, controller: true });
    const containers = (first?.spec as { containers: { env?: { name: string; value: string }[] }[] }).containers;
    expect(containers[0]?.env).toContainEqual({ name: 'JOB_INDEX', value: '0' });

    await markSucceeded(0);
    await eventually(() => pod(2), 'the third Pod');
    expect(await statusWhen((s) => s.succeeded === 1 && s.active === 2, 'one succeeded, two active')).toEqual({
      completions: 3, active: 2, succeeded: 1, failed: 0, observedGeneration: 1,
    });

    await markSucceeded(1);
    await markSucceeded(2);
    const done = await statusWhen((s) => s.succeeded === 3, 'three succeeded');
    expect(done).toMatchObject({ completions: 3, active: 0, succeeded: 3, failed: 0 });
    expect(done.conditions).toEqual([expect.objectContaining({ type: 'Complete', status: 'True' })]);
    expect(await podNames()).toEqual([0, 1, 2].map((i) => `${NAME}-${i}`));
    expect((await pod(0))?.metadata.uid).toBe(first?.metadata.uid);
  });
});
