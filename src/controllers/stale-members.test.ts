/**
 * Which member Leases are gone: judged by what this replica saw on its own clock (a version unchanged
 * for several Lease durations), never by the times a member wrote with a clock of its own.
 */
import { describe, expect, it } from 'vitest';
import type { Lease } from './lease.ts';
import { type MemberSightings, sightMembers, STALE_AFTER_LEASES, staleMembers } from './stale-members.ts';

const LEASE_MS = 15_000;
const BOUND = STALE_AFTER_LEASES * LEASE_MS;
/** This replica's clock at its first list. */
const START = 1_000_000;

/** A Lease of group `g` at `resourceVersion`, whose renewTime says `renewTime` (a member's clock). */
function lease(name: string, resourceVersion: string, spec: Lease['spec'] = {}): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name, namespace: 'loom', uid: `uid-${name}`, resourceVersion },
    spec: { holderIdentity: name, leaseDurationSeconds: 15, renewTime: '2020-01-01T00:00:00.000000Z', ...spec },
  };
}

const input = (now: number) => ({ group: 'g', ownLease: 'g-member-me', now, leaseDurationMs: LEASE_MS });

/** Lists `rounds` one after the other ([time, leases]); the names judged stale at the last. */
function judgeAfter(rounds: [number, Lease[]][]): string[] {
  let sightings: MemberSightings = new Map();
  for (const [now, leases] of rounds) sightings = sightMembers(sightings, leases, input(now));
  const [now, leases] = rounds.at(-1)!;
  return staleMembers(leases, sightings, input(now)).map((l) => l.metadata.name ?? '');
}

describe('staleMembers', () => {
  it('keeps a live member whose clock is far behind: its renewTime is long past, but its version keeps changing', () => {
    const rounds: [number, Lease[]][] = Array.from({ length: 20 }, (_, i) => [START + i * LEASE_MS, [lease('g-member-a', String(100 + i))]]);
    expect(judgeAfter(rounds)).toEqual([]);
  });

  it('deletes a member unchanged for longer than the bound on this replica\'s clock, not before', () => {
    const still = lease('g-member-a', '7');
    expect(judgeAfter([[START, [still]], [START + BOUND, [still]]])).toEqual([]);
    expect(judgeAfter([[START, [still]], [START + BOUND + 1, [still]]])).toEqual(['g-member-a']);
  });

  it('never deletes at first sight, however old its renewTime says it is', () => {
    expect(judgeAfter([[START, [lease('g-member-a', '7')]]])).toEqual([]);
  });

  it('counts anew from a changed version', () => {
    expect(judgeAfter([[START, [lease('g-member-a', '7')]], [START + BOUND, [lease('g-member-a', '8')]], [START + BOUND + 1, [lease('g-member-a', '8')]]])).toEqual([]);
  });

  it('counts from the longer of its own duration and this replica\'s', () => {
    const slow = lease('g-member-a', '7', { leaseDurationSeconds: 60 });
    expect(judgeAfter([[START, [slow]], [START + BOUND + 1, [slow]]])).toEqual([]);
    expect(judgeAfter([[START, [slow]], [START + STALE_AFTER_LEASES * 60_000 + 1, [slow]]])).toEqual(['g-member-a']);
  });

  it.each([
    ['this replica\'s own', 'g-member-me'],
    ['a bucket Lease', 'g-shard-3'],
    ['another group\'s member', 'other-member-a'],
  ])('never judges %s', (_what, name) => {
    const still = lease(name, '7');
    expect(judgeAfter([[START, [still]], [START + 10 * BOUND, [still]]])).toEqual([]);
  });

  it('forgets a Lease no longer listed: seen again, it is counted from then', () => {
    const still = lease('g-member-a', '7');
    expect(judgeAfter([[START, [still]], [START + 1, []], [START + BOUND + 2, [still]]])).toEqual([]);
  });
});
