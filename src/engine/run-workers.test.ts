import { describe, expect, it } from 'vitest';
import { RetryAfterError, TerminalError } from './errors.ts';
import { manualClock, settle } from './manual-clock.test-support.ts';
import type { ReconcileResult, Reconciler } from './reconciler.ts';
import { ExponentialBackoff } from './rate-limiter.ts';
import { runWorkers, type ReconcileOutcome, type WorkerQueue } from './run-workers.ts';
import { WorkQueue } from './work-queue.ts';

class HookError extends Error {
  override readonly name = 'HookError';
}

/** A queue that hands out the given keys, then reports shutdown, recording what the workers did. */
function recordingQueue(keys: string[]): WorkerQueue & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get: () => Promise.resolve(keys.shift()),
    done: (key) => calls.push(`done ${key}`),
    forget: (key) => calls.push(`forget ${key}`),
    addAfter: (key, ms) => calls.push(`addAfter ${key} ${ms}`),
    addRateLimited: (key) => calls.push(`addRateLimited ${key}`),
    retryNow: () => calls.push('retryNow'),
    shutDown: () => calls.push('shutDown'),
  };
}

/** A reconciler whose calls the test settles by hand. */
function manualReconciler(): Reconciler & {
  running: Map<string, PromiseWithResolvers<ReconcileResult>>;
  signals: AbortSignal[];
  started: string[];
} {
  const running = new Map<string, PromiseWithResolvers<ReconcileResult>>();
  const signals: AbortSignal[] = [];
  const started: string[] = [];
  return {
    running,
    signals,
    started,
    reconcile: (key, signal) => {
      if (running.has(key)) throw new Error(`${key} reconciled twice at once`);
      const call = Promise.withResolvers<ReconcileResult>();
      running.set(key, call);
      signals.push(signal);
      started.push(key);
      return call.promise.finally(() => running.delete(key));
    },
  };
}

const cause = new Error('HTTP 500');
const tooMany = new RetryAfterError('429', { retryAfterMs: 2_000 });
const wrappedTooMany = new HookError('sync hook failed', { cause: new RetryAfterError('429', { retryAfterMs: 7 }) });
const terminal = new TerminalError('bad spec', { cause });
const failure = new HookError('sync hook failed', { cause });
const syncThrow = new Error('not even a promise');

