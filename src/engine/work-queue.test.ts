import { describe, expect, it } from 'vitest';
import { manualClock, settle } from './manual-clock.test-support.ts';
import { ExponentialBackoff } from './rate-limiter.ts';
import { WorkQueue } from './work-queue.ts';

function setup(): { clock: ReturnType<typeof manualClock>; queue: WorkQueue } {
  const clock = manualClock();
  return { clock, queue: new WorkQueue({ clock, rateLimiter: new ExponentialBackoff() }) };
}

/** Every key queued right now, taken (and released) in order. */
async function drain<K>(queue: WorkQueue<K>): Promise<K[]> {
  const keys: K[] = [];
  while (queue.len() > 0) {
    const key = (await queue.get())!;
    keys.push(key);
    queue.done(key);
  }
  return keys;
}

/** Tracks a pending `get` without awaiting it. */
function pendingGet(queue: WorkQueue, signal?: AbortSignal): { settled: () => boolean; value: Promise<string | undefined> } {
  let settled = false;
  const value = queue.get(signal).finally(() => {
    settled = true;
  });
  return { settled: () => settled, value };
}

describe('WorkQueue: de-duplication and order', () => {
  it('queues a key once however often it is added, first come first served', async () => {
    const { queue } = setup();
    for (const key of ['default/a', 'default/b', 'default/a', 'default/c', 'default/b', 'default/a']) queue.add(key);
    expect(queue.len()).toBe(3);
    expect(await drain(queue)).toEqual(['default/a', 'default/b', 'default/c']);
  });

  it('marks a key added while processing as dirty and queues it again only on done', async () => {
    const { queue } = setup();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    const next = pendingGet(queue);
    await settle();
    expect(next.settled()).toBe(false);
    queue.done('a');
    expect(await next.value).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0); // the two adds were one
  });

  it('never hands one key to two callers at once', async () => {
    const { queue } = setup();
    queue.add('a');
    const first = pendingGet(queue);
    const second = pendingGet(queue);
    expect(await first.value).toBe('a');
    queue.add('a');
    await settle();
    expect(second.settled()).toBe(false);
    queue.done('a');
    expect(await second.value).toBe('a');
  });

  it('hands keys to waiting callers oldest first', async () => {
    const { queue } = setup();
    const first = pendingGet(queue);
    const second = pendingGet(queue);
    queue.add('x');
    queue.add('y');
    expect([await first.value, await second.value]).toEqual(['x', 'y']);
  });

  it('ignores done for a key it is not processing', async () => {
    const { queue } = setup();
    queue.add('a');
    queue.done('a');
    expect(await drain(queue)).toEqual(['a']);
  });
});

