import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import { HookCircuitOpenError, HookError, type CircuitTransition } from '../hooks/index.ts';
import { startCircuitRequeue } from './circuit-requeue.ts';
import type { CircuitListener, HookCircuits } from './hook-circuits.ts';

const ENDPOINT = 'http://hook/sync';
const OTHER = 'http://other/sync';

/** Breakers whose transitions the test makes. */
function fakeCircuits() {
  const listeners = new Set<CircuitListener>();
  const circuits: HookCircuits = {
    guard: () => undefined,
    release: () => undefined,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const move = (endpoint: string, transition: CircuitTransition): void => {
    for (const listener of listeners) listener(endpoint, transition);
  };
  return { circuits, move, listeners };
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function setUp(options: { keys?: string[]; maxKeys?: number } = {}) {
  const clock = manualClock(0);
  const { circuits, move, listeners } = fakeCircuits();
  const queued: string[] = [];
  const stop = new AbortController();
  stops.push(stop);
  const requeue = startCircuitRequeue<string>({
    circuits, enqueue: (key) => queued.push(key), keys: () => options.keys ?? [], keyName: (key) => key, clock, signal: stop.signal, maxKeys: options.maxKeys,
  });
  const fastFail = (endpoint = ENDPOINT) => new HookError('sync hook for ns/x failed', { cause: new HookCircuitOpenError('circuit open', endpoint, 5_000) });
  return { clock, move, queued, requeue, stop, listeners, fastFail };
}

describe('circuit requeue', () => {
  it('queues every parent a breaker skipped when it closes, once', () => {
    const { move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    requeue.ended('ns/a', fastFail());
    requeue.ended('ns/b', fastFail());
    requeue.ended('ns/a', fastFail());
    expect(queued).toEqual([]);
    move(ENDPOINT, { from: 'open', to: 'half-open', failures: 3 });
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    expect(queued).toEqual(['ns/a', 'ns/b']);
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    move(ENDPOINT, { from: 'open', to: 'closed', failures: 0 });
    expect(queued).toEqual(['ns/a', 'ns/b']);
  });

  it('queues one skipped parent when the open period ends, to carry the probe, not all of them', async () => {
    const { clock, move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) requeue.ended(key, fastFail());
    await clock.advance(4_999);
    expect(queued).toEqual([]);
    await clock.advance(1);
    expect(queued).toEqual(['ns/a']);
  });

  it('queues the next skipped parent when the carrier\'s sync ended without a probe (deleted, no call needed)', async () => {
    const { clock, move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) requeue.ended(key, fastFail());
    await clock.advance(5_000);
    requeue.ended('ns/other', undefined);
    expect(queued).toEqual(['ns/a']);
    requeue.ended('ns/a', undefined);
    expect(queued).toEqual(['ns/a', 'ns/b']);
    move(ENDPOINT, { from: 'open', to: 'half-open', failures: 3 });
    requeue.ended('ns/b', undefined);
    expect(queued).toEqual(['ns/a', 'ns/b']);
  });

  it('after a probe that told nothing, waits for the next period before it queues a carrier again', async () => {
    const { clock, move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/a', 'ns/b']) requeue.ended(key, fastFail());
    await clock.advance(5_000);
    move(ENDPOINT, { from: 'open', to: 'half-open', failures: 3 });
    move(ENDPOINT, { from: 'half-open', to: 'open', failures: 3, retryAt: 10_000 });
    requeue.ended('ns/a', undefined);
    await clock.advance(4_999);
    expect(queued).toEqual(['ns/a']);
    await clock.advance(1);
    expect(queued).toEqual(['ns/a', 'ns/a']);
  });

  it('takes carriers from every parent of the controller when more were skipped than it keeps', async () => {
    const { clock, move, queued, requeue, fastFail } = setUp({ keys: ['ns/a', 'ns/b', 'ns/c'], maxKeys: 1 });
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/c', 'ns/b']) requeue.ended(key, fastFail());
    await clock.advance(5_000);
    requeue.ended('ns/c', undefined);
    requeue.ended('ns/a', undefined);
    expect(queued).toEqual(['ns/c', 'ns/a', 'ns/b']);
  });

  it('queues every skipped parent again when the breaker closes after a carrier probed, none dropped', async () => {
    const { clock, move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) requeue.ended(key, fastFail());
    await clock.advance(5_000);
    move(ENDPOINT, { from: 'open', to: 'half-open', failures: 3 });
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    expect(queued).toEqual(['ns/a', 'ns/a', 'ns/b', 'ns/c']);
  });

  it('tells a fast failure of a parent already skipped since the breaker opened, until it closes', () => {
    const { move, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    expect(requeue.ended('ns/a', fastFail())).toBe(false);
    expect(requeue.ended('ns/a', fastFail())).toBe(true);
    expect(requeue.ended('ns/a', new HookError('HTTP 503'))).toBe(false);
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 9_000 });
    expect(requeue.ended('ns/a', fastFail())).toBe(false);
  });

  it('keeps the parents of each breaker apart', () => {
    const { move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    move(OTHER, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    requeue.ended('ns/a', fastFail(ENDPOINT));
    requeue.ended('ns/b', fastFail(OTHER));
    move(OTHER, { from: 'half-open', to: 'closed', failures: 3 });
    expect(queued).toEqual(['ns/b']);
  });

  it('queues at once a parent failed fast by a breaker that has closed since', () => {
    const { move, queued, requeue, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    requeue.ended('ns/late', fastFail());
    expect(queued).toEqual(['ns/late']);
  });

  it('ignores failures that are not a breaker failing fast', () => {
    const { move, queued, requeue } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    requeue.ended('ns/a', new HookError('HTTP 503'));
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    expect(queued).toEqual([]);
  });

  it('queues every parent of the controller when more were skipped than it keeps', () => {
    const { move, queued, requeue, fastFail } = setUp({ keys: ['ns/a', 'ns/b', 'ns/c', 'ns/d'], maxKeys: 2 });
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) requeue.ended(key, fastFail());
    move(ENDPOINT, { from: 'half-open', to: 'closed', failures: 3 });
    expect(queued).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d']);
  });

  it('stops listening when stopped, and the controller stop ends its waits', async () => {
    const { clock, move, queued, requeue, stop, listeners, fastFail } = setUp();
    move(ENDPOINT, { from: 'closed', to: 'open', failures: 3, retryAt: 5_000 });
    requeue.ended('ns/a', fastFail());
    requeue.stop();
    stop.abort();
    await settle();
    expect(listeners.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(10_000);
    expect(queued).toEqual([]);
  });
});
