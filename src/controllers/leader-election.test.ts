import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { claimedSpec, heldByOther } from './leader-election.ts';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const lease = (spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } =>
  ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'n' }, spec });

describe('heldByOther', () => {
  it.each([
    ['no lease', undefined, false],
    ['released (no holder)', lease({ holderIdentity: '' }), false],
    ['held by us', lease({ holderIdentity: 'me', renewTime: '2026-11-22T09:59:59.000000Z', leaseDurationSeconds: 15 }), false],
    ['held by another, fresh', lease({ holderIdentity: 'other', renewTime: '2026-11-22T09:59:50.000000Z', leaseDurationSeconds: 15 }), true],
    ['held by another, expired', lease({ holderIdentity: 'other', renewTime: '2026-11-22T09:59:40.000000Z', leaseDurationSeconds: 15 }), false],
  ])('%s', (_name, current, expected) => {
    expect(heldByOther(current, 'me', NOW)).toBe(expected);
  });
});

describe('claimedSpec', () => {
  it('counts a transition when taking over, keeps acquireTime when renewing', () => {
    const taken = claimedSpec(lease({ holderIdentity: 'other', leaseTransitions: 2 }), { identity: 'me' }, NOW);
    expect(taken).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2026-11-22T10:00:00.000000Z', renewTime: '2026-11-22T10:00:00.000000Z', leaseTransitions: 3 });
    const renewed = claimedSpec(lease({ ...taken }), { identity: 'me' }, NOW + 2_000);
    expect(renewed).toMatchObject({ acquireTime: '2026-11-22T10:00:00.000000Z', renewTime: '2026-11-22T10:00:02.000000Z', leaseTransitions: 3 });
    expect(claimedSpec(undefined, { identity: 'me', leaseDurationMs: 30_000 }, NOW)).toMatchObject({ leaseTransitions: 0, leaseDurationSeconds: 30 });
  });
});