describe('WorkQueue: delayed adds', () => {
  it('adds a key only once its delay has passed, in deadline order', async () => {
    const { clock, queue } = setup();
    queue.addAfter('late', 300);
    queue.addAfter('early', 100);
    queue.addAfter('middle', 200);
    await clock.advance(99);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
    await clock.advance(200);
    expect(await drain(queue)).toEqual(['early', 'middle', 'late']);
  });

  it('keeps the sooner of two delayed adds for one key, and cancels the later timer', async () => {
    const { clock, queue } = setup();
    queue.addAfter('a', 500);
    queue.addAfter('a', 100);
    queue.addAfter('a', 800);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(100);
    expect(await drain(queue)).toEqual(['a']);
    await clock.advance(1_000);
    expect(queue.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('adds at once for a delay that is not positive, and never for Infinity', async () => {
    const { clock, queue } = setup();
    queue.addAfter('now', 0);
    queue.addAfter('also-now', -10);
    queue.addAfter('never', Infinity);
    expect(await drain(queue)).toEqual(['now', 'also-now']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('does not let a pending delay hold back an immediate add (the delayed one is then de-duplicated)', async () => {
    const { clock, queue } = setup();
    queue.addAfter('a', 100);
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(1);
    await clock.advance(100);
    expect(queue.len()).toBe(1);
  });

  it('waits out delays longer than one timer can hold', async () => {
    const { clock, queue } = setup();
    const thirtyDays = 30 * 24 * 3_600_000;
    queue.addAfter('a', thirtyDays);
    await clock.advance(thirtyDays - 1);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
  });

  it('adds a rate-limited key after its backoff, counting retries until forget', async () => {
    const { clock, queue } = setup();
    const seen: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const from = clock.now();
      queue.addRateLimited('a');
      while (queue.len() === 0) await clock.advance(1);
      seen.push(clock.now() - from);
      await drain(queue);
    }
    expect(seen).toEqual([5, 10, 20, 40]);
    queue.forget('a');
    // Forgotten: the backoff starts again from the first step.
    queue.addRateLimited('a');
    await clock.advance(5);
    expect(queue.len()).toBe(1);
  });

  it('queues every key waiting for a rate-limited retry at once on retryNow, keeping counts and other delays', async () => {
    const { clock, queue } = setup();
    for (let i = 0; i < 12; i++) queue.addRateLimited('a'); // backoff now 5 ms · 2^11 ≈ 10 s
    queue.addRateLimited('b');
    queue.addAfter('resync', 60_000);
    await settle();
    expect(queue.len()).toBe(0);
    expect(queue.retryNow()).toBe(2);
    expect(await drain(queue)).toEqual(['a', 'b']);
    // Its count was kept: the next failure of `a` waits 5 ms · 2^12.
    queue.addRateLimited('a');
    await clock.advance(20_479);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await drain(queue)).toEqual(['a']);
    await clock.advance(59_999 - 20_480);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await drain(queue)).toEqual(['resync']);
  });

  it('uses the default controller rate limiter when given none', async () => {
    const clock = manualClock();
    const queue = new WorkQueue({ clock });
    queue.addRateLimited('a');
    await clock.advance(4);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
  });
});

describe('WorkQueue: stopping', () => {
  it('releases waiting get calls on shutdown and hands out nothing afterwards', async () => {
    const { queue } = setup();
    const waiting = [pendingGet(queue), pendingGet(queue)];
    queue.shutDown();
    expect(await Promise.all(waiting.map((w) => w.value))).toEqual([undefined, undefined]);
    queue.add('a');
    expect(queue.len()).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });

  it('drops queued keys and cancels every delayed add on shutdown', () => {
    const { clock, queue } = setup();
    queue.add('queued');
    queue.addAfter('later', 1_000);
    queue.addRateLimited('failing');
    expect(clock.pendingTimers()).toBe(2);
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    expect(queue.len()).toBe(0);
    queue.addAfter('after-shutdown', 10);
    queue.addRateLimited('after-shutdown');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('resolves a get whose signal aborts, leaving later keys for other callers', async () => {
    const { queue } = setup();
    const controller = new AbortController();
    const aborted = pendingGet(queue, controller.signal);
    controller.abort();
    expect(await aborted.value).toBeUndefined();
    queue.add('a');
    expect(queue.len()).toBe(1);
    expect(await queue.get(controller.signal)).toBeUndefined();
    expect(await queue.get()).toBe('a');
  });
});

describe('WorkQueue: keys that are not strings', () => {
  interface Key {
    type: string;
    name: string;
  }
  const keyOf = (key: Key): string => `${key.type} ${key.name}`;

  it('tells keys apart by keyOf, and hands out the key as it was added', async () => {
    const queue = new WorkQueue<Key>({ clock: manualClock(), keyOf });
    const first = { type: 'apps/v1/deployments', name: 'ns/web' };
    queue.add(first);
    queue.add({ ...first });
    queue.add({ type: 'v1/services', name: 'ns/web' });
    expect(queue.len()).toBe(2);
    const got = await queue.get();
    expect(got).toBe(first);
    queue.done({ ...first });
    queue.add({ ...first });
    expect(queue.len()).toBe(2);
  });

  it('backs off and delays by key identity', async () => {
    const clock = manualClock();
    const queue = new WorkQueue<Key>({ clock, keyOf });
    queue.addRateLimited({ type: 't', name: 'a' });
    queue.addRateLimited({ type: 't', name: 'a' });
    await clock.advance(5);
    // One pending retry for one identity, the sooner one.
    expect(await drain(queue)).toEqual([{ type: 't', name: 'a' }]);
  });
});
