import { describe, expect, it } from 'vitest';
import type { ChildResourceRule, ChildUpdateStrategy, UpdateMethod } from '../api/controller-spec.ts';
import type { ControllerRevision } from '../api/controller-revision.ts';
import type { CompositeHookResponse } from '../api/hook-wire.ts';
import type { KubeObject } from '../api/object.ts';
import { planChildren, type ChildDecision } from './child-plan.ts';
import { parentPatchOf, revisionSet, type ParentResource } from './controller-revisions.ts';
import { isRollingMethod, planRollout, usesRollingUpdates, type RolloutPlan } from './rolling-update.ts';

const parentResource: ParentResource = { group: 'ctl.example.com', resource: 'podsets' };
const ownerReferences = [{ apiVersion: 'ctl.example.com/v1', kind: 'PodSet', name: 'web', uid: 'p-1', controller: true, blockOwnerDeletion: true }];
const readyCheck = { conditions: [{ type: 'Ready', status: 'True' }] };

interface PodSetSpec {
  replicas: number;
  image: string;
  note?: string;
  serviceAnnotation?: string;
}

function podSet(spec: PodSetSpec): KubeObject {
  return { apiVersion: 'ctl.example.com/v1', kind: 'PodSet', metadata: { name: 'web', namespace: 'ns', uid: 'p-1', generation: 1 }, spec: { ...spec } };
}

function pod(name: string, image: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels: { app: 'web' }, ownerReferences }, spec: { image } };
}

function service(annotation: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns', annotations: { a: annotation }, ownerReferences }, spec: { port: 80 } };
}

/** A side-effect-free sync hook: one Pod per replica running the parent's image, and a Service. */
function hook(parent: KubeObject): CompositeHookResponse {
  const spec = parent.spec as PodSetSpec;
  const pods = Array.from({ length: spec.replicas }, (_, i) => pod(`web-${i}`, spec.image));
  return { status: { image: spec.image }, children: [...pods, service(spec.serviceAnnotation ?? 'x')], resyncAfterSeconds: 0, finalized: false };
}

const strategies: Record<string, ChildUpdateStrategy> = {
  Pod: { method: 'RollingRecreate', statusChecks: readyCheck },
  Service: { method: 'InPlace', statusChecks: { conditions: [] } },
};

/** What the API server and kubelet would hold: the parent, its revisions, its children. */
class FakeCluster {
  parent: KubeObject;
  revisions: ControllerRevision[] = [];
  children = new Map<string, KubeObject>();
  /** Pods the kubelet cannot make Ready. */
  readonly failing = new Set<string>();
  podMethod: UpdateMethod = 'RollingRecreate';
  private serial = 0;

  constructor(spec: PodSetSpec) {
    this.parent = podSet(spec);
  }

  /** One CompositeController sync: revisions, one hook call per revision, the rollout, then the writes. */
  sync(): RolloutPlan {
    const set = revisionSet({ parent: this.parent, revisions: this.revisions, fieldPaths: ['spec'], parentResource, generateSelector: false });
    const strategyFor = (_group: string, kind: string): ChildUpdateStrategy | undefined =>
      kind === 'Pod' ? { ...strategies.Pod!, method: this.podMethod } : strategies[kind];
    const observed = [...this.children.values()];
    const plan = planRollout({
      revisions: set,
      responses: { latest: hook(set.latest.parent), historic: set.historic.map((h) => hook(h.parent)) },
      observed, strategyFor, applyStrategy: 'dynamic-apply',
    });
    this.writeRevisions(plan);
    const decisions = planChildren({
      desired: plan.response.children, observed, applyStrategy: 'dynamic-apply', fieldManager: 'loom',
      methodFor: (_apiVersion, kind) => strategyFor('', kind)?.method ?? 'OnDelete',
    });
    for (const decision of decisions) this.writeChild(decision);
    return plan;
  }