describe('runWorkers: outcome → queue action', () => {
  it.each<[string, () => Promise<ReconcileResult>, string[], Omit<ReconcileOutcome, 'key' | 'durationMs'>]>([
    ['success', () => Promise.resolve({}), ['forget k', 'done k'], { result: 'success' }],
    [
      'success with a resync',
      () => Promise.resolve({ requeueAfterMs: 30_000 }),
      ['forget k', 'addAfter k 30000', 'done k'],
      { result: 'success', requeueAfterMs: 30_000 },
    ],
    ['success with a zero resync', () => Promise.resolve({ requeueAfterMs: 0 }), ['forget k', 'done k'], { result: 'success' }],
    ['RetryAfterError', () => Promise.reject(tooMany), ['addAfter k 2000', 'done k'], { result: 'requeue', requeueAfterMs: 2_000, error: tooMany }],
    [
      'RetryAfterError wrapped as a cause',
      () => Promise.reject(wrappedTooMany),
      ['addAfter k 7', 'done k'],
      { result: 'requeue', requeueAfterMs: 7, error: wrappedTooMany },
    ],
    ['TerminalError', () => Promise.reject(terminal), ['forget k', 'done k'], { result: 'terminal', error: terminal }],
    ['any other error', () => Promise.reject(failure), ['addRateLimited k', 'done k'], { result: 'error', error: failure }],
    [
      'a synchronous throw',
      () => {
        throw syncThrow;
      },
      ['addRateLimited k', 'done k'],
      { result: 'error', error: syncThrow },
    ],
    [
      'a rejection with a non-error',
      // Plain-JS reconcilers can reject with anything; the loop must cope.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      () => Promise.reject('nope'),
      ['addRateLimited k', 'done k'],
      { result: 'error', error: 'nope' },
    ],
  ])('maps %s', async (_, reconcile, calls, expected) => {
    const queue = recordingQueue(['k']);
    const outcomes: ReconcileOutcome[] = [];
    await runWorkers({ queue, reconciler: { reconcile }, workers: 1, signal: new AbortController().signal, clock: manualClock(), onOutcome: (o) => outcomes.push(o) });
    expect(queue.calls).toEqual(calls);
    expect(outcomes).toEqual([{ key: 'k', durationMs: 0, ...expected }]);
    expect(outcomes[0]?.error).toBe(expected.error); // the error as thrown, context and cause intact
  });

  it('keeps going past failures and a throwing onOutcome', async () => {
    const queue = recordingQueue(['a', 'b', 'c']);
    const seen: string[] = [];
    const reconcile = (key: string): Promise<ReconcileResult> => (key === 'b' ? Promise.reject(new Error('boom')) : Promise.resolve({}));
    const onOutcome = (o: ReconcileOutcome): void => {
      seen.push(`${o.key} ${o.result}`);
      throw new Error('observer bug');
    };
    await runWorkers({ queue, reconciler: { reconcile }, workers: 1, signal: new AbortController().signal, clock: manualClock(), onOutcome });
    expect(seen).toEqual(['a success', 'b error', 'c success']);
  });

  it('retries every key in backoff once when a success follows failures, not again within 30 s', async () => {
    const clock = manualClock();
    const queue = recordingQueue(['bad', 'good', 'good', 'bad', 'good']);
    const reconcile = (key: string): Promise<ReconcileResult> => (key === 'bad' ? Promise.reject(new Error('hook down')) : Promise.resolve({}));
    await runWorkers({ queue, reconciler: { reconcile }, workers: 1, signal: new AbortController().signal, clock });
    expect(queue.calls.filter((c) => c === 'retryNow')).toHaveLength(1);
    expect(queue.calls.slice(0, 6)).toEqual(['addRateLimited bad', 'done bad', 'forget good', 'done good', 'retryNow', 'forget good']);
  });

  it('retries the keys in backoff again after the next failure once 30 s have passed', async () => {
    const clock = manualClock();
    const keys = ['bad', 'good', 'bad', 'good'];
    const queue = { ...recordingQueue([]), get: () => Promise.resolve(keys.shift()) };
    const reconcile = async (key: string): Promise<ReconcileResult> => {
      if (key === 'bad') throw new Error('hook down');
      await clock.advance(30_000);
      return {};
    };
    await runWorkers({ queue, reconciler: { reconcile }, workers: 1, signal: new AbortController().signal, clock });
    expect(queue.calls.filter((c) => c === 'retryNow')).toHaveLength(2);
  });

  it('times each reconcile on the injected clock', async () => {
    const clock = manualClock();
    const queue = recordingQueue(['k']);
    const outcomes: ReconcileOutcome[] = [];
    const running = runWorkers({
      queue,
      reconciler: { reconcile: async (_, signal) => (await clock.sleep(250, signal), {}) },
      workers: 1,
      signal: new AbortController().signal,
      clock,
      onOutcome: (o) => outcomes.push(o),
    });
    await clock.advance(250);
    await running;
    expect(outcomes.map((o) => o.durationMs)).toEqual([250]);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects %s workers', async (workers) => {
    const options = { queue: recordingQueue([]), reconciler: manualReconciler(), workers, signal: new AbortController().signal, clock: manualClock() };
    await expect(runWorkers(options)).rejects.toThrow(RangeError);
  });
});

