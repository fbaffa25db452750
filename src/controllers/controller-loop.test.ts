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
import { PlanStoppedError } from '../apply/index.ts';
import { rootLogger } from '../cli/root-logger.ts';
import { HookCircuitOpenError } from '../hooks/index.ts';
import { KubeApiError } from '../kube/index.ts';
import { StaleSyncError } from '../sync/stale-writes.ts';
import { runControllerLoop, stopTogether } from './controller-loop.ts';
import type { CircuitListener, HookCircuits } from './hook-circuits.ts';
import type { Host } from './host.ts';

const object = (key: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, namespace: 'ns' } });

/** A log destination that keeps every line, raw and parsed. */
function logLines() {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, raw, parsed: () => raw.map((line) => JSON.parse(line) as LogLine) };
}

interface LogLine {
  level: number;
  msg: string;
  key?: string;
  err?: { message: string; type: string };
}

function loopOf(reconcile: (key: string) => Promise<ReconcileResult>, options: { resyncPeriodMs?: number; logger?: Logger; circuits?: HookCircuits } = {}) {
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
    circuits: options.circuits,
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

  it('records one SyncError event for a parent failed fast again and again while a circuit breaker stays open', async () => {
    const listeners = new Set<CircuitListener>();
    const circuits: HookCircuits = { guard: () => undefined, release: () => undefined, subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)) };
    const loop = loopOf(() => Promise.reject(new HookCircuitOpenError('sync hook: circuit open', 'http://hook/sync', 60_000)), { circuits });
    for (const listener of listeners) listener('http://hook/sync', { from: 'closed', to: 'open', failures: 5, retryAt: 60_000 });
    loop.queue.add('a');
    await settle();
    loop.queue.add('a');
    await settle();
    expect(loop.calls).toEqual(['a', 'a']);
    expect(loop.events).toEqual(['a SyncError: Sync error: sync hook: circuit open']);
    expect(loop.results).toEqual(['error', 'error']);
    await loop.running.stop();
  });

  it('reports a failure with a huge message once per sync through the root logger: the message once (in err), the line bounded', async () => {
    const lines = logLines();
    const huge = 'x'.repeat(1_000_000);
    const loop = loopOf(() => Promise.reject(new Error(`sync hook: JSONata error at line 1, column 1: ${huge}`, { cause: new Error(huge) })), { logger: rootLogger('debug', lines.stream) });
    loop.queue.add('a');
    await settle();
    // The queue retries after its backoff: each failed sync is one line at warn or above, no more.
    for (let i = 0; i < 3; i++) {
      await loop.clock.advance(60_000);
      await settle();
    }
    await loop.running.stop();
    const failures = lines.parsed().filter((line) => line.level >= 40);
    expect(loop.calls.length).toBeGreaterThanOrEqual(2);
    expect(failures).toHaveLength(loop.calls.length);
    for (const line of failures) {
      // The failure's text is the error's, not repeated in the line's message.
      expect(line.msg).toBe('sync failed');
      expect(line.err?.message).toMatch(/^sync hook: JSONata error at line 1, column 1: x+… \(\d+ more characters\)/);
    }
    // Bounded by the root logger: the message and its cause, the stack's copy of the message, and the rest of the line.
    for (const raw of lines.raw.filter((line) => line.includes('"sync failed"'))) expect(raw.length).toBeLessThan(4 * MAX_MESSAGE_CHARS + 4_000);
    expect(loop.events).toHaveLength(loop.calls.length);
    for (const event of loop.events) {
      expect(event.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 'a SyncError: Sync error: '.length);
      expect(event).toMatch(/^a SyncError: Sync error: sync hook: JSONata error at line 1, column 1: x+… \(\d+ more characters\)$/);
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
  it('logs the write failures met before a stale stop with the stop, as its err', async () => {
    let first = true;
    const lines = logLines();
    const loop = loopOf(() => {
      if (!first) return Promise.resolve({});
      first = false;
      return Promise.reject(new StaleSyncError("stopped the sync with 3 child write(s) not started: the object's spec changed (generation 1 → 2)", {
        retryAfterMs: 0, cause: new Error('1 child write(s) failed: create Service ns/web-0: 403 Forbidden'),
      }));
    }, { logger: rootLogger('debug', lines.stream) });
    loop.queue.add('a');
    await settle();
    await settle();
    await loop.running.stop();
    const stale = lines.parsed().filter((line) => line.msg.startsWith('stopped the sync'));
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ level: 30, key: 'a', err: { message: expect.stringContaining('403 Forbidden') as unknown } });
  });

  it('logs a sync stopped by the controller stopping at debug, without the PlanStoppedError as err', async () => {
    const lines = logLines();
    let stopSync: () => void = () => undefined;
    const loop = loopOf(() => new Promise((_resolve, reject) => {
      stopSync = () => reject(new StaleSyncError('stopped the sync with 5 child write(s) not started: the controller is stopping', {
        retryAfterMs: 0, cause: new PlanStoppedError('create Service ns/web-0', 'the controller is stopping'),
      }));
    }), { logger: rootLogger('debug', lines.stream) });
    loop.queue.add('a');
    await settle();
    const stopping = loop.running.stop();
    stopSync();
    await stopping;
    const stale = lines.parsed().filter((line) => line.msg.startsWith('stopped the sync'));
    expect(stale).toHaveLength(1);
    expect(stale[0]!.level).toBe(20);
    expect(stale[0]!.err).toBeUndefined();
  });
});

describe('stopTogether', () => {
  /** A part whose stop ends when the test says, recording that it began. */
  function part(name: string, began: string[]) {
    let end: (err?: Error) => void = () => undefined;
    return {
      stop: () => new Promise<void>((resolve, reject) => {
        began.push(name);
        end = (err) => (err ? reject(err) : resolve());
      }),
      end: (err?: Error) => end(err),
    };
  }

  it('stops every part at once, not one after another, and resolves when all have stopped', async () => {
    const began: string[] = [];
    const repair = part('repair', began);
    const loop = part('loop', began);
    let stopped = false;
    const stopping = stopTogether([repair, loop]).stop().then(() => (stopped = true));
    await settle();
    expect(began.sort()).toEqual(['loop', 'repair']);
    loop.end();
    await settle();
    expect(stopped).toBe(false);
    repair.end();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('still stops the other parts when one fails to, and rejects with that failure once all are done', async () => {
    const began: string[] = [];
    const repair = part('repair', began);
    const loop = part('loop', began);
    const stopping = stopTogether([repair, loop]).stop();
    const outcome = stopping.then(() => 'stopped', (err: unknown) => err);
    await settle();
    repair.end(new Error('repair workers failed'));
    await settle();
    expect(began.sort()).toEqual(['loop', 'repair']);
    loop.end();
    const err = await outcome;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('repair workers failed');
  });

  it('names every failure when more than one part fails to stop', async () => {
    const began: string[] = [];
    const repair = part('repair', began);
    const loop = part('loop', began);
    const outcome = stopTogether([repair, loop]).stop().then(() => 'stopped', (err: unknown) => err);
    await settle();
    repair.end(new Error('repair failed'));
    loop.end(new Error('loop failed'));
    const err = await outcome;
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors.map((e: Error) => e.message)).toEqual(['repair failed', 'loop failed']);
  });
});
