import { describe, expect, it } from 'vitest';
import type { DeletionPolicy } from '../api/controller-spec.ts';
import type { KubeObject } from '../api/object.ts';
import { childNeedsLoomAtDeletion, finalizerForChildren, needsLoomAtDeletion, observedPoliciesOf, planPoliciesFor, recreatesOnImmutableChange, removalActionOf, type RemovalAction } from './child-lifecycle.ts';

const cm = (annotations: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', annotations } });

describe('removalActionOf', () => {
  it.each<[DeletionPolicy, boolean, RemovalAction]>([
    ['Delete', false, 'delete'],
    ['Delete', true, 'delete'],
    ['Orphan', false, 'release'],
    ['Orphan', true, 'release'],
    ['Retain', false, 'keep'],
    ['Retain', true, 'release'],
  ])('%s, parent going=%s → %s', (deletionPolicy, going, expected) => {
    expect(removalActionOf({ deletionPolicy }, going)).toBe(expected);
  });
});

describe('observedPoliciesOf', () => {
  it('takes the annotation over the type\'s rule', () => {
    expect(observedPoliciesOf(cm({ 'loom.dev/deletion-policy': 'Retain' }), { deletionPolicy: 'Orphan' }).deletionPolicy).toBe('Retain');
    expect(observedPoliciesOf(cm(), { deletionPolicy: 'Orphan', onImmutableChange: 'Recreate' })).toMatchObject({ deletionPolicy: 'Orphan', onImmutableChange: 'Recreate' });
    expect(observedPoliciesOf(cm(), undefined)).toMatchObject({ deletionPolicy: 'Delete', onImmutableChange: undefined, wave: 0 });
  });

  it('reads each annotation on its own: one that does not parse costs the others nothing', () => {
    const edited = cm({ 'loom.dev/deletion-policy': 'Retain', 'loom.dev/ready-when': '', 'loom.dev/wave': 'two' });
    expect(observedPoliciesOf(edited, { wave: 3 })).toMatchObject({ deletionPolicy: 'Retain', wave: 3, readyWhen: undefined });
    expect(observedPoliciesOf(cm({ 'loom.dev/on-immutable-change': 'Recreate', 'loom.dev/wave': 'x' }), undefined).onImmutableChange).toBe('Recreate');
  });

  it('keeps a child whose deletion policy does not parse, whatever its type\'s rule says: never Delete', () => {
    expect(observedPoliciesOf(cm({ 'loom.dev/deletion-policy': 'retain' }), undefined).deletionPolicy).toBe('Retain');
    expect(observedPoliciesOf(cm({ 'loom.dev/deletion-policy': 'orphan' }), { deletionPolicy: 'Delete' }).deletionPolicy).toBe('Retain');
  });
});

describe('planPoliciesFor with an annotation that does not parse', () => {
  const parent: KubeObject = { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'p', namespace: 'ns', uid: 'uid-p' } };

  it('reports an annotation that does not parse, and keeps the child it would otherwise delete', () => {
    const reported: string[] = [];
    const policies = planPoliciesFor(() => undefined, parent, (child, problems) => reported.push(`${child.metadata.name}: ${problems.join('; ')}`));
    expect(policies.removalOf(cm({ 'loom.dev/deletion-policy': 'retian' }))).toBe('keep');
    expect(reported).toEqual(['c: loom.dev/deletion-policy: expected one of Delete, Orphan, Retain, got "retian"']);
  });
});

describe('needsLoomAtDeletion', () => {
  const ordered = { orderedTeardown: true };
  const unordered = { orderedTeardown: false };

  it.each<[string, KubeObject, boolean, boolean]>([
    // what, child, needs loom without orderedTeardown, needs loom with it
    ['a plain child', cm(), false, false],
    ['a child with only a readiness rule', cm({ 'loom.dev/ready-when': 'true' }), false, false],
    ['an Orphan child', cm({ 'loom.dev/deletion-policy': 'Orphan' }), true, true],
    ['a Retain child', cm({ 'loom.dev/deletion-policy': 'Retain' }), true, true],
    ['a child of wave 1', cm({ 'loom.dev/wave': '1' }), false, true],
    ['a child of wave -1', cm({ 'loom.dev/wave': '-1' }), false, true],
    ['a child that depends on a sibling', cm({ 'loom.dev/depends-on': 'ConfigMap/other' }), false, true],
    ['a child with onImmutableChange only', cm({ 'loom.dev/on-immutable-change': 'Recreate' }), false, false],
  ])('%s → %s, with orderedTeardown %s', (_what, obj, withoutOrder, withOrder) => {
    expect(needsLoomAtDeletion(observedPoliciesOf(obj, undefined), unordered)).toBe(withoutOrder);
    expect(needsLoomAtDeletion(observedPoliciesOf(obj, undefined), ordered)).toBe(withOrder);
  });

  it('counts a type\'s wave as the child\'s, with orderedTeardown', () => {
    expect(needsLoomAtDeletion(observedPoliciesOf(cm(), { wave: 2 }), ordered)).toBe(true);
    expect(needsLoomAtDeletion(observedPoliciesOf(cm(), { wave: 2 }), unordered)).toBe(false);
  });
});

