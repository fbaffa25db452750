import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import { ALL_PARENTS, FailingParents, failingParentsOf, mergeShares, syncsFailingCondition, type FailureShares } from './syncs-failing.ts';

const T0 = Date.parse('2026-11-27T10:00:00Z');

describe('FailingParents', () => {
  it('says the set changed only when a parent starts or stops failing', () => {
    const failing = new FailingParents();
    expect(failing.failed('ns/a', ALL_PARENTS, 'boom', T0)).toBe(true);
    expect(failing.failed('ns/a', ALL_PARENTS, 'boom again', T0 + 1000)).toBe(false);
    expect(failing.recovered('ns/b')).toBe(false);
    expect(failing.failed('ns/b', ALL_PARENTS, 'bang', T0 + 2000)).toBe(true);
    expect(failing.recovered('ns/a')).toBe(true);
    expect(failing.recovered('ns/a')).toBe(false);
    expect(failing.size).toBe(1);
  });

  it('counts each share and keeps its latest error, the newest message of a parent that keeps failing', () => {
    const failing = new FailingParents();
    failing.failed('ns/a', '3', 'first', T0);
    failing.failed('ns/b', '3', 'second', T0 + 1000);
    failing.failed('ns/a', '3', 'third', T0 + 2000);
    failing.failed('ns/c', '5', 'other bucket', T0 + 3000);
    expect(failing.sharesOf(['3'])).toEqual({
      3: { parents: 2, lastError: 'ns/a: third', lastFailureTime: '2026-11-27T10:00:02Z' },
    });
    expect(failing.sharesOf(['3', '5'])['5']).toEqual({ parents: 1, lastError: 'ns/c: other bucket', lastFailureTime: '2026-11-27T10:00:03Z' });
  });

  it('bounds a huge error', () => {
    const failing = new FailingParents();
    failing.failed('ns/a', ALL_PARENTS, 'x'.repeat(100_000), T0);
    expect(failing.sharesOf([ALL_PARENTS])[ALL_PARENTS]!.lastError.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });
});

describe('mergeShares', () => {
  const entry = (parents: number) => ({ parents, lastError: `e${parents}`, lastFailureTime: '2026-11-27T10:00:00Z' });

  it('without sharding, the run replaces every entry', () => {
    expect(mergeShares({ 2: entry(1), all: entry(4) }, {}, [ALL_PARENTS])).toEqual({});
    expect(mergeShares(undefined, { all: entry(2) }, [ALL_PARENTS])).toEqual({ all: entry(2) });
  });

  it('with sharding, a replica replaces the buckets it holds and keeps the others\' and drops an unsharded entry', () => {
    const onObject: FailureShares = { 1: entry(1), 2: entry(2), all: entry(7) };
    expect(mergeShares(onObject, { 3: entry(3) }, ['2', '3'])).toEqual({ 1: entry(1), 3: entry(3) });
    expect(Object.keys(mergeShares(onObject, { 0: entry(3) }, ['0', '2']))).toEqual(['0', '1']);
  });
});

describe('syncsFailingCondition', () => {
  const shares: FailureShares = {
    1: { parents: 2, lastError: 'ns/a: hook answered undeclared kind Secret', lastFailureTime: '2026-11-27T10:00:05Z' },
    4: { parents: 1, lastError: 'ns/z: connection refused', lastFailureTime: '2026-11-27T10:00:01Z' },
  };

  it('is True with the count over every share and the latest error', () => {
    expect(syncsFailingCondition(shares, undefined, T0)).toEqual({
      type: 'SyncsFailing', status: 'True', reason: 'SyncErrors',
      message: "3 parents' last sync failed; latest: ns/a: hook answered undeclared kind Secret",
      lastTransitionTime: '2026-11-27T10:00:00Z',
    });
    expect(failingParentsOf(shares)).toBe(3);
  });

  it('says one parent in the singular', () => {
    expect(syncsFailingCondition({ all: shares['4']! }, undefined, T0).message).toBe("1 parent's last sync failed; latest: ns/z: connection refused");
  });

  it('is False when no share has failures', () => {
    expect(syncsFailingCondition({}, undefined, T0)).toEqual({
      type: 'SyncsFailing', status: 'False', reason: 'NoSyncErrors', message: "no parent's last sync failed", lastTransitionTime: '2026-11-27T10:00:00Z',
    });
  });

  it('moves the transition time only when the status flips', () => {
    const earlier = { status: 'True', lastTransitionTime: '2026-11-27T09:00:00Z' };
    expect(syncsFailingCondition(shares, earlier, T0).lastTransitionTime).toBe('2026-11-27T09:00:00Z');
    expect(syncsFailingCondition({}, earlier, T0).lastTransitionTime).toBe('2026-11-27T10:00:00Z');
  });
});