describe('runWorkers on a real queue', () => {
  function setup(workers: number): {
    clock: ReturnType<typeof manualClock>;
    queue: WorkQueue;
    reconciler: ReturnType<typeof manualReconciler>;
    stop: AbortController;
    running: Promise<void>;
    outcomes: ReconcileOutcome[];
  } {
    const clock = manualClock();
    const queue = new WorkQueue({ clock, rateLimiter: new ExponentialBackoff() });
    const reconciler = manualReconciler();
    const stop = new AbortController();
    const outcomes: ReconcileOutcome[] = [];
    const running = runWorkers({ queue, reconciler, workers, signal: stop.signal, clock, onOutcome: (o) => outcomes.push(o) });
    return { clock, queue, reconciler, stop, running, outcomes };
  }

  it('runs up to N keys at once, but never one key twice at once', async () => {
    const { queue, reconciler, stop, running } = setup(3);
    for (const key of ['a', 'b', 'a', 'c', 'd']) queue.add(key);
    await settle();
    expect([...reconciler.running.keys()]).toEqual(['a', 'b', 'c']);
    queue.add('a'); // dirty while in flight
    await settle();
    expect(reconciler.started).toEqual(['a', 'b', 'c']);
    reconciler.running.get('a')!.resolve({});
    await settle();
    expect([...reconciler.running.keys()]).toEqual(['b', 'c', 'd']);
    reconciler.running.get('b')!.resolve({});
    await settle();
    expect(reconciler.started).toEqual(['a', 'b', 'c', 'd', 'a']);
    stop.abort();
    for (const call of reconciler.running.values()) call.resolve({});
    await running;
  });

  it('retries failures with growing backoff, and a success resets it', async () => {
    const { clock, queue, reconciler, stop, running } = setup(1);
    const startedAt: number[] = [];
    const fail = async (times: number): Promise<void> => {
      for (let i = 0; i < times; i++) {
        while (!reconciler.running.has('a')) await clock.advance(1);
        startedAt.push(clock.now());
        reconciler.running.get('a')!.reject(new Error('hook down'));
        await settle();
      }
    };
    queue.add('a');
    await fail(3);
    while (!reconciler.running.has('a')) await clock.advance(1);
    const gaps = [...startedAt, clock.now()].slice(1).map((t, i) => t - startedAt[i]!);
    expect(gaps).toEqual([5, 10, 20]);
    reconciler.running.get('a')!.resolve({});
    await settle();
    // The success reset the backoff: the next failure is retried after 5 ms again.
    queue.add('a');
    await settle();
    reconciler.running.get('a')!.reject(new Error('hook down'));
    await settle();
    await clock.advance(4);
    expect(reconciler.running.has('a')).toBe(false);
    await clock.advance(1);
    expect(reconciler.running.has('a')).toBe(true);
    stop.abort();
    reconciler.running.get('a')!.resolve({});
    await running;
  });

  it('retries after the server-given delay without counting a failure', async () => {
    const { clock, queue, reconciler, stop, running, outcomes } = setup(1);
    queue.addRateLimited('a'); // one real failure on record
    await clock.advance(5);
    reconciler.running.get('a')!.reject(new RetryAfterError('429', { retryAfterMs: 3_000 }));
    await clock.advance(2_999);
    expect(reconciler.running.has('a')).toBe(false);
    await clock.advance(1);
    expect(reconciler.running.has('a')).toBe(true);
    expect(outcomes.map((o) => o.result)).toEqual(['requeue']);
    // The 429 was not counted: the next failure is the second, retried after 10 ms, not 20.
    reconciler.running.get('a')!.reject(new Error('hook down'));
    await settle();
    await clock.advance(9);
    expect(reconciler.running.has('a')).toBe(false);
    await clock.advance(1);
    expect(reconciler.running.has('a')).toBe(true);
    stop.abort();
    reconciler.running.get('a')!.resolve({});
    await running;
  });

  it('resyncs a successful key after requeueAfterMs', async () => {
    const { clock, queue, reconciler, stop, running } = setup(1);
    queue.add('a');
    await settle();
    reconciler.running.get('a')!.resolve({ requeueAfterMs: 60_000 });
    await clock.advance(59_999);
    expect(reconciler.started).toEqual(['a']);
    await clock.advance(1);
    expect(reconciler.started).toEqual(['a', 'a']);
    stop.abort();
    reconciler.running.get('a')!.resolve({});
    await running;
  });

  it('drains on abort: in-flight reconciles are told to stop and are awaited, nothing new starts, no timer is left', async () => {
    const { clock, queue, reconciler, stop, running, outcomes } = setup(2);
    queue.add('a');
    queue.add('b');
    queue.add('c');
    queue.addAfter('later', 1_000);
    await settle();
    let finished = false;
    void running.then(() => (finished = true));
    stop.abort();
    await settle();
    expect(finished).toBe(false);
    expect(reconciler.signals.map((s) => s.aborted)).toEqual([true, true]);
    reconciler.running.get('a')!.resolve({});
    reconciler.running.get('b')!.reject(new Error('late failure'));
    await running;
    expect(reconciler.started).toEqual(['a', 'b']);
    expect(outcomes.map((o) => `${o.key} ${o.result}`)).toEqual(['a success', 'b error']);
    queue.add('after');
    expect(queue.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops at once when the signal is already aborted', async () => {
    const clock = manualClock();
    const queue = new WorkQueue({ clock });
    queue.add('a');
    const reconciler = manualReconciler();
    await runWorkers({ queue, reconciler, workers: 2, signal: AbortSignal.abort(), clock });
    expect(reconciler.started).toEqual([]);
  });

  it('stops when someone else shuts the queue down', async () => {
    const { queue, stop, running } = setup(2);
    queue.shutDown();
    await running;
    expect(stop.signal.aborted).toBe(false);
  });
});