describe('childNeedsLoomAtDeletion', () => {
  const terminating = (obj: KubeObject): KubeObject => ({ ...obj, metadata: { ...obj.metadata, deletionTimestamp: '2026-11-27T06:00:00Z' } });
  const ordered = { orderedTeardown: true };

  it('does not count a terminating child that is to be deleted anyway, so it cannot hold the parent\'s finalizer forever', () => {
    expect(childNeedsLoomAtDeletion(terminating(cm({ 'loom.dev/wave': '1' })), undefined, ordered)).toBe(false);
    expect(childNeedsLoomAtDeletion(terminating(cm()), { wave: 2, deletionPolicy: 'Delete' }, ordered)).toBe(false);
  });

  it('counts one that must survive, or that is not terminating, as needsLoomAtDeletion does', () => {
    expect(childNeedsLoomAtDeletion(terminating(cm({ 'loom.dev/deletion-policy': 'Retain' })), undefined, { orderedTeardown: false })).toBe(true);
    expect(childNeedsLoomAtDeletion(cm({ 'loom.dev/wave': '1' }), undefined, ordered)).toBe(true);
    expect(childNeedsLoomAtDeletion(cm({ 'loom.dev/wave': '1' }), undefined, { orderedTeardown: false })).toBe(false);
    expect(childNeedsLoomAtDeletion(cm(), undefined, ordered)).toBe(false);
  });
});

describe('recreatesOnImmutableChange', () => {
  it('only with Recreate', () => {
    expect(recreatesOnImmutableChange({ onImmutableChange: 'Recreate' })).toBe(true);
    expect(recreatesOnImmutableChange({ onImmutableChange: 'Fail' })).toBe(false);
    expect(recreatesOnImmutableChange({ onImmutableChange: undefined })).toBe(false);
  });
});

describe('finalizerForChildren', () => {
  it.each<[boolean, boolean, boolean, 'add' | 'remove' | 'keep']>([
    // held, finalize hook needs it, children need it → action
    [false, false, false, 'keep'],
    [false, false, true, 'add'],
    [false, true, false, 'add'],
    [true, false, true, 'keep'],
    [true, true, false, 'keep'],
    [true, false, false, 'remove'],
  ])('held=%s, hook=%s, children=%s → %s', (held, finalizeHookNeedsIt, childrenNeedIt, expected) => {
    expect(finalizerForChildren({ held, finalizeHookNeedsIt, childrenNeedIt })).toBe(expected);
  });
});

describe('planPoliciesFor', () => {
  const parent = (deleting: boolean): KubeObject => ({ apiVersion: 'x/v1', kind: 'App', metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) } });
  const byType = () => ({ deletionPolicy: 'Retain' as const, onImmutableChange: 'Recreate' as const });

  it('reads each child\'s annotations over its type\'s rule, and releases Retain children of a parent being deleted', () => {
    expect(planPoliciesFor(byType, parent(false)).removalOf(cm())).toBe('keep');
    expect(planPoliciesFor(byType, parent(true)).removalOf(cm())).toBe('release');
    expect(planPoliciesFor(byType, parent(false)).removalOf(cm({ 'loom.dev/deletion-policy': 'Delete' }))).toBe('delete');
    expect(planPoliciesFor(byType, parent(false)).recreatesOnImmutable(cm())).toBe(true);
    expect(planPoliciesFor(() => undefined, parent(false))).toMatchObject({ parentUid: 'uid-a' });
    expect(planPoliciesFor(() => undefined, parent(false)).recreatesOnImmutable(cm({ 'loom.dev/on-immutable-change': 'Fail' }))).toBe(false);
  });
});

