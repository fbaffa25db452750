/**
 * The controller object's `SyncsFailing` report over a hand-driven clock and a writer that keeps the
 * object as the API server would: it writes when the set of failing parents changes, coalesces a burst
 * of changes into one write per interval, never writes what the object already says, waits for a new
 * run to have seen every parent before correcting an old count, and with sharding keeps the entries of
 * buckets other replicas hold.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { bucketOf } from '../core/index.ts';
import { manualClock, settle, type ManualClock } from '../engine/manual-clock.test-support.ts';
import type { Host } from './host.ts';
import { shardScope } from './shard-scope.ts';
import { SETTLE_LIMIT_MS, startSyncFailureReport, WRITE_INTERVAL_MS, type StartedSyncFailureReport } from './syncs-failing-report.ts';

interface Status {
  conditions?: { type: string; status: string; message: string }[];
  failingParents?: number;
  syncFailures?: Record<string, { parents: number }>;
}

/** A report over a controller object kept in memory; `writes` counts status writes. */
function setUp(status: Status = {}, shard?: Host['shard']) {
  const clock = manualClock(Date.parse('2026-11-27T10:00:00Z'));
  let obj: KubeObject = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'cc' }, status: status };
  let writes = 0;
  const writer = {
    replaceStatus: (next: KubeObject) => {
      writes += 1;
      obj = next;
      return Promise.resolve(next);
    },
  };
  const host = { clock, writer, logger: pino({ level: 'silent' }), shard } as unknown as Host;
  const stop = new AbortController();
  const report = startSyncFailureReport({ host, get: () => obj, signal: stop.signal });
  return {
    report, clock,
    writes: () => writes,
    status: () => obj.status as Status,
    condition: () => (obj.status as Status).conditions?.find((c) => c.type === 'SyncsFailing'),
    stop: () => stop.abort(),
  };
}

const parent = (name: string): KubeObject => ({ apiVersion: 'x/v1', kind: 'P', metadata: { name, namespace: 'ns', uid: `uid-${name}` } });
const fail = (report: StartedSyncFailureReport, name: string, why = 'undeclared child kind') => report.failed(`ns/${name}`, parent(name), new Error(why));

async function advance(clock: ManualClock, ms: number): Promise<void> {
  await clock.advance(ms);
  await settle();
}

describe('the SyncsFailing report', () => {
  it('writes nothing before it is opened, then False once for a run with no parents', async () => {
    const t = setUp();
    t.report.begin([]);
    await settle();
    expect(t.writes()).toBe(0);
    t.report.open();
    await settle();
    expect(t.condition()).toMatchObject({ status: 'False', message: "no parent's last sync failed" });
    expect(t.status().failingParents).toBe(0);
    await advance(t.clock, WRITE_INTERVAL_MS * 3);
    expect(t.writes()).toBe(1);
    t.stop();
  });

  it('writes the first failure at once, coalesces the burst that follows, and ignores repeated failures', async () => {
    const t = setUp();
    t.report.open();
    fail(t.report, 'p0');
    await settle();
    expect(t.condition()).toMatchObject({ status: 'True', message: "1 parent's last sync failed; latest: ns/p0: undeclared child kind" });
    for (let i = 1; i < 10; i += 1) fail(t.report, `p${i}`, `error ${i}`);
    await settle();
    expect(t.writes()).toBe(1);
    await advance(t.clock, WRITE_INTERVAL_MS);
    expect(t.writes()).toBe(2);
    expect(t.condition()?.message).toBe("10 parents' last sync failed; latest: ns/p9: error 9");
    for (let i = 0; i < 10; i += 1) fail(t.report, `p${i}`, 'again');
    await advance(t.clock, WRITE_INTERVAL_MS * 3);
    expect(t.writes()).toBe(2);
    // Idle, the first recovery is written at once; the rest wait for the interval.
    for (let i = 0; i < 10; i += 1) t.report.succeeded(`ns/p${i}`);
    await settle();
    expect(t.status().failingParents).toBe(9);
    await advance(t.clock, WRITE_INTERVAL_MS);
    expect(t.condition()).toMatchObject({ status: 'False' });
    expect(t.status().failingParents).toBe(0);
    expect(t.writes()).toBe(4);
    t.stop();
  });

  it('corrects an earlier run\'s count only once every parent has had a sync', async () => {
    const earlier = setUp();
    earlier.report.open();
    fail(earlier.report, 'a');
    fail(earlier.report, 'b');
    await advance(earlier.clock, WRITE_INTERVAL_MS);
    const t = setUp(earlier.status());
    t.report.open();
    t.report.begin(['ns/a', 'ns/b']);
    t.report.succeeded('ns/a');
    await advance(t.clock, WRITE_INTERVAL_MS);
    expect(t.writes()).toBe(0);
    t.report.succeeded('ns/b');
    await settle();
    expect(t.condition()).toMatchObject({ status: 'False' });
    expect(t.writes()).toBe(1);
    earlier.stop();
    t.stop();
  });

  it('corrects an earlier run\'s count after the settle limit when a parent never gets a sync that counts', async () => {
    const t = setUp({ failingParents: 2, conditions: [{ type: 'SyncsFailing', status: 'True', message: "2 parents' last sync failed; latest: ns/a: x" }] });
    t.report.open();
    t.report.begin(['ns/a', 'ns/b']);
    t.report.succeeded('ns/a');
    await advance(t.clock, SETTLE_LIMIT_MS - 1);
    expect(t.writes()).toBe(0);
    await advance(t.clock, 1);
    expect(t.condition()).toMatchObject({ status: 'False' });
    expect(t.writes()).toBe(1);
    t.stop();
  });

  it('with sharding, writes the buckets it holds and keeps the others\'', async () => {
    const buckets = 4;
    const mine = bucketOf('uid-a', buckets);
    const other = String((mine + 1) % buckets);
    const t = setUp({ syncFailures: { [other]: { parents: 2, lastError: 'ns/z: down', lastFailureTime: '2026-11-27T09:00:00Z' } as never } }, shardScope(buckets, new Set([mine])));
    t.report.open();
    t.report.begin(['ns/a']);
    fail(t.report, 'a');
    await settle();
    expect(t.status().failingParents).toBe(3);
    expect(Object.keys(t.status().syncFailures ?? {}).sort()).toEqual([String(mine), other].sort());
    expect(t.condition()?.message).toBe("3 parents' last sync failed; latest: ns/a: undeclared child kind");
    t.report.succeeded('ns/a');
    await advance(t.clock, WRITE_INTERVAL_MS);
    expect(t.status().failingParents).toBe(2);
    expect(t.condition()?.message).toBe("2 parents' last sync failed; latest: ns/z: down");
    t.stop();
  });
});
