import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { manualClock, type ManualClock } from '../engine/manual-clock.test-support.ts';
import type { ObjectWriter } from '../kube/index.ts';
import { acquireLeadership, claimedSpec, heldByOther, holdLeadership, type LeaderElectionOptions } from './leader-election.ts';
import type { Lease } from './lease.ts';

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

describe('holdLeadership', () => {
  /** A store of Leases by name whose replaces hang, once `hang` is set, until their signal aborts (or forever without one). */
  function leaseWriter(clock: ManualClock) {
    const leases = new Map<string, Lease>();
    const state = { hang: false, fail: false, abandoned: 0 };
    const put = (obj: KubeObject, options?: { signal?: AbortSignal | undefined }): Promise<KubeObject> => {
      if (state.fail) return Promise.reject(new Error('connect ECONNREFUSED'));
      if (!state.hang) {
        leases.set(obj.metadata.name!, structuredClone(obj));
        return Promise.resolve(obj);
      }
      return new Promise((_, reject) => options?.signal?.addEventListener('abort', () => {
        state.abandoned++;
        reject(new Error('given up', { cause: options.signal?.reason }));
      }, { once: true }));
    };
    const writer = {
      get: (ref: { name: string }) => Promise.resolve(leases.get(ref.name)),
      create: put,
      replace: put,
    } as unknown as ObjectWriter;
    const options = { writer, clock, logger: pino({ level: 'silent' }), namespace: 'n', name: 'l', identity: 'me', leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
    return { options, state };
  }

  /** Holds the lease from now; the outcome, and the clock's time when it came. */
  async function hold(clock: ManualClock, options: LeaderElectionOptions) {
    expect(await acquireLeadership(options, new AbortController().signal)).toBe(true);
    const ended: { outcome?: string; at?: number } = {};
    const stop = new AbortController();
    void holdLeadership(options, stop.signal).then((outcome) => Object.assign(ended, { outcome, at: clock.now() }));
    return { ended, stop };
  }

  it('steps down at the renew deadline when a renewal never answers, and abandons the request', async () => {
    const clock = manualClock(NOW);
    const { options, state } = leaseWriter(clock);
    const { ended } = await hold(clock, options);
    await clock.advance(1_000);
    expect(ended.outcome).toBeUndefined();
    state.hang = true;
    await clock.advance(3_000);
    expect(ended.outcome).toBe('lost');
    // The last renewal that answered was sent at +1,000 ms; the deadline is 2,000 ms after it.
    expect(ended.at).toBe(NOW + 3_000);
    expect(state.abandoned).toBe(1);
  });

  it('steps down at the renew deadline, not a retry period later, when renewals fail', async () => {
    const clock = manualClock(NOW);
    const { options, state } = leaseWriter(clock);
    const { ended } = await hold(clock, options);
    await clock.advance(1_000);
    state.fail = true;
    await clock.advance(5_000);
    expect(ended).toEqual({ outcome: 'lost', at: NOW + 3_000 });
  });

  it('stops when asked, keeping the lease', async () => {
    const clock = manualClock(NOW);
    const { options } = leaseWriter(clock);
    const { ended, stop } = await hold(clock, options);
    await clock.advance(5_000);
    stop.abort();
    await clock.advance(0);
    expect(ended.outcome).toBe('stopped');
  });
});
