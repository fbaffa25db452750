import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { afterFinalize, decideLifecycle, finalizerName, type LifecycleDecision } from './finalizer.ts';

const OURS = finalizerName('web');

interface Row {
  terminating: boolean;
  finalizers: string[];
  hook: boolean;
  matches: boolean;
}

function parentOf(row: Pick<Row, 'terminating' | 'finalizers'>): KubeObject {
  return {
    apiVersion: 'ctl.example.com/v1',
    kind: 'Web',
    metadata: {
      name: 'web',
      namespace: 'default',
      finalizers: row.finalizers,
      ...(row.terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
    },
  };
}

describe('finalizerName', () => {
  it('is the string Metacontroller uses', () => {
    expect(finalizerName('catset-controller')).toBe('metacontroller.io/compositecontroller-catset-controller');
  });
});

describe('decideLifecycle', () => {
  const live = false;
  const dying = true;
  it.each<[string, Row, LifecycleDecision]>([
    // With a finalize hook.
    ['new parent gets the finalizer, then sync', { terminating: live, finalizers: [], hook: true, matches: true },
      { hook: 'sync', finalizer: 'add', manageChildren: true }],
    ['live parent with the finalizer syncs', { terminating: live, finalizers: [OURS], hook: true, matches: true },
      { hook: 'sync', finalizer: 'keep', manageChildren: true }],
    ['terminating parent with the finalizer is finalized', { terminating: dying, finalizers: [OURS], hook: true, matches: true },
      { hook: 'finalize', finalizer: 'keep', manageChildren: true }],
    ['terminating parent under a GC finalizer is finalized without child changes', { terminating: dying, finalizers: [OURS, 'foregroundDeletion'], hook: true, matches: true },
      { hook: 'finalize', finalizer: 'keep', manageChildren: false }],
    ['orphan deletion: finalized without child changes', { terminating: dying, finalizers: ['orphan', OURS], hook: true, matches: true },
      { hook: 'finalize', finalizer: 'keep', manageChildren: false }],
    ['terminating parent whose finalizer is gone: no re-add, sync only', { terminating: dying, finalizers: ['other.io/x'], hook: true, matches: true },
      { hook: 'sync', finalizer: 'keep', manageChildren: false }],
    ['parent that opted out of the selector is finalized', { terminating: live, finalizers: [OURS], hook: true, matches: false },
      { hook: 'finalize', finalizer: 'keep', manageChildren: true }],
    ['terminating parent that opted out is finalized', { terminating: dying, finalizers: [OURS], hook: true, matches: false },
      { hook: 'finalize', finalizer: 'keep', manageChildren: true }],
    ['non-matching parent without the finalizer is not ours', { terminating: live, finalizers: [], hook: true, matches: false },
      { hook: 'none', finalizer: 'keep', manageChildren: false }],
    ['terminating non-matching parent without the finalizer is not ours', { terminating: dying, finalizers: [], hook: true, matches: false },
      { hook: 'none', finalizer: 'keep', manageChildren: false }],
    // Without a finalize hook.
    ['plain sync', { terminating: live, finalizers: [], hook: false, matches: true },
      { hook: 'sync', finalizer: 'keep', manageChildren: true }],
    ['stale finalizer is removed, then sync', { terminating: live, finalizers: [OURS], hook: false, matches: true },
      { hook: 'sync', finalizer: 'remove', manageChildren: true }],
    ['terminating parent gets a sync but no child changes', { terminating: dying, finalizers: [], hook: false, matches: true },
      { hook: 'sync', finalizer: 'keep', manageChildren: false }],
    ['terminating parent with a stale finalizer: removed, sync, no child changes', { terminating: dying, finalizers: [OURS], hook: false, matches: true },
      { hook: 'sync', finalizer: 'remove', manageChildren: false }],
    ['opted-out parent with a stale finalizer: removed, then sync', { terminating: live, finalizers: [OURS], hook: false, matches: false },
      { hook: 'sync', finalizer: 'remove', manageChildren: true }],
    ['non-matching parent without the finalizer is not ours (no hook)', { terminating: live, finalizers: [], hook: false, matches: false },
      { hook: 'none', finalizer: 'keep', manageChildren: false }],
  ])('%s', (_name, row, expected) => {
    const decision = decideLifecycle({ parent: parentOf(row), finalizer: OURS, hasFinalizeHook: row.hook, matchesParentSelector: row.matches });
    expect(decision).toEqual(expected);
  });

  it('only recognises its own finalizer', () => {
    const parent = parentOf({ terminating: true, finalizers: [finalizerName('other'), 'metacontroller.app/compositecontroller-web'] });
    expect(decideLifecycle({ parent, finalizer: OURS, hasFinalizeHook: true, matchesParentSelector: true }))
      .toEqual({ hook: 'sync', finalizer: 'keep', manageChildren: false });
  });

  it('treats missing finalizers as none', () => {
    const parent: KubeObject = { apiVersion: 'v1', kind: 'Web', metadata: { name: 'web' } };
    expect(decideLifecycle({ parent, finalizer: OURS, hasFinalizeHook: true, matchesParentSelector: true }))
      .toEqual({ hook: 'sync', finalizer: 'add', manageChildren: true });
  });
});

describe('afterFinalize', () => {
  interface OutcomeRow {
    name: string;
    terminating: boolean;
    finalized: boolean | undefined;
    manageChildren: boolean;
    expected: { removeFinalizer: boolean; manageChildren: boolean };
  }
  it.each<OutcomeRow>([
    { name: 'finalized while terminating: children left to GC', terminating: true, finalized: true, manageChildren: true,
      expected: { removeFinalizer: true, manageChildren: false } },
    { name: 'not finalized yet while terminating: keep working', terminating: true, finalized: false, manageChildren: true,
      expected: { removeFinalizer: false, manageChildren: true } },
    { name: 'finalized field absent counts as not finalized', terminating: true, finalized: undefined, manageChildren: true,
      expected: { removeFinalizer: false, manageChildren: true } },
    { name: 'finalized after opting out: children still applied', terminating: false, finalized: true, manageChildren: true,
      expected: { removeFinalizer: true, manageChildren: true } },
    { name: 'never turns child management on', terminating: true, finalized: false, manageChildren: false,
      expected: { removeFinalizer: false, manageChildren: false } },
  ])('$name', ({ terminating, finalized, manageChildren, expected }) => {
    const parent = parentOf({ terminating, finalizers: [OURS] });
    expect(afterFinalize({ parent, finalized, manageChildren })).toEqual(expected);
  });
});