  /** The kubelet: every Pod reports Ready (False for the failing ones) and its observed generation. */
  kubelet(): void {
    for (const [key, obj] of this.children) {
      if (obj.kind !== 'Pod') continue;
      const ready = this.failing.has(obj.metadata.name ?? '') ? 'False' : 'True';
      this.children.set(key, { ...obj, status: { observedGeneration: obj.metadata.generation, conditions: [{ type: 'Ready', status: ready }] } });
    }
  }

  image(name: string): unknown {
    return (this.children.get(`Pod/${name}`)?.spec as { image?: string } | undefined)?.image;
  }

  claimsOf(): Record<string, string[]> {
    const patchImage = (r: ControllerRevision): string => (r.parentPatch.spec as { image: string }).image;
    return Object.fromEntries(this.revisions.map((r) => [patchImage(r), (r.children ?? []).flatMap((c) => c.names)]));
  }

  private stored(obj: KubeObject, generation: number): KubeObject {
    this.serial += 1;
    return { ...obj, metadata: { ...obj.metadata, uid: obj.metadata.uid ?? `uid-${this.serial}`, resourceVersion: String(this.serial), generation } };
  }

  private writeRevisions(plan: RolloutPlan): void {
    for (const write of plan.revisionWrites) {
      if (write.action === 'delete') this.revisions = this.revisions.filter((r) => r.metadata.name !== write.name);
      else this.revisions = [...this.revisions.filter((r) => r.metadata.name !== write.revision.metadata.name), this.stored(write.revision, 1) as ControllerRevision];
    }
  }

  private writeChild(decision: ChildDecision): void {
    const key = `${decision.child.kind}/${decision.child.name}`;
    const current = this.children.get(key);
    if (decision.action === 'create') this.children.set(key, this.stored(decision.object, 1));
    if (decision.action === 'delete' || decision.action === 'recreate') this.children.delete(key);
    if (decision.action === 'update') this.children.set(key, this.stored(decision.object, (current?.metadata.generation ?? 0) + 1));
  }
}

