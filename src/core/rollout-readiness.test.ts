import { describe, expect, it } from 'vitest';
import type { ControllerRevisionChildren } from '../api/controller-revision.ts';
import type { ChildUpdateStrategy, StatusConditionCheck, UpdateMethod } from '../api/controller-spec.ts';
import type { KubeObject } from '../api/object.ts';
import { fingerprintOf } from './applied-fingerprint.ts';
import { childLookup } from './revision-claims.ts';
import { childUpToDate, goQuote, rolloutBlocker, statusCheckFailure } from './rollout-readiness.ts';
import { LAST_APPLIED_ANNOTATION, withLastApplied } from './three-way-merge.ts';

const ownerReferences = [{ apiVersion: 'x/v1', kind: 'App', name: 'app', uid: 'p-1', controller: true, blockOwnerDeletion: true }];

function pod(name: string, image: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ownerReferences }, spec: { image } };
}

/** What the API server holds after loom created `desired` with dynamic apply, plus server fields. */
function stored(desired: KubeObject, status: Record<string, unknown> = {}, generation = 1): KubeObject {
  const written = withLastApplied(desired);
  return { ...written, metadata: { ...written.metadata, uid: `uid-${desired.metadata.name}`, resourceVersion: '5', generation }, status };
}

const ready = (status: string, reason?: string): Record<string, unknown> => ({ conditions: [{ type: 'Ready', status, ...(reason ? { reason } : {}) }] });

