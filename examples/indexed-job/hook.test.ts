import { testHook, type KubeObject } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { desiredIndexes, indexedJobHook, indexOf, type IndexedJob } from './hook.ts';

const job: IndexedJob = {
  apiVersion: 'examples.loom.dev/v1', kind: 'IndexedJob', metadata: { name: 'print', namespace: 'default' },
  spec: {
    completions: 3, parallelism: 2,
    template: { metadata: { labels: { app: 'print' } }, spec: { containers: [{ name: 'main', image: 'busybox', env: [{ name: 'A', value: '1' }] }] } },
  },
};

/** An observed Pod of index `index` in `phase`. */
function pod(index: number, phase: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `print-${index}`, namespace: 'default' }, spec: {}, status: { phase } };
}

/** A sync request with these observed Pods (v1 keys: the parent is namespaced). */
function request(pods: KubeObject[], parent: IndexedJob = job) {
  return { parent, children: { 'Pod.v1': Object.fromEntries(pods.map((p) => [p.metadata.name ?? '', p] as const)) } };
}

const names = (children: readonly KubeObject[] | undefined) => (children ?? []).map((c) => c.metadata.name);

describe('indexed-job hook', () => {
  const hook = testHook(indexedJobHook({ logger: false }));

  it('starts the first `parallelism` indexes, each Pod with JOB_INDEX set', async () => {
    const { statusCode, body } = await hook.sync(request([]));
    expect(statusCode).toBe(200);
    expect(body.status).toEqual({ completions: 3, active: 0, succeeded: 0, failed: 0 });
    expect(body.children).toEqual([0, 1].map((index) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: `print-${index}`, labels: { app: 'print' } },
      spec: {
        restartPolicy: 'OnFailure',
        containers: [{ name: 'main', image: 'busybox', env: [{ name: 'A', value: '1' }, { name: 'JOB_INDEX', value: String(index) }] }],
      },
    })));
  });

  it.each([
    ['two running', [pod(0, 'Running'), pod(1, 'Pending')], ['print-0', 'print-1'], { active: 2, succeeded: 0, failed: 0 }],
    ['index 0 done', [pod(0, 'Succeeded'), pod(1, 'Running')], ['print-0', 'print-1', 'print-2'], { active: 1, succeeded: 1, failed: 0 }],
    ['index 1 failed: replaced, and no slot taken', [pod(0, 'Running'), pod(1, 'Failed')], ['print-0', 'print-2'], { active: 1, succeeded: 0, failed: 1 }],
    ['index 1 free again', [pod(0, 'Running')], ['print-0', 'print-1'], { active: 1, succeeded: 0, failed: 0 }],
    ['two done, one running', [pod(0, 'Succeeded'), pod(1, 'Succeeded'), pod(2, 'Running')], ['print-0', 'print-1', 'print-2'], { active: 1, succeeded: 2, failed: 0 }],
  ])('keeps at most `parallelism` Pods active: %s', async (_case, pods, expected, counts) => {
    const { body } = await hook.sync(request(pods));
    expect(names(body.children)).toEqual(expected);
    expect(body.status).toEqual({ completions: 3, ...counts });
  });

  it('is Complete once every index has Succeeded, and keeps the Pods', async () => {
    const { body } = await hook.sync(request([0, 1, 2].map((i) => pod(i, 'Succeeded'))));
    expect(names(body.children)).toEqual(['print-0', 'print-1', 'print-2']);
    expect(body.status).toEqual({
      completions: 3, active: 0, succeeded: 3, failed: 0,
      conditions: [{ type: 'Complete', status: 'True', reason: 'AllIndexesSucceeded', message: '3 of 3 indexes succeeded' }],
    });
  });

  it('drops Pods of indexes beyond completions, and keeps a restartPolicy the template sets', async () => {
    const template = { ...job.spec?.template, spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } };
    const parent = { ...job, spec: { completions: 1, parallelism: 1, template } };
    const { body } = await hook.sync(request([pod(0, 'Running'), pod(1, 'Running')], parent));
    expect(names(body.children)).toEqual(['print-0']);
    expect(body.children?.[0]?.spec).toEqual({ restartPolicy: 'Never', containers: [{ name: 'main', env: [{ name: 'JOB_INDEX', value: '0' }] }] });
    expect(body.status).toMatchObject({ completions: 1, active: 1 });
  });

  it('answers 400 to a request whose Pods are not objects', async () => {
    const { statusCode } = await hook.sync({ parent: job, children: { 'Pod.v1': { x: 1 } } });
    expect(statusCode).toBe(400);
  });
});

describe('desiredIndexes', () => {
  it.each([
    [[], 0, 5, []],
    [[], 5, 0, []],
    [[[0, 'failed'], [1, 'failed']], 3, 1, [2]],
    [[[0, 'succeeded'], [3, 'active']], 5, 2, [0, 1, 3]],
  ] as const)('%o, %i completions, parallelism %i: %o', (states, completions, parallelism, expected) => {
    expect(desiredIndexes(new Map(states), { completions, parallelism })).toEqual(expected);
  });
});

describe('indexOf', () => {
  it.each([['print-0', 0], ['print-7', 7], ['print-07', undefined], ['print-', undefined], ['printer-1', undefined], [undefined, undefined]])(
    '%s → %s', (name, expected) => {
      expect(indexOf(name, 'print')).toBe(expected);
    },
  );
});
