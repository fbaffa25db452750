/**
 * The work queue: keys in, keys out, with client-go's guarantees. Level-based controllers queue
 * keys (`namespace/name`, or a type and an object), never events, so ten changes to one parent while it waits mean one reconcile,
 * and a key is never reconciled by two workers at once — a change that lands while it is being
 * reconciled marks it dirty, and it is queued again when the worker calls {@link WorkQueue.done}.
 *
 * Differences from client-go, on purpose: after {@link WorkQueue.shutDown}, `get` hands out nothing
 * (client-go keeps handing out what was queued). Keys left behind are not lost — the next leader or
 * the next start lists every object and queues it again — and stopping promptly is what a shutdown
 * wants.
 */
import type { Clock } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/**
 * How keys are told apart: two keys with the same `keyOf` are the same key. Needed for anything but
 * string keys, which are their own identity.
 */
type KeyIdentity<K> = K extends string ? { keyOf?: ((key: K) => string) | undefined } : { keyOf: (key: K) => string };

/** What a work queue is built from. */
export type WorkQueueOptions<K> = KeyIdentity<K> & {
  /** Drives delayed adds; nothing else in the queue reads time. */
  clock: Clock;
  /** Decides `addRateLimited` delays, by key identity; default {@link defaultControllerRateLimiter} on the same clock. */
  rateLimiter?: RateLimiter | undefined;
};

/** A delayed add that has not fired yet. */
interface DelayedAdd<K> {
  key: K;
  readyAt: number;
  cancel: AbortController;
  /** Set for a rate-limited retry (`addRateLimited`), which {@link WorkQueue.retryNow} may bring forward. */
  retry: boolean;
}

/** Hands a key (or `undefined` on shutdown/abort) to one waiting `get`. */
type Waiter<K> = (key: K | undefined) => void;

/** Node's timers fire at once beyond this many ms (2^31 - 1), so longer delays sleep in pieces. */
const MAX_SLEEP_MS = 2_147_483_647;

