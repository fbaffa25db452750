/**
 * The work queue: keys in, keys out, with client-go's guarantees. Level-based controllers queue
 * `namespace/name` keys, never events, so ten changes to one parent while it waits mean one reconcile,
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

/** What a work queue is built from. */
export interface WorkQueueOptions {
  /** Drives delayed adds; nothing else in the queue reads time. */
  clock: Clock;
  /** Decides `addRateLimited` delays; default {@link defaultControllerRateLimiter} on the same clock. */
  rateLimiter?: RateLimiter | undefined;
}

/** A delayed add that has not fired yet. */
interface DelayedAdd {
  readyAt: number;
  cancel: AbortController;
  /** Set for a rate-limited retry (`addRateLimited`), which {@link WorkQueue.retryNow} may bring forward. */
  retry: boolean;
}

/** Hands a key (or `undefined` on shutdown/abort) to one waiting `get`. */
type Waiter = (key: string | undefined) => void;

/** Node's timers fire at once beyond this many ms (2^31 - 1), so longer delays sleep in pieces. */
const MAX_SLEEP_MS = 2_147_483_647;

/** A de-duplicating, delaying, rate-limited queue of string keys. */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter;
  /** Keys ready for a worker, in order. Each is also in `#dirty`. */
  readonly #queue: string[] = [];
  /** Keys that need processing: queued, or added again while being processed. */
  readonly #dirty = new Set<string>();
  /** Keys a worker holds between `get` and `done`. */
  readonly #processing = new Set<string>();
  /** Pending `get` calls, oldest first. */
  readonly #waiters = new Set<Waiter>();
  /** At most one pending delayed add per key: the soonest. */
  readonly #delayed = new Map<string, DelayedAdd>();
  #shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.#clock = options.clock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: options.clock });
  }

  /** How many keys wait for a worker (not counting keys being processed or delayed): the depth metric. */
  len(): number {
    return this.#queue.length;
  }

  /**
   * Queues `key` unless it is already queued. A key being processed is marked dirty instead, and
   * queued again by {@link WorkQueue.done}. Ignored after shutdown.
   */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#enqueue(key);
  }

  /**
   * Adds `key` after `delayMs` (at once when not positive; never when `Infinity`). When the key already
   * waits for a delayed add, the sooner of the two wins and the other is dropped. A delayed add does not
   * hold a key back from an immediate {@link WorkQueue.add}. Ignored after shutdown, which also cancels
   * every pending delay so no timer outlives the queue.
   */
  addAfter(key: string, delayMs: number): void {
    this.#addAfter(key, delayMs, false);
  }

  #addAfter(key: string, delayMs: number, retry: boolean): void {
    if (this.#shuttingDown || delayMs === Infinity) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending !== undefined && pending.readyAt <= readyAt) return;
    pending?.cancel.abort();
    const entry: DelayedAdd = { readyAt, cancel: new AbortController(), retry };
    this.#delayed.set(key, entry);
    this.#sleepUntil(readyAt, entry.cancel.signal).then(
      () => {
        if (this.#delayed.get(key) !== entry) return;
        this.#delayed.delete(key);
        this.add(key);
      },
      () => {
        // Cancelled: a sooner add for this key replaced it, or the queue shut down.
      },
    );
  }

  /** Adds `key` after the delay its rate limiter decides, counting one more retry. */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#addAfter(key, this.#rateLimiter.when(key), true);
  }

  /**
   * Queues now every key waiting for a rate-limited retry (not those delayed by `addAfter`), keeping
   * their retry counts, so a failure that lasts still backs off. For when whatever made them fail has
   * probably recovered: their backoff may have grown to many minutes. Returns how many were queued.
   */
  retryNow(): number {
    const retries = [...this.#delayed].filter(([, pending]) => pending.retry);
    for (const [key, pending] of retries) {
      pending.cancel.abort();
      this.#delayed.delete(key);
      this.add(key);
    }
    return retries.length;
  }

  /** Resets `key`'s retry history (call after a success, or when giving up on it). */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  /**
   * The next key, which the caller now holds until it calls {@link WorkQueue.done}. Waits until a key is
   * ready; resolves `undefined` when the queue shuts down or `signal` aborts first.
   */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#shuttingDown || signal?.aborted === true) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) return Promise.resolve(this.#startProcessing(key));
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        resolve(undefined);
      };
      const waiter: Waiter = (handed) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(handed);
      };
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Releases `key` after processing; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    if (!this.#shuttingDown && this.#dirty.has(key)) this.#enqueue(key);
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
  }

  /** Hands `key` to the oldest waiting `get`, or queues it when nobody waits. */
  #enqueue(key: string): void {
    const [waiter] = this.#waiters;
    if (waiter === undefined) {
      this.#queue.push(key);
      return;
    }
    this.#waiters.delete(waiter);
    waiter(this.#startProcessing(key));
  }

  #startProcessing(key: string): string {
    this.#dirty.delete(key);
    this.#processing.add(key);
    return key;
  }

  async #sleepUntil(readyAt: number, signal: AbortSignal): Promise<void> {
    for (let left = readyAt - this.#clock.now(); left > 0; left = readyAt - this.#clock.now()) {
      await this.#clock.sleep(Math.min(left, MAX_SLEEP_MS), signal);
    }
  }
}
