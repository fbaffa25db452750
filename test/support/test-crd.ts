/**
 * A parent CRD for engine tests: free-form spec, a status subresource (optional), namespaced unless
 * said otherwise, and a name unique to the test file so files running side by side do not share it.
 */
import type { KubeObject } from '../../src/api/index.ts';
import { systemClock } from '../../src/engine/index.ts';
import { waitForCrdsEstablished } from '../../src/kube/index.ts';
import type { TestClients } from './loom.ts';

/** The group every test CRD lives in. */
export const TEST_GROUP = 'test.loom.dev';

/** Names of one test parent type. */
export interface ParentKind {
  plural: string;
  kind: string;
  /** Has a status subresource (default true). */
  status?: boolean;
  /** `Cluster` for a cluster-scoped parent type (default namespaced). */
  scope?: 'Cluster';
  /**
   * The status an object has until one is written: a status subresource drops any status on create,
   * so this default (applied when it is read) is how a new object starts out not ready.
   */
  statusDefault?: object;
}

/**
 * Every parent type the integration tests use. The global setup creates them before the
 * controller-manager starts, so garbage collection knows their kinds from the start; a test file
 * uses its own kind, so files running side by side never share parents.
 */
export const TEST_PARENT_KINDS = {
  paint: { plural: 'paints', kind: 'Paint' },
  dynamicPaint: { plural: 'dynamicpaints', kind: 'DynamicPaint' },
  lifecycle: { plural: 'lifecycles', kind: 'Lifecycle' },
  claim: { plural: 'claims', kind: 'Claim' },
  takenName: { plural: 'takennames', kind: 'TakenName' },
  quiet: { plural: 'quiets', kind: 'Quiet' },
  contested: { plural: 'contesteds', kind: 'Contested' },
  referencing: { plural: 'referencings', kind: 'Referencing' },
  /** Cluster-scoped, so its children can live in a namespace that is deleted while it stays. */
  doomed: { plural: 'dooms', kind: 'Doom', scope: 'Cluster' },
  faulty: { plural: 'faulties', kind: 'Faulty' },
  /** The parents of the evaluator-hogs fault test, told apart by a `role` label. */
  hog: { plural: 'hogs', kind: 'Hog' },
  statusless: { plural: 'statuslesses', kind: 'Statusless', status: false },
  jsonata: { plural: 'expressions', kind: 'Expression' },
  related: { plural: 'relateds', kind: 'Related' },
  /** Cluster-scoped, where hook version v1 may select related objects in any namespace. */
  clusterRelated: { plural: 'clusterrelateds', kind: 'ClusterRelated', scope: 'Cluster' },
  decorated: { plural: 'decorateds', kind: 'Decorated' },
  sharded: { plural: 'shardeds', kind: 'Sharded' },
  traced: { plural: 'traceds', kind: 'Traced' },
  handover: { plural: 'handovers', kind: 'Handover' },
  shardTarget: { plural: 'shardtargets', kind: 'ShardTarget' },
  rolling: { plural: 'rollings', kind: 'Rolling' },
  /** The children of `rolling`: a CRD, so the test can write their status conditions. */
  rollChild: { plural: 'rollchildren', kind: 'RollChild' },
  /** The parents of the kill -9 restart test. */
  restart: { plural: 'restarts', kind: 'Restart' },
  /** The JSONata parents of the image payload test. */
  imagePayload: { plural: 'imagepayloads', kind: 'ImagePayload' },
  /** The parents of the Helm chart test's controllers. */
  chart: { plural: 'chartparents', kind: 'ChartParent' },
  /** The parents and decorator targets of the field-manager test. */
  managed: { plural: 'manageds', kind: 'Managed' },
  /** The parents of the stop tests: a deleted controller or parent, a newer spec, SIGTERM mid-sync. */
  stopping: { plural: 'stoppings', kind: 'Stopping' },
  /** The parents of the `loom run` SIGTERM test. */
  terminated: { plural: 'terminateds', kind: 'Terminated' },
  /** The parents of the migration-from-Metacontroller test. */
  migration: { plural: 'migrations', kind: 'Migration' },
  /** The parents whose hook fails with a 100 MB message. */
  hugeError: { plural: 'hugeerrors', kind: 'HugeError' },
  /** The parents of a controller `loom dev --kubeconfig` finds in the cluster and must not run. */
  devOther: { plural: 'devothers', kind: 'DevOther' },
  /** The parents of a controller a user applies while `loom dev` runs on its own control plane. */
  devUser: { plural: 'devusers', kind: 'DevUser' },
  /** The parents and decorator targets of the shard-label test, which carry labels their authors chose. */
  shardLabelled: { plural: 'shardlabelleds', kind: 'ShardLabelled' },
  shardLabelledTarget: { plural: 'shardlabelledtargets', kind: 'ShardLabelledTarget' },
  /** The parents of the hook resilience test (concurrency cap, circuit breaker). */
  resilient: { plural: 'resilients', kind: 'Resilient' },
  /** The parents of the ordering test (waves, dependsOn, the Ready condition). */
  ordered: { plural: 'ordereds', kind: 'Ordered' },
  /** The parents of the ordering test's controller with `orderedTeardown`. */
  orderedTeardown: { plural: 'orderedteardowns', kind: 'OrderedTeardown' },
  /** Its CRD-backed children: not ready (Ready=False) until the test writes their status. */
  orderedChild: {
    plural: 'orderedchildren', kind: 'OrderedChild',
    statusDefault: { conditions: [{ type: 'Ready', status: 'False', reason: 'Provisioning', message: 'waiting for the test' }] },
  },
  /** The parents of the last-good-spec test: a controller edited into a broken one keeps syncing them. */
  lastGood: { plural: 'lastgoods', kind: 'LastGood' },
  /** The parents of the per-child lifecycle policy test. */
  lifecyclePolicy: { plural: 'lifecyclepolicies', kind: 'LifecyclePolicy' },
  /** The parents of the Ready condition test (built-in children, no waves). */
  readyParent: { plural: 'readyparents', kind: 'ReadyParent' },
  /** The parents of the migration Job before a Deployment test (type-level readyWhen, waves). */
  migrating: { plural: 'migratings', kind: 'Migrating' },
  /** The parents of the claim before a StatefulSet test (waves, Retain). */
  cache: { plural: 'caches', kind: 'Cache' },
  /** The parents of the controller's `SyncsFailing` condition test. */
  syncsFailing: { plural: 'failingsyncs', kind: 'FailingSync' },
} as const satisfies Record<string, ParentKind>;

function statusSchema(names: ParentKind): object {
  if (!names.statusDefault) return {};
  return { properties: { status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: names.statusDefault } } };
}

/** The CRD of a test parent type. */
export function parentCrd(names: ParentKind): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${TEST_GROUP}` },
    spec: {
      group: TEST_GROUP, scope: names.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
      names: { plural: names.plural, kind: names.kind, singular: names.kind.toLowerCase(), listKind: `${names.kind}List` },
      versions: [{
        name: 'v1', served: true, storage: true,
        ...(names.status === false ? {} : { subresources: { status: {} } }),
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...statusSchema(names) } },
      }],
    },
  };
}

/** Makes sure the CRD of `names` is served (the global setup already created it) and known to `clients`. */
export async function createParentCrd(clients: TestClients, names: ParentKind): Promise<void> {
  const crd = parentCrd(names);
  await clients.apply(crd);
  await waitForCrdsEstablished(clients.client, [crd.metadata.name!], { sleep: (ms, signal) => systemClock.sleep(ms, signal) });
  await clients.refresh();
}