function isReady(obj: KubeObject): boolean {
  const conditions = (obj.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Syncs (with the kubelet between syncs) until the rollout is done or `limit` syncs have run. */
function rollOut(cluster: FakeCluster, limit = 40): { moved: string[]; conditions: string[]; last: RolloutPlan } {
  const moved: string[] = [];
  const conditions: string[] = [];
  let last = cluster.sync();
  for (let i = 0; i < limit && last.condition.reason !== 'OnLatestRevision'; i += 1) {
    cluster.kubelet();
    last = cluster.sync();
    if (last.moved) moved.push(last.moved.name);
    conditions.push(`${last.condition.reason}: ${last.condition.message}`);
    // One at a time: at most one Pod is on the new image but not Ready.
    const inFlight = [...cluster.children.values()].filter((c) => c.kind === 'Pod' && (c.spec as PodSetSpec).image === 'v2' && !isReady(c));
    expect(inFlight.length).toBeLessThanOrEqual(1);
  }
  return { moved, conditions, last };
}

function steadyCluster(spec: PodSetSpec = { replicas: 5, image: 'v1' }): FakeCluster {
  const cluster = new FakeCluster(spec);
  const first = cluster.sync();
  expect(first.condition.reason).toBe('OnLatestRevision');
  cluster.kubelet();
  return cluster;
}

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `web-${i}`);

describe('a 5-Pod RollingRecreate rollout, step by step', () => {
  it('starts on one revision claiming every Pod, and a second sync changes nothing', () => {
    const cluster = steadyCluster();
    expect(cluster.claimsOf()).toEqual({ v1: names(5) });
    const again = cluster.sync();
    expect(again.revisionWrites).toEqual([]);
    expect(again.condition).toEqual({ type: 'Updated', status: 'True', reason: 'OnLatestRevision', message: `latest ControllerRevision: ${cluster.revisions[0]?.metadata.name}` });
    expect(again.response.status).toEqual({ image: 'v1', conditions: [again.condition] });
  });

  it('moves one Pod at a time in hook order, waiting for each to be recreated and Ready', () => {
    const cluster = steadyCluster();
    cluster.parent = podSet({ replicas: 5, image: 'v2' });

    const first = cluster.sync();
    expect(first.condition).toMatchObject({ reason: 'RolloutProgressing', message: 'updating Pod web-0' });
    expect(first.revisionWrites.map((w) => w.action)).toEqual(['create', 'update']);
    expect(cluster.claimsOf()).toEqual({ v1: ['web-1', 'web-2', 'web-3', 'web-4'], v2: ['web-0'] });
    expect(cluster.image('web-0')).toBeUndefined();
    expect(cluster.image('web-1')).toBe('v1');

    const recreated = cluster.sync();
    expect(recreated.condition).toMatchObject({ reason: 'RolloutWaiting', message: 'missing child Pod web-0' });
    expect(recreated.revisionWrites).toEqual([]);
    expect(cluster.image('web-0')).toBe('v2');

    const notReady = cluster.sync();
    expect(notReady.condition).toMatchObject({ reason: 'RolloutWaiting', message: 'child Pod web-0 failed status check: required condition type missing: "Ready"' });

    const { moved, last } = rollOut(cluster);
    expect(moved).toEqual(['web-1', 'web-2', 'web-3', 'web-4']);
    expect(names(5).map((n) => cluster.image(n))).toEqual(Array(5).fill('v2'));
    expect(cluster.claimsOf()).toEqual({ v2: names(5) });
    expect(last.condition.message).toBe(`latest ControllerRevision: ${cluster.revisions[0]?.metadata.name}`);
  });

  it('deletes the old revision in the sync that moves its last Pod', () => {
    const cluster = steadyCluster();
    const oldName = cluster.revisions[0]?.metadata.name;
    cluster.parent = podSet({ replicas: 5, image: 'v2' });
    const plans: RolloutPlan[] = [];
    for (let i = 0; i < 40 && cluster.claimsOf().v1 !== undefined; i += 1) {
      plans.push(cluster.sync());
      cluster.kubelet();
    }
    const lastMove = plans.findLast((p) => p.moved)!;
    expect(lastMove.moved?.name).toBe('web-4');
    expect(lastMove.revisionWrites[0]).toEqual({ action: 'delete', name: oldName, uid: expect.any(String) as string });
    expect(lastMove.revisionWrites.slice(1).map((w) => w.action)).toEqual(['update']);
  });

  it('halts on a failing status check and goes on once it is fixed', () => {
    const cluster = steadyCluster();
    cluster.failing.add('web-2');
    cluster.parent = podSet({ replicas: 5, image: 'v2' });
    const halted = rollOut(cluster, 20);
    expect(halted.moved).toEqual(['web-1', 'web-2']);
    expect(halted.last.condition).toEqual({
      type: 'Updated', status: 'False', reason: 'RolloutWaiting',
      message: 'child Pod web-2 failed status check: "Ready" condition status is "False" (want "True")',
    });
    expect(names(5).map((n) => cluster.image(n))).toEqual(['v2', 'v2', 'v2', 'v1', 'v1']);
    expect(cluster.claimsOf()).toEqual({ v1: ['web-3', 'web-4'], v2: ['web-0', 'web-1', 'web-2'] });

    cluster.failing.delete('web-2');
    const resumed = rollOut(cluster);
    expect(resumed.moved).toEqual(['web-3', 'web-4']);
    expect(resumed.last.condition.reason).toBe('OnLatestRevision');
    expect(cluster.claimsOf()).toEqual({ v2: names(5) });
  });

  it('keeps its progress in the revisions only: a fresh planner resumes where the last one stopped', () => {
    const cluster = steadyCluster();
    cluster.parent = podSet({ replicas: 5, image: 'v2' });
    rollOut(cluster, 6);
    const progress = cluster.claimsOf();
    const restarted = new FakeCluster({ replicas: 5, image: 'v2' });
    restarted.revisions = structuredClone(cluster.revisions);
    restarted.children = new Map([...cluster.children].map(([k, v]) => [k, structuredClone(v)]));
    expect(restarted.sync().revisionWrites.length).toBeLessThanOrEqual(1);
    expect(restarted.claimsOf().v2?.slice(0, progress.v2?.length)).toEqual(progress.v2);
  });
});

describe('RollingInPlace', () => {
  it('updates in place and waits until the Pod has observed its new generation', () => {
    const cluster = steadyCluster();
    cluster.podMethod = 'RollingInPlace';
    cluster.parent = podSet({ replicas: 5, image: 'v2' });
    expect(cluster.sync().moved?.name).toBe('web-0');
    expect(cluster.image('web-0')).toBe('v2');
    const waiting = cluster.sync();
    expect(waiting.condition.message).toBe("child Pod web-0 with RollingInPlace update strategy hasn't observed latest spec");
    cluster.kubelet();
    expect(cluster.sync().moved?.name).toBe('web-1');
  });
});

describe('planRollout rules', () => {
  it('moves children that need no change at once, and the old revision goes', () => {
    const cluster = steadyCluster({ replicas: 3, image: 'v1' });
    cluster.parent = podSet({ replicas: 3, image: 'v1', note: 'cosmetic' });
    const plan = cluster.sync();
    expect(plan.condition.reason).toBe('OnLatestRevision');
    expect(plan.revisionWrites.map((w) => w.action)).toEqual(['delete', 'create']);
    expect(cluster.revisions).toHaveLength(1);
    expect(cluster.revisions[0]?.children).toEqual([{ apiGroup: '', kind: 'Pod', names: names(3) }]);
  });

  it('gives a new child to the latest revision, creates it with the latest state and waits for it too', () => {
    const cluster = steadyCluster({ replicas: 2, image: 'v1' });
    cluster.parent = podSet({ replicas: 3, image: 'v2' });
    const plan = cluster.sync();
    expect(cluster.claimsOf()).toEqual({ v1: ['web-0', 'web-1'], v2: ['web-2'] });
    expect(plan.condition.message).toBe('missing child Pod web-2');
    expect(cluster.image('web-2')).toBe('v2');
    expect(cluster.image('web-0')).toBe('v1');
    cluster.kubelet();
    expect(cluster.sync().moved?.name).toBe('web-0');
  });

  it('forgets the claim on a child the latest no longer wants, which is then deleted', () => {
    const cluster = steadyCluster({ replicas: 3, image: 'v1' });
    cluster.parent = podSet({ replicas: 2, image: 'v2' });
    const plan = cluster.sync();
    expect(plan.response.children.map((c) => c.metadata.name)).toEqual(['web-0', 'web-1', 'web']);
    expect(cluster.claimsOf()).toEqual({ v1: ['web-1'], v2: ['web-0'] });
    expect(cluster.children.has('Pod/web-2')).toBe(false);
  });

  it('gives kinds that do not roll the latest state at once', () => {
    const cluster = steadyCluster({ replicas: 2, image: 'v1' });
    cluster.parent = podSet({ replicas: 2, image: 'v2', serviceAnnotation: 'new' });
    cluster.sync();
    expect(cluster.children.get('Service/web')?.metadata.annotations?.a).toBe('new');
    expect(cluster.revisions.flatMap((r) => r.children ?? []).map((c) => c.kind)).not.toContain('Service');
  });

  it('reports every rolling child on the latest revision when none rolls', () => {
    const cluster = steadyCluster({ replicas: 0, image: 'v1' });
    cluster.parent = podSet({ replicas: 0, image: 'v2' });
    const plan = cluster.sync();
    expect(plan.condition.reason).toBe('OnLatestRevision');
    expect(plan.revisionWrites.map((w) => w.action)).toEqual(['delete', 'create']);
  });
});

describe('planRollout aggregation and contract', () => {
  const v1 = podSet({ replicas: 2, image: 'v1' });
  const v2 = podSet({ replicas: 2, image: 'v2' });
  const oldRevision = (children: string[]): ControllerRevision => ({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'ControllerRevision',
    metadata: { name: 'old', namespace: 'ns', uid: 'uid-old', resourceVersion: '1' },
    parentPatch: parentPatchOf(v1, ['spec']),
    children: [{ apiGroup: '', kind: 'Pod', names: children }],
  });
  const input = (revisions: ControllerRevision[], responses: { latest: CompositeHookResponse; historic: CompositeHookResponse[] }) => ({
    revisions: revisionSet({ parent: v2, revisions, fieldPaths: ['spec'], parentResource, generateSelector: false }),
    responses, observed: [], applyStrategy: 'dynamic-apply' as const,
    strategyFor: (_g: string, kind: string) => strategies[kind],
  });

  it('takes status from the latest revision, the smallest positive resync and the AND of finalized', () => {
    const latest = { ...hook(v2), status: { from: 'latest' }, resyncAfterSeconds: 0, finalized: true };
    const historic = { ...hook(v1), status: { from: 'old' }, resyncAfterSeconds: 2.5, finalized: false };
    const plan = planRollout(input([oldRevision(['web-0', 'web-1'])], { latest, historic: [historic] }));
    expect(plan.response.status).toEqual({ from: 'latest', conditions: [plan.condition] });
    expect(plan.response.resyncAfterSeconds).toBe(2.5);
    expect(plan.response.finalized).toBe(false);
    // web-0 moved to the latest revision (nothing was there to wait for); web-1 keeps the old version.
    expect(plan.moved?.name).toBe('web-0');
    expect(plan.response.children.map((c) => (c.spec as PodSetSpec).image ?? c.kind)).toEqual(['v2', 'v1', 'Service']);
  });

  it('ignores revisions left without children when aggregating', () => {
    const historic = { ...hook(v1), resyncAfterSeconds: 1, finalized: false };
    const plan = planRollout(input([oldRevision(['web-9'])], { latest: { ...hook(v2), finalized: true }, historic: [historic] }));
    expect(plan.response).toMatchObject({ resyncAfterSeconds: 0, finalized: true });
    expect(plan.revisionWrites[0]).toEqual({ action: 'delete', name: 'old', uid: 'uid-old' });
  });

  it("uses the latest version of a child whose old revision's hook no longer returns it", () => {
    const historic = { ...hook(v1), children: [pod('web-0', 'v1')] };
    const plan = planRollout(input([oldRevision(['web-1', 'web-0'])], { latest: hook(v2), historic: [historic] }));
    expect(plan.moved?.name).toBe('web-0');
    // web-1 stays claimed by the old revision, but that revision no longer has a version of it.
    expect(plan.revisionWrites).toContainEqual({ action: 'update', revision: expect.objectContaining({ children: [{ apiGroup: '', kind: 'Pod', names: ['web-1'] }] }) as unknown });
    expect(plan.response.children.slice(0, 2).map((c) => (c.spec as PodSetSpec).image)).toEqual(['v2', 'v2']);
  });

  it('does not modify its inputs', () => {
    const given = input([oldRevision(['web-0', 'web-1'])], { latest: hook(v2), historic: [hook(v1)] });
    const before = structuredClone(given.revisions);
    const plan = planRollout(given);
    expect(plan.moved).toBeDefined();
    expect(given.revisions).toEqual(before);
  });

  it('needs one hook response per historic revision', () => {
    expect(() => planRollout(input([oldRevision(['web-0'])], { latest: hook(v2), historic: [] }))).toThrow(RangeError);
  });
});

describe('isRollingMethod / usesRollingUpdates', () => {
  const rule = (method: UpdateMethod): ChildResourceRule => ({ apiVersion: 'v1', resource: 'pods', updateStrategy: { method, statusChecks: { conditions: [] } } });

  it.each<[UpdateMethod, boolean]>([['OnDelete', false], ['Recreate', false], ['InPlace', false], ['RollingRecreate', true], ['RollingInPlace', true]])('%s rolls: %s', (method, want) => {
    expect(isRollingMethod(method)).toBe(want);
    expect(usesRollingUpdates([rule('InPlace'), rule(method)])).toBe(want);
  });

  it('no rules, no rolling', () => {
    expect(usesRollingUpdates([])).toBe(false);
    expect(isRollingMethod(undefined)).toBe(false);
  });
});
