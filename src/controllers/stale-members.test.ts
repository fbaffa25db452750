import { describe, expect, it } from 'vitest';
import type { Lease } from './lease.ts';
import { STALE_AFTER_LEASES, staleMembers } from './stale-members.ts';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const LEASE_MS = 15_000;

/** A Lease of group `g`, renewed `agoMs` before now. */
function lease(name: string, agoMs: number | undefined, spec: Lease['spec'] = {}): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name, namespace: 'loom', uid: `uid-${name}`, resourceVersion: '5', creationTimestamp: new Date(NOW - 3_600_000).toISOString() },
    spec: { holderIdentity: name, leaseDurationSeconds: 15, ...(agoMs === undefined ? {} : { renewTime: new Date(NOW - agoMs).toISOString() }), ...spec },
  };
}

const judge = (leases: Lease[]) => staleMembers(leases, { group: 'g', ownLease: 'g-member-me', now: NOW, leaseDurationMs: LEASE_MS }).map((l) => l.metadata.name);
const longAgo = STALE_AFTER_LEASES * LEASE_MS;

describe('staleMembers', () => {
  it.each([
    ['renewed moments ago', lease('g-member-a', 1_000), []],
    ['expired, but not for long: a slow replica may still renew it', lease('g-member-a', 3 * LEASE_MS), []],
    ['expired just under the bound', lease('g-member-a', longAgo - 1), []],
    ['expired longer ago than the bound', lease('g-member-a', longAgo + 1), ['g-member-a']],
    ['let go (no holder) long ago', lease('g-member-a', longAgo + 1, { holderIdentity: '', leaseDurationSeconds: 1 }), ['g-member-a']],
    ['never renewed, created long ago', lease('g-member-a', undefined), ['g-member-a']],
    ['this replica\'s own, however old', lease('g-member-me', 10 * longAgo), []],
    ['a bucket Lease', lease('g-shard-3', 10 * longAgo), []],
    ['another group\'s member', lease('other-member-a', 10 * longAgo), []],
  ])('%s', (_name, current, expected) => {
    expect(judge([current])).toEqual(expected);
  });

  it('counts from the longer of its own duration and this replica\'s', () => {
    // Written by a replica with a 60 s Lease: only several of those durations count.
    expect(judge([lease('g-member-a', longAgo + 1, { leaseDurationSeconds: 60 })])).toEqual([]);
    expect(judge([lease('g-member-a', STALE_AFTER_LEASES * 60_000 + 1, { leaseDurationSeconds: 60 })])).toEqual(['g-member-a']);
  });

  it('leaves a Lease whose times cannot be read alone', () => {
    const { creationTimestamp: _, ...metadata } = lease('g-member-a', undefined).metadata;
    expect(judge([{ ...lease('g-member-a', undefined, { renewTime: 'not a time' }), metadata }])).toEqual([]);
  });
});
