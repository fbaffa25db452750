/**
 * Worked example 3 of docs/ordering-examples.md on the real control plane: a migration Job (wave 0)
 * that must succeed before a Deployment (wave 1), with the Job type's `readyWhen` (from a controller
 * manifest) asking for completion where kstatus would settle for a start. The Job controller starts the
 * Job (`status.startTime`); the Deployment is held, and the parent's Ready names it, until the test
 * reports the Job's pod Succeeded and the Job controller marks the Job Complete. The order is proven
 * from watch events. Then an in-place change of the Job's template (immutable) with
 * `onImmutableChange: Recreate` recreates that Job alone: the Deployment keeps its UID, and the old
 * Job's pods go with it.
 */
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { readinessOf } from '../src/core/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { podsOf, reportPods } from './support/pod-status.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { inRevisionOrder, recordWatches, type RecordedEvent } from './support/watch-record.ts';

const LABEL = 'migration-job';
const PARENT = TEST_PARENT_KINDS.migrating;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** Example 3's controller, with the Job type updated in place so that a changed template reaches the API server. */
const MANIFEST = `
apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata:
  name: migration-job
  labels:
    loom-test: ${LABEL}
spec:
  generateSelector: true
  parentResource:
    apiVersion: ${TEST_GROUP}/v1
    resource: ${PARENT.plural}
  childResources:
    - apiVersion: batch/v1
      resource: jobs
      readyWhen: $count(status.conditions[type = "Complete" and status = "True"]) > 0
      onImmutableChange: Recreate
      updateStrategy: { method: InPlace }
    - apiVersion: apps/v1
      resource: deployments
      updateStrategy: { method: InPlace }
  hooks:
    sync:
      jsonata:
        expression: |
          (
            $n := parent.metadata.name;
            $labels := { "app": $n };
            {
              "children": [
                { "apiVersion": "batch/v1", "kind": "Job",
                  "metadata": { "name": $n & "-migrate-" & parent.spec.version, "annotations": { "loom.dev/wave": "0" } },
                  "spec": { "backoffLimit": 2, "template": { "spec": { "restartPolicy": "Never",
                    "containers": [{ "name": "migrate", "image": "app:" & parent.spec.version, "args": parent.spec.args }] } } } },
                { "apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": { "name": $n, "annotations": { "loom.dev/wave": "1" } },
                  "spec": { "replicas": 1, "selector": { "matchLabels": $labels },
                    "template": { "metadata": { "labels": $labels }, "spec": { "containers": [{ "name": "app", "image": "app:" & parent.spec.version }] } } } }
              ]
            }
          )
`;

interface Condition { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }

const getParent = (name: string) => clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });
const getJob = (name: string) => clients.writer.get({ apiVersion: 'batch/v1', kind: 'Job', namespace, name });
const getDeployment = (name: string) => clients.writer.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });
const applyParent = (name: string, spec: object) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name, namespace }, spec });

/** Whether a Job's status says Complete=True: the readyWhen of the manifest, in the test's words. */
const complete = (job: KubeObject): boolean =>
  ((job.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');

/** The parent's Ready condition once `accept` takes it. */
function readyWhen(name: string, accept: (c: Condition) => boolean, what: string): Promise<Condition> {
  return eventually(async () => {
    const ready = ((await getParent(name))?.status as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
    return ready && accept(ready) ? ready : undefined;
  }, what);
}

/** The Deployment events that came before the Job's first Complete one (by revision), described. */
function deploymentsBeforeCompletion(seen: readonly RecordedEvent[]): string[] {
  const early: string[] = [];
  for (const event of inRevisionOrder(seen)) {
    if (event.object.kind === 'Job' && complete(event.object)) return early;
    if (event.object.kind === 'Deployment') early.push(`${event.type} ${event.object.metadata.name} at ${event.revision}`);
  }
  return [...early, 'the Job never completed'];
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  loom = await startTestLoom(LABEL);
  await clients.apply(load(MANIFEST) as KubeObject);
});

afterAll(async () => {
  await loom?.stop();
});

describe('a migration Job before a Deployment', () => {
  it('holds the Deployment while the Job only runs, creates it once the Job completed, and recreates the Job alone on a template change', async () => {
    const name = 'shop';
    const job = `${name}-migrate-7`;
    const stop = new AbortController();
    const { seen, established } = recordWatches(clients.client, [`/apis/batch/v1/namespaces/${namespace}/jobs`, `/apis/apps/v1/namespaces/${namespace}/deployments`], stop.signal);
    await established;
    try {
      await applyParent(name, { version: '7', args: ['migrate'] });
      const running = await eventually(async () => {
        const found = await getJob(job);
        return found && (found.status as { startTime?: string } | undefined)?.startTime ? found : undefined;
      }, 'the Job started by its controller');
      // kstatus alone would call a started Job ready; the type's readyWhen does not.
      expect(readinessOf(running).status).toBe('Current');
      const held = await readyWhen(name, (c) => c.reason === 'ChildrenHeld', 'Ready=False ChildrenHeld');
      expect(held).toMatchObject({ status: 'False', observedGeneration: 1 });
      expect(held.message).toMatch(new RegExp(`^Deployment ${namespace}/${name} waits for Job ${namespace}/${job} \\(InProgress: .*false\\)$`));
      expect(await getDeployment(name)).toBeUndefined();

      await reportPods(clients, namespace, `job-name=${job}`, 'Succeeded');
      await eventually(async () => ((await getJob(job)) && complete((await getJob(job))!)) || undefined, 'the Job Complete');
      const deployment = await eventually(() => getDeployment(name), 'the Deployment created');
      expect(deploymentsBeforeCompletion(seen)).toEqual([]);

      await reportPods(clients, namespace, `app=${name}`, 'Running');
      expect(await readyWhen(name, (c) => c.status === 'True', 'Ready=True')).toMatchObject({ reason: 'ChildrenReady', message: '2 children are ready', observedGeneration: 1 });

      // Same Job name, another template: the API server refuses the update, loom recreates that Job.
      const [oldPod] = await podsOf(clients, namespace, `job-name=${job}`);
      const before = (await getJob(job))!;
      await applyParent(name, { version: '7', args: ['migrate', '--again'] });
      const recreated = await eventually(async () => {
        const found = await getJob(job);
        return found && found.metadata.uid !== before.metadata.uid ? found : undefined;
      }, 'the Job recreated');
      const containers = (recreated.spec as { template: { spec: { containers: { args?: string[] }[] } } }).template.spec.containers;
      expect(containers[0]?.args).toEqual(['migrate', '--again']);
      const kept = await getDeployment(name);
      expect(kept?.metadata.uid).toBe(deployment.metadata.uid);
      expect(kept?.metadata.generation).toBe(deployment.metadata.generation);
      await eventually(async () => ((await clients.writer.get({ apiVersion: 'v1', kind: 'Pod', namespace, name: oldPod!.metadata.name! })) ? undefined : true), "the old Job's pod collected");
      expect(seen.filter((e) => e.object.kind === 'Deployment' && e.type === 'DELETED')).toEqual([]);
    } finally {
      stop.abort();
    }
  });
});