describe('goQuote', () => {
  it.each([
    ['Ready', '"Ready"'],
    ['', '""'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\there\nnl\u0001\u007f', '"tab\\there\\nnl\\x01\\x7f"'],
    ['héllo', '"héllo"'],
  ])('%j', (text, want) => {
    expect(goQuote(text)).toBe(want);
  });
});

describe('statusCheckFailure', () => {
  const child = (status: unknown): KubeObject => ({ ...pod('web-0', 'v1'), status });
  const readyTrue: StatusConditionCheck[] = [{ type: 'Ready', status: 'True' }];

  it.each<{ name: string; status: unknown; checks: StatusConditionCheck[]; want: string | undefined }>([
    { name: 'no checks', status: undefined, checks: [], want: undefined },
    { name: 'passing', status: ready('True'), checks: readyTrue, want: undefined },
    { name: 'type only', status: ready('False'), checks: [{ type: 'Ready' }], want: undefined },
    { name: 'no status', status: undefined, checks: readyTrue, want: 'required condition type missing: "Ready"' },
    { name: 'conditions not a list', status: { conditions: {} }, checks: readyTrue, want: 'required condition type missing: "Ready"' },
    { name: 'wrong status', status: ready('False'), checks: readyTrue, want: '"Ready" condition status is "False" (want "True")' },
    { name: 'non-string status reads as empty', status: { conditions: [{ type: 'Ready', status: true }] }, checks: readyTrue, want: '"Ready" condition status is "" (want "True")' },
    { name: 'wrong reason', status: ready('True', 'Booting'), checks: [{ type: 'Ready', status: 'True', reason: 'Up' }], want: '"Ready" condition reason is "Booting" (want "Up")' },
    { name: 'missing reason', status: ready('True'), checks: [{ type: 'Ready', reason: 'Up' }], want: '"Ready" condition reason is "" (want "Up")' },
    {
      name: 'first matching condition counts',
      status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Ready', status: 'True' }] },
      checks: readyTrue,
      want: '"Ready" condition status is "False" (want "True")',
    },
    {
      name: 'first failing check reported',
      status: ready('True'),
      checks: [{ type: 'Ready', status: 'True' }, { type: 'Synced' }, { type: 'Other' }],
      want: 'required condition type missing: "Synced"',
    },
  ])('$name', ({ status, checks, want }) => {
    expect(statusCheckFailure(child(status), checks)).toBe(want);
  });
});

describe('childUpToDate', () => {
  const v1 = pod('web-0', 'v1');
  const v2 = pod('web-0', 'v2');

  it.each([
    { name: 'same desired', observed: stored(v1), desired: v1, want: true },
    { name: 'changed desired', observed: stored(v1), desired: v2, want: false },
    { name: 'status and server fields ignored', observed: stored(v1, { phase: 'Running' }, 9), desired: v1, want: true },
  ])('dynamic-apply: $name', ({ observed, desired, want }) => {
    expect(childUpToDate(observed, desired, { applyStrategy: 'dynamic-apply' })).toBe(want);
  });

  it('dynamic-apply: a child without the last-applied annotation is not up to date (the merge would add it)', () => {
    const bare = { ...v1, metadata: { ...v1.metadata, uid: 'u' } };
    expect(childUpToDate(bare, v1, { applyStrategy: 'dynamic-apply' })).toBe(false);
  });

  const ssa = (obj: KubeObject): KubeObject => ({ ...obj, metadata: { ...obj.metadata, uid: 'uid-web-0', resourceVersion: '8', managedFields: [] }, status: { phase: 'Running' } });

  it.each([
    { name: 'desired already there', observed: ssa(v1), desired: v1, want: true },
    { name: 'desired differs', observed: ssa(v1), desired: v2, want: false },
    { name: 'old last-applied annotation ignored', observed: stored(v1), desired: v1, want: true },
  ])('server-side-apply without a record: $name', ({ observed, desired, want }) => {
    expect(childUpToDate(observed, desired, { applyStrategy: 'server-side-apply' })).toBe(want);
  });

  it('server-side-apply: a record of applying exactly desired to this object is enough', () => {
    const normalised = { ...v2, spec: { image: 'v2', resources: { cpu: '1000m' } } };
    const observed = { ...ssa(v2), spec: { image: 'v2', resources: { cpu: '1' } } };
    const record = { uid: 'uid-web-0', hash: fingerprintOf(normalised), resourceVersion: 'older' };
    expect(childUpToDate(observed, normalised, { applyStrategy: 'server-side-apply' })).toBe(false);
    expect(childUpToDate(observed, normalised, { applyStrategy: 'server-side-apply', lastApplied: () => record })).toBe(true);
    expect(childUpToDate(observed, normalised, { applyStrategy: 'server-side-apply', lastApplied: () => ({ ...record, uid: 'other' }) })).toBe(false);
  });

  it('does not modify its inputs', () => {
    const observed = stored(v1);
    const before = structuredClone(observed);
    childUpToDate(observed, v2, { applyStrategy: 'server-side-apply' });
    expect(observed).toEqual(before);
    expect(observed.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBeDefined();
  });
});

describe('rolloutBlocker', () => {
  const strategy = (method: UpdateMethod, conditions: StatusConditionCheck[] = [{ type: 'Ready', status: 'True' }]): ChildUpdateStrategy => ({ method, statusChecks: { conditions } });
  const entry = (names: string[], kind = 'Pod'): ControllerRevisionChildren => ({ apiGroup: '', kind, names });

  function blocker(options: { observed: KubeObject[]; desired?: KubeObject[]; children?: ControllerRevisionChildren[]; method?: UpdateMethod }): string | undefined {
    const desired = options.desired ?? [pod('web-0', 'v2'), pod('web-1', 'v2')];
    return rolloutBlocker({
      children: options.children ?? [entry(['web-0', 'web-1'])],
      observed: childLookup(options.observed),
      desired: childLookup(desired),
      strategyFor: (group, kind) => (kind === 'Pod' ? strategy(options.method ?? 'RollingRecreate') : kind === 'Service' ? strategy('InPlace') : undefined),
      applyStrategy: 'dynamic-apply',
    });
  }
  const good = (name: string, extra: Record<string, unknown> = {}, generation = 1): KubeObject => stored(pod(name, 'v2'), { ...ready('True'), ...extra }, generation);

  it.each<{ name: string; observed: KubeObject[]; method?: UpdateMethod; want: string | undefined }>([
    { name: 'all ready', observed: [good('web-0'), good('web-1')], want: undefined },
    { name: 'a child missing', observed: [good('web-0')], want: 'missing child Pod web-1' },
    { name: 'a child not updated', observed: [good('web-0'), stored(pod('web-1', 'v1'), ready('True'))], want: 'child Pod web-1 is not updated yet' },
    {
      name: 'a child failing its status check',
      observed: [stored(pod('web-0', 'v2'), ready('False')), good('web-1')],
      want: 'child Pod web-0 failed status check: "Ready" condition status is "False" (want "True")',
    },
    {
      name: 'RollingInPlace: observedGeneration behind',
      method: 'RollingInPlace',
      observed: [good('web-0', { observedGeneration: 2 }, 3), good('web-1')],
      want: "child Pod web-0 with RollingInPlace update strategy hasn't observed latest spec",
    },
    { name: 'RollingInPlace: observedGeneration caught up', method: 'RollingInPlace', observed: [good('web-0', { observedGeneration: 3 }, 3), good('web-1')], want: undefined },
    { name: 'RollingInPlace: no observedGeneration', method: 'RollingInPlace', observed: [good('web-0', {}, 3), good('web-1')], want: undefined },
    { name: 'RollingInPlace: observedGeneration 0 ignored', method: 'RollingInPlace', observed: [good('web-0', { observedGeneration: 0 }, 3), good('web-1')], want: undefined },
    { name: 'RollingRecreate: observedGeneration not checked', method: 'RollingRecreate', observed: [good('web-0', { observedGeneration: 2 }, 3), good('web-1')], want: undefined },
  ])('$name', ({ observed, method, want }) => {
    expect(blocker({ observed, ...(method ? { method } : {}) })).toBe(want);
  });

  it('checks children in list order and reports the first', () => {
    expect(blocker({ observed: [], children: [entry(['web-1', 'web-0'])] })).toBe('missing child Pod web-1');
  });

  it('skips kinds that do not roll', () => {
    const children = [entry(['svc'], 'Service'), entry(['cm'], 'ConfigMap'), entry(['web-0'])];
    expect(blocker({ observed: [good('web-0')], children })).toBeUndefined();
  });
});
