/**
 * The loop every running controller runs, over a manual clock and recording host parts: a failed sync
 * is reported on its object, an API Conflict is retried quietly, resyncs queue every key, and stopping
 * drains the workers before releasing. (Whole controllers run on the real API server in test/.)
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, type KubeObject } from '../api/index.ts';
import { NO_TRACING, WorkQueue, type ReconcileResult } from '../engine/index.ts';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import { KubeApiError } from '../kube/index.ts';
import { StaleSyncError } from '../sync/stale-writes.ts';
import { runControllerLoop } from './controller-loop.ts';
import type { Host } from './host.ts';

const object = (key: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, namespace: 'ns' } });

function loopOf(reconcile: (key: string) => Promise<ReconcileResult>, options: { resyncPeriodMs?: number; logger?: Logger } = {}) {
  const clock = manualClock();
  const logged: string[] = [];
  const logger = options.logger ?? pino({ level: 'info' }, { write: (line: string) => void logged.push((JSON.parse(line) as { msg: string }).msg) });
  const events: string[] = [];
  const results: string[] = [];
  const calls: string[] = [];
  const host = {
    clock,
    settings: { workers: 1, cacheFlushIntervalMs: 0 },
    metrics: { reconciled: (_labels: unknown, result: string) => results.push(result), trackQueue: () => () => undefined },
    events: { record: (obj: KubeObject, event: { reason: string; message: string }) => events.push(`${obj.metadata.name ?? ''} ${event.reason}: ${event.message}`) },
    tracing: NO_TRACING,
  } as unknown as Host;
  const queue = new WorkQueue({ clock });
  let released = false;
  const running = runControllerLoop({
    host, labels: { controller: 'c', type: 'CompositeController' }, logger, queue, keyName: (key) => key,
    reconcile: (key) => (calls.push(key), reconcile(key)),
    keys: () => ['a', 'b'],
    objectOf: object,
    resyncPeriodMs: options.resyncPeriodMs,
    release: () => (released = true),
  });
  return { clock, queue, events, results, calls, running, logged, released: () => released };
}

describe('runControllerLoop', () => {
  it('records a SyncError event with the whole cause chain on the object of a failed sync', async () => {
    const loop = loopOf(() => Promise.reject(new Error('sync hook failed', { cause: new Error('connect ECONNREFUSED') })));
    loop.queue.add('a');
    await settle();
    expect(loop.events).toEqual(['a SyncError: Sync error: sync hook failed: connect ECONNREFUSED']);
    expect(loop.results).toEqual(['error']);
    await loop.running.stop();
  });

  it('reports a failure with a huge message once per sync, its event message bounded', async () => {
    const lines: { level: number; msg: string; err?: { message: string } }[] = [];
    const logged = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
        done();
      },
    });
    const huge = 'x'.repeat(1_000_000);
    const loop = loopOf(() => Promise.reject(new Error(`sync hook: JSONata error at position 7: ${huge}`, { cause: new Error(huge) })), { logger: pino({ level: 'debug' }, logged) });
    loop.queue.add('a');
    await settle();
    // The queue retries after its backoff: each failed sync is one line at warn or above, no more.
    for (let i = 0; i < 3; i++) {
      await loop.clock.advance(60_000);
      await settle();
    }
    await loop.running.stop();
    const failures = lines.filter((line) => line.level >= 40);
    expect(loop.calls.length).toBeGreaterThanOrEqual(2);
    expect(failures).toHaveLength(loop.calls.length);
    expect(failures[0]!.msg).toBe('sync failed');
    expect(loop.events).toHaveLength(loop.calls.length);
    for (const event of loop.events) {
      expect(event.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 'a SyncError: Sync error: '.length);
      expect(event).toMatch(/^a SyncError: Sync error: sync hook: JSONata error at position 7: x+… \(\d+ more characters\)$/);
    }
  });

  it('retries an API Conflict quietly after a second, with no event', async () => {
    let first = true;
    const loop = loopOf(() => {
      if (!first) return Promise.resolve({});
      first = false;
      return Promise.reject(new KubeApiError('409 Conflict: the object has been modified', { status: 409, reason: 'Conflict' }));
    });
    loop.queue.add('a');
    await settle();
    expect(loop.events).toEqual([]);
    await loop.clock.advance(999);
    expect(loop.calls).toEqual(['a']);
    await loop.clock.advance(1);
    await settle();
    expect(loop.calls).toEqual(['a', 'a']);
    expect(loop.results).toEqual(['requeue', 'success']);
    await loop.running.stop();
  });

  it('queues every key again each resync period', async () => {
    const loop = loopOf(() => Promise.resolve({}), { resyncPeriodMs: 60_000 });
    await loop.clock.advance(60_000);
    await settle();
    expect(loop.calls.sort()).toEqual(['a', 'b']);
    await loop.running.stop();
  });

  it('stops by draining the workers, then releases what the controller holds, and reports no error for a sync cut short', async () => {
    let finish: () => void = () => undefined;
    const loop = loopOf((key) => (key === 'a' ? new Promise((_resolve, reject) => (finish = () => reject(new Error('aborted'))) ) : Promise.resolve({})));
    loop.queue.add('a');
    await settle();
    const stopping = loop.running.stop();
    await settle();
    expect(loop.released()).toBe(false);
    finish();
    await stopping;
    expect(loop.released()).toBe(true);
    expect(loop.events).toEqual([]);
  });

  it('says why a sync stopped as stale, queues it again at once, and records no SyncError', async () => {
    let first = true;
    const loop = loopOf(() => {
      if (!first) return Promise.resolve({});
      first = false;
      return Promise.reject(new StaleSyncError("stopped the sync with 10 child write(s) not started: the object's spec changed (generation 1 → 2)", { retryAfterMs: 0 }));
    });
    loop.queue.add('a');
    await settle();
    await settle();
    expect(loop.calls).toEqual(['a', 'a']);
    expect(loop.results).toEqual(['requeue', 'success']);
    expect(loop.events).toEqual([]);
    expect(loop.logged).toContain("stopped the sync with 10 child write(s) not started: the object's spec changed (generation 1 → 2)");
    await loop.running.stop();
  });
});
