/**
 * The scheduling of a shard member, on a clock driven by hand: its member Lease is renewed while its
 * controllers drain, however long that takes. (Leases, buckets and handovers against a real API server
 * are in test/sharding*.test.ts.) The writer here only stores Leases by name; it stands for no API
 * semantics beyond that.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import type { ObjectWriter } from '../kube/index.ts';
import type { Lease } from './lease.ts';
import { requestBudgets } from './request-budgets.ts';
import { memberLeaseName, runShardMember } from './shard-membership.ts';

function leaseStore(): { writer: ObjectWriter; leases: Map<string, Lease> } {
  const leases = new Map<string, Lease>();
  const put = (obj: KubeObject): Promise<KubeObject> => {
    leases.set(obj.metadata.name!, structuredClone(obj));
    return Promise.resolve(obj);
  };
  const writer = {
    get: (ref: { name: string }) => Promise.resolve(leases.get(ref.name)),
    create: put,
    replace: put,
    delete: (ref: { name: string }) => Promise.resolve(leases.delete(ref.name)),
  } as unknown as ObjectWriter;
  return { writer, leases };
}

describe('runShardMember', () => {
  it('keeps renewing its member Lease while its controllers drain', async () => {
    const clock = manualClock(Date.parse('2026-11-26T00:00:00Z'));
    const { writer, leases } = leaseStore();
    const stop = new AbortController();
    let finishDrain = (): void => undefined;
    const drained = new Promise<void>((resolve) => (finishDrain = resolve));
    const running = runShardMember({
      writer, listLeases: () => Promise.resolve([...leases.values()]), clock, logger: pino({ level: 'silent' }),
      namespace: 'loom', group: 'g', identity: 'me', buckets: 2, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500,
    }, async (_held, signal) => {
      // A drain that outlasts the Lease: the controllers stop only when the test says so.
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      await drained;
    }, stop.signal);
    await clock.advance(1_000);
    const member = memberLeaseName('g', 'me');
    expect(leases.get(member)?.spec?.holderIdentity).toBe('me');

    stop.abort();
    await settle();
    const renewedAtStop = leases.get(member)?.spec?.renewTime;
    await clock.advance(10_000);
    expect(leases.get(member)?.spec?.holderIdentity).toBe('me');
    expect(Date.parse(leases.get(member)!.spec!.renewTime!)).toBeGreaterThan(Date.parse(renewedAtStop!) + 8_000);

    finishDrain();
    await clock.advance(1_000);
    await running;
    // Gone with the replica: each start makes a member Lease of its own.
    expect(leases.has(member)).toBe(false);
  });

  it('stops and rejects when a renewal hangs past the renew deadline, after draining', async () => {
    const clock = manualClock(Date.parse('2026-11-26T00:00:00Z'));
    const { writer, leases } = leaseStore();
    let hang = false;
    const hanging = { ...writer, replace: (obj: KubeObject) => (hang ? new Promise<KubeObject>(() => undefined) : writer.replace(obj)) };
    let drained = false;
    const outcome = runShardMember({
      writer: hanging, listLeases: () => Promise.resolve([...leases.values()]), clock, logger: pino({ level: 'silent' }),
      namespace: 'loom', group: 'g', identity: 'me', buckets: 2, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500,
    }, async (_held, signal) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      drained = true;
    }, new AbortController().signal).then(() => 'resolved', (err: unknown) => String(err));
    await clock.advance(1_000);
    expect(leases.get(memberLeaseName('g', 'me'))?.spec?.holderIdentity).toBe('me');
    hang = true;
    await clock.advance(3_000);
    expect(await outcome).toContain('could not renew the member Lease for 2000 ms');
    expect(drained).toBe(true);
  });

  it('stops its controllers at the renew deadline when renewals fail: their writes waiting for the rate limit leave, none goes after it', async () => {
    const clock = manualClock(Date.parse('2026-11-26T00:00:00Z'));
    const { writer, leases } = leaseStore();
    let failing = false;
    const failingWriter = { ...writer, replace: (obj: KubeObject) => (failing ? Promise.reject(new Error('connect ECONNREFUSED')) : writer.replace(obj)) };
    // The controllers' writes go one a second; each is given up when the controllers stop.
    const budgets = requestBudgets({ clock, qps: 1, burst: 1 });
    const granted: number[] = [];
    const refused: number[] = [];
    let stoppedAt: number | undefined;
    const outcome = runShardMember({
      writer: failingWriter, listLeases: () => Promise.resolve([...leases.values()]), clock, logger: pino({ level: 'silent' }),
      // A retry period that does not divide the deadline: no renewal round falls on it.
      namespace: 'loom', group: 'g', identity: 'me', buckets: 2, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 600,
    }, async (_held, signal) => {
      signal.addEventListener('abort', () => (stoppedAt = clock.now()), { once: true });
      await Promise.all(Array.from({ length: 20 }, () => budgets.api('CompositeController/c', signal).then(() => granted.push(clock.now()), () => refused.push(clock.now()))));
    }, new AbortController().signal).then(() => 'resolved', (err: unknown) => String(err));
    await clock.advance(1_000);
    failing = true;
    const lastRenewal = Date.parse(leases.get(memberLeaseName('g', 'me'))!.spec!.renewTime!);
    await clock.advance(5_000);
    expect(await outcome).toContain('could not renew the member Lease for 2000 ms');
    const deadline = lastRenewal + 2_000;
    expect(stoppedAt).toBe(deadline);
    expect(granted.length).toBeGreaterThan(0);
    expect(granted.every((at) => at < deadline)).toBe(true);
    expect(refused).toEqual(Array.from({ length: 20 - granted.length }, () => deadline));
  });

  const options = (writer: ObjectWriter, clock: ReturnType<typeof manualClock>, listLeases: () => Promise<Lease[]>) => ({
    writer, listLeases, clock, logger: pino({ level: 'silent' }),
    namespace: 'loom', group: 'g', identity: 'me', buckets: 1, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500,
  });
  const lease = (name: string, holder: string, now: number): Lease => ({
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'loom' },
    spec: { holderIdentity: holder, leaseDurationSeconds: 3, renewTime: new Date(now).toISOString() },
  });

  it('does not take a bucket whose holder is alive, even one missing from the list the round started from', async () => {
    const clock = manualClock(Date.parse('2026-11-26T00:00:00Z'));
    const { writer, leases } = leaseStore();
    leases.set('g-shard-0', lease('g-shard-0', 'newcomer', clock.now()));
    leases.set(memberLeaseName('g', 'newcomer'), lease(memberLeaseName('g', 'newcomer'), 'newcomer', clock.now()));
    const ran: number[][] = [];
    const stop = new AbortController();
    // A list taken before the newcomer joined: it shows no other member and no bucket Lease.
    const running = runShardMember(options(writer, clock, () => Promise.resolve([])), async (held, signal) => {
      ran.push([...held]);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }, stop.signal);
    await clock.advance(1_000);
    expect(leases.get('g-shard-0')?.spec?.holderIdentity).toBe('newcomer');
    expect(ran).toEqual([]);
    stop.abort();
    await clock.advance(1_000);
    await running;
  });

  it('runs a bucket whose Lease names it even when it was not running it', async () => {
    const clock = manualClock(Date.parse('2026-11-26T00:00:00Z'));
    const { writer, leases } = leaseStore();
    leases.set('g-shard-0', lease('g-shard-0', 'me', clock.now()));
    const ran: number[][] = [];
    const stop = new AbortController();
    const running = runShardMember(options(writer, clock, () => Promise.resolve([...leases.values()])), async (held, signal) => {
      ran.push([...held]);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }, stop.signal);
    await clock.advance(1_000);
    expect(ran).toEqual([[0]]);
    stop.abort();
    await clock.advance(1_000);
    await running;
    expect(leases.get('g-shard-0')?.spec?.holderIdentity).toBe('');
  });
});