/** A de-duplicating, delaying, rate-limited queue of keys; internally each key is its identity string. */
export class WorkQueue<K = string> {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter;
  readonly #keyOf: (key: K) => string;
  /** The key of each identity that is queued, dirty or being processed. */
  readonly #keys = new Map<string, K>();
  /** Keys ready for a worker, in order. Each is also in `#dirty`. */
  readonly #queue: string[] = [];
  /** Keys that need processing: queued, or added again while being processed. */
  readonly #dirty = new Set<string>();
  /** Keys a worker holds between `get` and `done`. */
  readonly #processing = new Set<string>();
  /** Pending `get` calls, oldest first. */
  readonly #waiters = new Set<Waiter<K>>();
  /** At most one pending delayed add per key: the soonest. */
  readonly #delayed = new Map<string, DelayedAdd<K>>();
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K>) {
    this.#clock = options.clock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: options.clock });
    // Without `keyOf`, K is a string (KeyIdentity requires it otherwise): the key is its own identity.
    this.#keyOf = options.keyOf ?? ((key: K) => key as string);
  }

  /** How many keys wait for a worker (not counting keys being processed or delayed): the depth metric. */
  len(): number {
    return this.#queue.length;
  }

  /**
   * Queues `key` unless it is already queued. A key being processed is marked dirty instead, and
   * queued again by {@link WorkQueue.done}. Ignored after shutdown.
   */
  add(key: K): void {
    const id = this.#keyOf(key);
    if (this.#shuttingDown || this.#dirty.has(id)) return;
    this.#dirty.add(id);
    this.#keys.set(id, key);
    if (this.#processing.has(id)) return;
    this.#enqueue(id);
  }

  /**
   * Adds `key` after `delayMs` (at once when not positive; never when `Infinity`). When the key already
   * waits for a delayed add, the sooner of the two wins and the other is dropped. A delayed add does not
   * hold a key back from an immediate {@link WorkQueue.add}. Ignored after shutdown, which also cancels
   * every pending delay so no timer outlives the queue.
   */
  addAfter(key: K, delayMs: number): void {
    this.#addAfter(key, delayMs, false);
  }

  #addAfter(key: K, delayMs: number, retry: boolean): void {
    if (this.#shuttingDown || delayMs === Infinity) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const id = this.#keyOf(key);
    const readyAt = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(id);
    if (pending !== undefined && pending.readyAt <= readyAt) return;
    pending?.cancel.abort();
    const entry: DelayedAdd<K> = { key, readyAt, cancel: new AbortController(), retry };
    this.#delayed.set(id, entry);
    this.#sleepUntil(readyAt, entry.cancel.signal).then(
      () => {
        if (this.#delayed.get(id) !== entry) return;
        this.#delayed.delete(id);
        this.add(entry.key);
      },
      () => {
        // Cancelled: a sooner add for this key replaced it, or the queue shut down.
      },
    );
  }

  /** Adds `key` after the delay its rate limiter decides, counting one more retry. */
  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    this.#addAfter(key, this.#rateLimiter.when(this.#keyOf(key)), true);
  }

  /**
   * Queues now every key waiting for a rate-limited retry (not those delayed by `addAfter`), keeping
   * their retry counts, so a failure that lasts still backs off. For when whatever made them fail has
   * probably recovered: their backoff may have grown to many minutes. Returns how many were queued.
   */
  retryNow(): number {
    const retries = [...this.#delayed].filter(([, pending]) => pending.retry);
    for (const [id, pending] of retries) {
      pending.cancel.abort();
      this.#delayed.delete(id);
      this.add(pending.key);
    }
    return retries.length;
  }

  /** Resets `key`'s retry history (call after a success, or when giving up on it). */
  forget(key: K): void {
    this.#rateLimiter.forget(this.#keyOf(key));
  }

  /**
   * The next key, which the caller now holds until it calls {@link WorkQueue.done}. Waits until a key is
   * ready; resolves `undefined` when the queue shuts down or `signal` aborts first.
   */
  get(signal?: AbortSignal): Promise<K | undefined> {
    if (this.#shuttingDown || signal?.aborted === true) return Promise.resolve(undefined);
    const id = this.#queue.shift();
    if (id !== undefined) return Promise.resolve(this.#startProcessing(id));
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        resolve(undefined);
      };
      const waiter: Waiter<K> = (handed) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(handed);
      };
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Releases `key` after processing; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    const id = this.#keyOf(key);
    if (!this.#processing.delete(id)) return;
    if (!this.#shuttingDown && this.#dirty.has(id)) this.#enqueue(id);
    else this.#keys.delete(id);
  }

  /**
   * Stops the queue: later adds are ignored, waiting and later `get` calls resolve `undefined`, queued
   * keys are dropped and pending delayed adds are cancelled. Keys being processed may still be `done`.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const waiter of this.#waiters) waiter(undefined);
    this.#waiters.clear();
    for (const pending of this.#delayed.values()) pending.cancel.abort();
    this.#delayed.clear();
    this.#queue.length = 0;
    this.#dirty.clear();
    // Keys being processed may still be `done`, which needs nothing from here.
    this.#keys.clear();
  }

  /** Hands the key of `id` to the oldest waiting `get`, or queues it when nobody waits. */
  #enqueue(id: string): void {
    const [waiter] = this.#waiters;
    if (waiter === undefined) {
      this.#queue.push(id);
      return;
    }
    this.#waiters.delete(waiter);
    waiter(this.#startProcessing(id));
  }

  #startProcessing(id: string): K {
    this.#dirty.delete(id);
    this.#processing.add(id);
    return this.#keys.get(id)!;
  }

  async #sleepUntil(readyAt: number, signal: AbortSignal): Promise<void> {
    for (let left = readyAt - this.#clock.now(); left > 0; left = readyAt - this.#clock.now()) {
      await this.#clock.sleep(Math.min(left, MAX_SLEEP_MS), signal);
    }
  }
}
