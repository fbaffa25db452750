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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { readinessOf } from '../src/core/index.ts';
import { APPLY_MODES, startModeHosts } from './support/apply-modes.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { parentReadyWhen, type ParentReady } from './support/parent-ready.ts';
import { podsOf, reportPods } from './support/pod-status.ts';
import { parentWritesOverSyncs } from './support/quiet-parent.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { inRevisionOrder, recordWatches, type RecordedEvent } from './support/watch-record.ts';

const LABEL = 'migration-job';
const PARENT = TEST_PARENT_KINDS.migrating;
let clients: TestClients;
let hosts: TestLoom[] = [];
let namespace: string;

/**
 * Example 3's controller, with the Job type updated in place so that a changed template reaches the
 * API server. Each apply strategy's host runs a copy for the parents labelled with it.
 */
const MANIFEST = `
apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata:
  name: migration-job
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
                  "metadata": { "name": $n & "-migrate-" & parent.spec.version, "annotations": { "loom.dev/wave": "0", "poke": parent.metadata.annotations.poke } },
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

const getParent = (name: string) => clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });
const getJob = (name: string) => clients.writer.get({ apiVersion: 'batch/v1', kind: 'Job', namespace, name });
const getDeployment = (name: string) => clients.writer.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });
const applyParent = (name: string, mode: string, spec: object, annotations: Record<string, string> = {}) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name, namespace, labels: { apply: mode }, annotations }, spec });

/** Whether a Job's status says Complete=True: the readyWhen of the manifest, in the test's words. */
const complete = (job: KubeObject): boolean =>
  ((job.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');

/** The parent's Ready condition once `accept` takes it. */
const readyWhen = (name: string, accept: (c: ParentReady) => boolean, what: string) => parentReadyWhen(() => getParent(name), accept, what);

/** The image a Deployment's pods run. */
const imageOf = (deployment: KubeObject): string | undefined =>
  (deployment.spec as { template: { spec: { containers: { image?: string }[] } } }).template.spec.containers[0]?.image;

/**
 * The Deployment events running `image` that came before the first event of Job `job` saying it is
 * Complete (by revision), described: the writes that did not wait for the migration.
 */
function deploymentsBeforeCompletion(seen: readonly RecordedEvent[], job: string, image: string): string[] {
  const early: string[] = [];
  for (const event of inRevisionOrder(seen)) {
    if (event.object.kind === 'Job' && event.object.metadata.name === job && complete(event.object)) return early;
    if (event.object.kind === 'Deployment' && imageOf(event.object) === image) early.push(`${event.type} ${event.object.metadata.name} at ${event.revision}`);
  }
  return [...early, `${job} never completed`];
}

/** Reports the pod of Job `job` Succeeded, and waits for the Job controller to mark the Job Complete. */
async function completeJob(job: string): Promise<void> {
  await reportPods(clients, namespace, `job-name=${job}`, 'Succeeded');
  await eventually(async () => {
    const found = await getJob(job);
    return (found && complete(found)) || undefined;
  }, `${job} Complete`);
}

/** Job `job`, once its controller has started it. */
function started(job: string): Promise<KubeObject> {
  return eventually(async () => {
    const found = await getJob(job);
    return found && (found.status as { startTime?: string } | undefined)?.startTime ? found : undefined;
  }, `${job} started by its controller`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  hosts = await startModeHosts(clients, LABEL, MANIFEST);
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
});

describe.each(APPLY_MODES)('a migration Job before a Deployment with $applyStrategy', ({ mode }) => {
  it('holds the Deployment while the Job only runs, creates it once the Job completed, and recreates the Job alone on a template change', async () => {
    const name = `shop-${mode}`;
    const job = `${name}-migrate-7`;
    const stop = new AbortController();
    const paths = [`/apis/batch/v1/namespaces/${namespace}/jobs`, `/apis/apps/v1/namespaces/${namespace}/deployments`, `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${PARENT.plural}`];
    const { seen, established } = recordWatches(clients.client, paths, stop.signal);
    await established;
    const ours = () => seen.filter((e) => e.object.metadata.name === name || e.object.metadata.name === job);
    try {
      await applyParent(name, mode, { version: '7', args: ['migrate'] });
      const running = await started(job);
      // kstatus alone would call a started Job ready; the type's readyWhen does not.
      expect(readinessOf(running).status).toBe('Current');
      const { ready: held } = await readyWhen(name, (c) => c.reason === 'ChildrenHeld', 'Ready=False ChildrenHeld');
      expect(held).toMatchObject({ status: 'False', observedGeneration: 1 });
      expect(held.message).toMatch(new RegExp(`^Deployment ${namespace}/${name} waits for Job ${namespace}/${job} \\(InProgress: .*false\\)$`));
      expect(await getDeployment(name)).toBeUndefined();

      await completeJob(job);
      const deployment = await eventually(() => getDeployment(name), 'the Deployment created');
      expect(deploymentsBeforeCompletion(ours(), job, 'app:7')).toEqual([]);

      await reportPods(clients, namespace, `app=${name}`, 'Running');
      const converged = await readyWhen(name, (c) => c.status === 'True', 'Ready=True');
      expect(converged.ready).toMatchObject({ reason: 'ChildrenReady', message: '2 children are ready', observedGeneration: 1 });
      // Converged in waves, loom leaves the parent alone: syncs the test brings about, each seen in the Job it annotates.
      const loomWrites = await parentWritesOverSyncs({
        seen: seen.filter((e) => e.object.kind === PARENT.kind), name, since: converged.parent.metadata.resourceVersion,
        poke: (poke) => applyParent(name, mode, { version: '7', args: ['migrate'] }, { poke }),
        pokeSeen: async () => (await getJob(job))?.metadata.annotations?.poke,
      });
      expect(loomWrites.map((e) => e.object.status), 'status writes after convergence').toEqual([]);

      // Same Job name, another template: the API server refuses the update, loom recreates that Job.
      const [oldPod] = await podsOf(clients, namespace, `job-name=${job}`);
      const before = (await getJob(job))!;
      await applyParent(name, mode, { version: '7', args: ['migrate', '--again'] });
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
      expect(ours().filter((e) => e.object.kind === 'Deployment' && e.type === 'DELETED')).toEqual([]);
    } finally {
      stop.abort();
    }
  });

  it('keeps the Deployment on the old version while the new version\'s Job runs, and rolls it out once that Job completed', async () => {
    const name = `roll-${mode}`;
    const stop = new AbortController();
    const { seen, established } = recordWatches(clients.client, [`/apis/batch/v1/namespaces/${namespace}/jobs`, `/apis/apps/v1/namespaces/${namespace}/deployments`], stop.signal);
    await established;
    try {
      await applyParent(name, mode, { version: '7', args: ['migrate'] });
      await started(`${name}-migrate-7`);
      await completeJob(`${name}-migrate-7`);
      const deployment = await eventually(() => getDeployment(name), 'the Deployment created');

      await applyParent(name, mode, { version: '8', args: ['migrate'] });
      await started(`${name}-migrate-8`);
      const { ready: held } = await readyWhen(name, (c) => c.reason === 'ChildrenHeld' && c.observedGeneration === 2, 'Ready=False ChildrenHeld for version 8');
      expect(held.message).toMatch(new RegExp(`^Deployment ${namespace}/${name} waits for Job ${namespace}/${name}-migrate-8 \\(InProgress: [^)]*false\\); `));
      // Deletions go last: the old version's Job stays until the Deployment has moved on.
      expect(held.message).toContain(`deleting Job ${namespace}/${name}-migrate-7 waits for Deployment ${namespace}/${name} (held)`);
      expect(await getJob(`${name}-migrate-7`)).toBeDefined();
      const waiting = await getDeployment(name);
      expect(imageOf(waiting!)).toBe('app:7');
      expect(waiting?.metadata.generation).toBe(deployment.metadata.generation);

      await completeJob(`${name}-migrate-8`);
      await eventually(async () => {
        const rolled = await getDeployment(name);
        return rolled && imageOf(rolled) === 'app:8' ? rolled : undefined;
      }, 'the Deployment on version 8');
      await eventually(async () => ((await getJob(`${name}-migrate-7`)) ? undefined : true), "the old version's Job deleted once the Deployment moved on");
      expect(deploymentsBeforeCompletion(seen.filter((e) => e.object.metadata.name === name || e.object.metadata.name === `${name}-migrate-8`), `${name}-migrate-8`, 'app:8')).toEqual([]);
      expect((await getDeployment(name))?.metadata.uid).toBe(deployment.metadata.uid);
    } finally {
      stop.abort();
    }
  });
});
