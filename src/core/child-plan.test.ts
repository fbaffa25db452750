import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { fingerprintOf, type AppliedRecord } from './applied-fingerprint.ts';
import { childRefOf, planChildren, type ApplyStrategy, type ChildDecision, type PlanChildrenInput, type UpdateMethod } from './child-plan.ts';
import { LAST_APPLIED_PATH } from './ownership-takeover.ts';
import { LAST_APPLIED_ANNOTATION, withLastApplied } from './three-way-merge.ts';

const ownerReferences = [{ apiVersion: 'x/v1', kind: 'App', name: 'app', uid: 'p-1', controller: true, blockOwnerDeletion: true }];

function child(kind: string, name: string, extra: Partial<KubeObject> = {}, namespace = 'ns'): KubeObject {
  const apiVersion = kind === 'Deployment' ? 'apps/v1' : 'v1';
  return { apiVersion, kind, metadata: { name, namespace, ownerReferences }, ...extra };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** What the API server holds after loom wrote `desired` with `strategy`. */
function stored(desired: KubeObject, strategy: ApplyStrategy, extraMeta: Record<string, unknown> = {}): KubeObject {
  const written = strategy === 'dynamic-apply' ? withLastApplied(desired) : structuredClone(desired);
  return {
    ...written,
    metadata: { ...written.metadata, uid: 'c-1', resourceVersion: '5', generation: 1, ...extraMeta },
    status: { readyReplicas: 1 },
  };
}

const v1 = child('Deployment', 'web', { spec: { replicas: 2 } });
const v2 = child('Deployment', 'web', { spec: { replicas: 3 } });
const recordOf = (desired: KubeObject): AppliedRecord => ({ uid: 'c-1', hash: fingerprintOf(desired), resourceVersion: '5' });

type State = 'missing' | 'same' | 'different' | 'terminating';

/** Observed children and the SSA record for a state; desired is always `v2`. */
function scenario(state: State, strategy: ApplyStrategy): { observed: KubeObject[]; record: AppliedRecord | undefined } {
  switch (state) {
    case 'missing':
      return { observed: [], record: undefined };
    case 'same':
      return { observed: [stored(v2, strategy)], record: recordOf(v2) };
    case 'different':
      return { observed: [stored(v1, strategy)], record: recordOf(v1) };
    case 'terminating':
      return { observed: [stored(v1, strategy, { deletionTimestamp: '2026-01-01T00:00:00Z' })], record: recordOf(v1) };
  }
}

function plan(method: UpdateMethod, strategy: ApplyStrategy, state: State): ChildDecision[] {
  const { observed, record } = scenario(state, strategy);
  return planChildren({
    desired: deepFreeze([v2]),
    observed: deepFreeze(observed),
    methodFor: () => method,
    applyStrategy: strategy, fieldManager: 'loom',
    lastApplied: () => record,
  });
}

function summary(decision: ChildDecision | undefined): string {
  if (!decision) return 'none';
  return decision.action === 'skip' ? `skip:${decision.reason}` : decision.action;
}

const expectations: [UpdateMethod, Record<State, string>][] = [
  ['OnDelete', { missing: 'create', same: 'unchanged', different: 'skip:on-delete', terminating: 'skip:terminating' }],
  ['Recreate', { missing: 'create', same: 'unchanged', different: 'recreate', terminating: 'skip:terminating' }],
  ['RollingRecreate', { missing: 'create', same: 'unchanged', different: 'recreate', terminating: 'skip:terminating' }],
  ['InPlace', { missing: 'create', same: 'unchanged', different: 'update', terminating: 'skip:terminating' }],
  ['RollingInPlace', { missing: 'create', same: 'unchanged', different: 'update', terminating: 'skip:terminating' }],
];

const strategies: ApplyStrategy[] = ['dynamic-apply', 'server-side-apply'];
const states: State[] = ['missing', 'same', 'different', 'terminating'];
const matrix = expectations.flatMap(([method, byState]) =>
  strategies.flatMap((strategy) => states.map((state): [UpdateMethod, ApplyStrategy, State, string] => [method, strategy, state, byState[state]])),
);

describe('planChildren: method × strategy × state', () => {
  it.each(matrix)('%s / %s / %s → %s', (method, strategy, state, expected) => {
    const decisions = plan(method, strategy, state);
    expect(decisions).toHaveLength(1);
    expect(summary(decisions[0])).toBe(expected);
    expect(decisions[0]?.child).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' });
  });
});

describe('planChildren: what each decision carries', () => {
  it('dynamic-apply create: desired with its last-applied annotation', () => {
    const [decision] = plan('InPlace', 'dynamic-apply', 'missing');
    expect(decision).toEqual({ action: 'create', child: decision?.child, object: withLastApplied(v2) });
  });

  it('server-side-apply create: desired as is, with the fingerprint to record', () => {
    const [decision] = plan('InPlace', 'server-side-apply', 'missing');
    expect(decision).toEqual({ action: 'create', child: decision?.child, object: v2, fingerprint: fingerprintOf(v2) });
  });

  it('dynamic-apply update: the merged object to PUT', () => {
    const [decision] = plan('InPlace', 'dynamic-apply', 'different');
    if (decision?.action !== 'update' || decision.strategy !== 'dynamic-apply') throw new Error(`unexpected ${summary(decision)}`);
    expect(decision.object.spec).toEqual({ replicas: 3 });
    expect(decision.object.status).toEqual({ readyReplicas: 1 });
    expect(decision.object.metadata).toMatchObject({ uid: 'c-1', resourceVersion: '5', ownerReferences: v2.metadata.ownerReferences });
    // Recorded as Metacontroller records it: without the controller reference loom adds.
    const { ownerReferences: _ours, ...recordedMetadata } = v2.metadata;
    expect(JSON.parse(decision.object.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '')).toEqual({ ...v2, metadata: recordedMetadata });
  });

  it('server-side-apply update: desired to apply, fingerprint, no annotation to drop', () => {
    const [decision] = plan('InPlace', 'server-side-apply', 'different');
    expect(decision).toEqual({
      action: 'update',
      strategy: 'server-side-apply',
      child: decision?.child,
      object: v2,
      fingerprint: fingerprintOf(v2),
      takeOver: undefined,
    });
  });

  // A Recreate takes over before its dry run: otherwise the dry run keeps a field desired dropped
  // (another entry still owns it) and finds nothing to recreate.
  it.each<[UpdateMethod, string]>([['InPlace', 'update'], ['Recreate', 'recreate']])(
    'server-side-apply %s of a child dynamic apply wrote: takes it over first, dropping its annotation', (method, action) => {
      const [decision] = planChildren({
        desired: [v2], observed: [stored(v1, 'dynamic-apply')], methodFor: () => method, applyStrategy: 'server-side-apply', fieldManager: 'loom',
      });
      if (decision?.action !== action || !('takeOver' in decision)) throw new Error(`unexpected ${summary(decision)}`);
      expect(decision.takeOver).toContainEqual({ op: 'remove', path: LAST_APPLIED_PATH });
    },
  );

  it('recreate: the uid precondition and desired (for the dry run)', () => {
    const [decision] = plan('Recreate', 'server-side-apply', 'different');
    expect(decision).toEqual({ action: 'recreate', child: decision?.child, uid: 'c-1', desired: v2, takeOver: undefined });
  });

  it.each<UpdateMethod>(['Recreate', 'RollingRecreate'])('dynamic-apply %s of a child that only lacks the record: records it in place, recreating nothing', (method) => {
    // A child server-side apply wrote (Metacontroller's or loom's) holds what desired asks but no annotation.
    const [decision] = planChildren({
      desired: [v2], observed: [stored(v2, 'server-side-apply')], methodFor: () => method, applyStrategy: 'dynamic-apply', fieldManager: 'loom',
    });
    if (decision?.action !== 'update' || decision.strategy !== 'dynamic-apply') throw new Error(`unexpected ${summary(decision)}`);
    expect(decision.object.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBeDefined();
    expect(decision.object.metadata.uid).toBe('c-1');
  });

  it('dynamic-apply recreate of a child lacking the record whose content differs too: recreates', () => {
    const [decision] = planChildren({
      desired: [v2], observed: [stored(v1, 'server-side-apply')], methodFor: () => 'Recreate', applyStrategy: 'dynamic-apply', fieldManager: 'loom',
    });
    expect(summary(decision)).toBe('recreate');
  });

  it('dynamic-apply recreate: nothing to take over', () => {
    const [decision] = plan('Recreate', 'dynamic-apply', 'different');
    expect(decision).toEqual({ action: 'recreate', child: decision?.child, uid: 'c-1', desired: v2 });
  });

  it('server-side apply without any record: applies', () => {
    const [decision] = planChildren({ desired: [v2], observed: [stored(v2, 'server-side-apply')], methodFor: () => 'InPlace', applyStrategy: 'server-side-apply', fieldManager: 'loom' });
    expect(summary(decision)).toBe('update');
  });

  it.each<[string, Partial<AppliedRecord>]>([
    ['another writer bumped resourceVersion', { resourceVersion: '6' }],
    ['the child was recreated', { uid: 'c-0' }],
  ])('server-side apply when %s: applies', (_name, change) => {
    const [decision] = planChildren({
      desired: [v2],
      observed: [stored(v2, 'server-side-apply')],
      methodFor: () => 'InPlace',
      applyStrategy: 'server-side-apply', fieldManager: 'loom',
      lastApplied: () => ({ ...recordOf(v2), ...change }),
    });
    expect(summary(decision)).toBe('update');
  });

  it('dynamic apply of a terminating child that already matches: unchanged', () => {
    const [decision] = planChildren({
      desired: [v2],
      observed: [stored(v2, 'dynamic-apply', { deletionTimestamp: '2026-01-01T00:00:00Z' })],
      methodFor: () => 'InPlace',
      applyStrategy: 'dynamic-apply', fieldManager: 'loom',
    });
    expect(summary(decision)).toBe('unchanged');
  });

  it('asks methodFor by apiVersion and kind, and lastApplied with the observed child', () => {
    const observed = stored(v1, 'server-side-apply');
    const methodFor = vi.fn<PlanChildrenInput['methodFor']>(() => 'InPlace');
    const lastApplied = vi.fn<NonNullable<PlanChildrenInput['lastApplied']>>(() => undefined);
    planChildren({ desired: [v2], observed: [observed], methodFor, applyStrategy: 'server-side-apply', fieldManager: 'loom', lastApplied });
    expect(methodFor).toHaveBeenCalledWith('apps/v1', 'Deployment');
    expect(lastApplied).toHaveBeenCalledWith(observed);
  });
});

describe('planChildren: order and identity', () => {
  const withUid = (obj: KubeObject, uid: string, extra: Record<string, unknown> = {}): KubeObject => ({
    ...obj,
    metadata: { ...obj.metadata, uid, resourceVersion: '1', ...extra },
  });

  it('puts deletions first, sorted; then desired children in desired order', () => {
    const keep = child('ConfigMap', 'keep', { data: { a: '1' } });
    const observed = [
      withUid(child('Service', 'b'), 'u-svc'),
      withUid(child('Deployment', 'z'), 'u-dz'),
      withUid(child('ConfigMap', 'a', {}, 'ns2'), 'u-cm2'),
      withUid(child('ConfigMap', 'a'), 'u-cm1'),
      withUid(child('Deployment', 'a'), 'u-da', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      withUid(withLastApplied(keep), 'u-keep'),
    ];
    const desired = [child('ConfigMap', 'new'), keep, child('Secret', 's')];
    const decisions = planChildren({ desired, observed, methodFor: () => 'InPlace', applyStrategy: 'dynamic-apply', fieldManager: 'loom' });
    expect(decisions.map((d) => `${summary(d)} ${d.child.apiVersion} ${d.child.kind} ${d.child.namespace}/${d.child.name}`)).toEqual([
      'skip:terminating apps/v1 Deployment ns/a',
      'delete apps/v1 Deployment ns/z',
      'delete v1 ConfigMap ns/a',
      'delete v1 ConfigMap ns2/a',
      'delete v1 Service ns/b',
      'create v1 ConfigMap ns/new',
      'unchanged v1 ConfigMap ns/keep',
      'create v1 Secret ns/s',
    ]);
    expect(decisions[1]).toEqual({ action: 'delete', child: decisions[1]?.child, uid: 'u-dz' });
  });

  it('tells children apart by apiVersion, kind, namespace and name', () => {
    const observed = [
      withUid({ ...child('Deployment', 'web'), apiVersion: 'apps/v1beta1' }, 'u-old-version'),
      withUid(child('ConfigMap', 'web', {}, 'other'), 'u-other-ns'),
    ];
    const desired = [child('Deployment', 'web'), child('ConfigMap', 'web')];
    const decisions = planChildren({ desired, observed, methodFor: () => 'InPlace', applyStrategy: 'server-side-apply', fieldManager: 'loom' });
    expect(decisions.map((d) => `${summary(d)} ${d.child.apiVersion}/${d.child.kind} ${d.child.namespace}`)).toEqual([
      'delete apps/v1beta1/Deployment ns',
      'delete v1/ConfigMap other',
      'create apps/v1/Deployment ns',
      'create v1/ConfigMap ns',
    ]);
  });

  it('plans a repeated desired child once: last copy, first position', () => {
    const first = child('ConfigMap', 'dup', { data: { v: '1' } });
    const last = child('ConfigMap', 'dup', { data: { v: '2' } });
    const decisions = planChildren({
      desired: [first, child('Secret', 's'), last],
      observed: [],
      methodFor: () => 'InPlace',
      applyStrategy: 'server-side-apply', fieldManager: 'loom',
    });
    expect(decisions.map((d) => d.child.name)).toEqual(['dup', 's']);
    expect(decisions[0]).toMatchObject({ action: 'create', object: last });
  });

  it('plans nothing for nothing', () => {
    expect(planChildren({ desired: [], observed: [], methodFor: () => 'InPlace', applyStrategy: 'dynamic-apply', fieldManager: 'loom' })).toEqual([]);
  });
});

describe('planChildren with lifecycle policies', () => {
  const parentRef = ownerReferences[0]!;
  const owned = (name: string, annotations: Record<string, string> = {}, extra: Partial<KubeObject['metadata']> = {}): KubeObject =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '4', ownerReferences, annotations, ...extra }, data: { v: '1' } });
  const byAnnotation = (obj: KubeObject) => ({ Orphan: 'release', Retain: 'keep' } as const)[obj.metadata.annotations?.['loom.dev/deletion-policy'] as 'Orphan' | 'Retain'] ?? 'delete';
  const policies = { parentUid: parentRef.uid, removalOf: byAnnotation, recreatesOnImmutable: (d: KubeObject) => d.metadata.name === 'recreated' };

  it('deletes, releases or keeps an unwanted child as its policy says, and leaves a terminating one alone', () => {
    const gone = owned('gone');
    const orphaned = owned('orphaned', { 'loom.dev/deletion-policy': 'Orphan' });
    const retained = owned('retained', { 'loom.dev/deletion-policy': 'Retain' });
    const terminating = owned('terminating', { 'loom.dev/deletion-policy': 'Orphan' }, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const decisions = planChildren({
      desired: [], observed: deepFreeze([gone, orphaned, retained, terminating]), methodFor: () => 'InPlace', applyStrategy: 'server-side-apply', fieldManager: 'loom', policies,
    });
    expect(decisions.map((d) => [d.child.name, d.action, 'reason' in d ? d.reason : undefined])).toEqual([
      ['gone', 'delete', undefined], ['orphaned', 'release', undefined], ['retained', 'skip', 'retain'], ['terminating', 'skip', 'terminating'],
    ]);
    const release = decisions[1] as Extract<ChildDecision, { action: 'release' }>;
    expect(release.object.metadata).toMatchObject({ ownerReferences: [], resourceVersion: '4', annotations: { 'loom.dev/released-from': parentRef.uid } });
  });

  it('deletes every unwanted child without policies, as Metacontroller does', () => {
    const orphaned = owned('orphaned', { 'loom.dev/deletion-policy': 'Orphan' });
    const [decision] = planChildren({ desired: [], observed: [orphaned], methodFor: () => 'InPlace', applyStrategy: 'dynamic-apply', fieldManager: 'loom' });
    expect(decision).toEqual({ action: 'delete', child: childRefOf(orphaned), uid: 'uid-orphaned' });
  });

  it.each<ApplyStrategy>(['server-side-apply', 'dynamic-apply'])('marks an in-place update of a Recreate child to recreate it on an immutable-field refusal (%s)', (applyStrategy) => {
    const observed = [owned('recreated'), owned('plain')];
    const desired: KubeObject[] = observed.map((o) => ({ ...o, metadata: { name: o.metadata.name ?? '', namespace: 'ns', ownerReferences }, data: { v: '2' } }));
    const decisions = planChildren({ desired, observed, methodFor: () => 'InPlace', applyStrategy, fieldManager: 'loom', policies });
    expect(decisions.map((d) => d.action)).toEqual(['update', 'update']);
    expect(decisions[0]).toMatchObject({ recreateIfImmutable: { uid: 'uid-recreated', desired: desired[0] } });
    expect(decisions[1]).not.toHaveProperty('recreateIfImmutable');
  });
});
