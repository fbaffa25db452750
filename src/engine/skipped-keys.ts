/**
 * The keys whose sync failed fast because a circuit breaker was open, kept per breaker so that every
 * one of them is queued again when the breaker lets calls through (docs/hook-protocol.md, "Circuit
 * breaker"). Bounded: past `max` keys in all, a breaker's set stops growing and is marked overflowed,
 * and taking it then says "queue every key of the controller" — none is dropped either way.
 */

/** What was skipped for one breaker. */
export interface TakenKeys<K> {
  keys: K[];
  /** The set overflowed: queue every key the controller has, not just `keys`. */
  all: boolean;
}

/** The skipped keys of one controller, by breaker. */
export interface SkippedKeys<K> {
  /** Remembers `key` as skipped by breaker `breaker`; `false` when it was already held. */
  add(breaker: string, key: K): boolean;
  /** Hands over, and forgets, what `breaker` skipped. */
  take(breaker: string): TakenKeys<K>;
  /** What `breaker` skipped, kept. */
  peek(breaker: string): TakenKeys<K>;
  /** Keys held now, over all breakers. */
  size(): number;
}

/** A store of at most `max` keys; `id` names a key (keys equal by id are one). */
export function createSkippedKeys<K>(max: number, id: (key: K) => string): SkippedKeys<K> {
  const sets = new Map<string, Map<string, K>>();
  const overflowed = new Set<string>();
  let size = 0;
  return {
    add(breaker, key) {
      const set = sets.get(breaker) ?? new Map<string, K>();
      const name = id(key);
      if (set.has(name)) return false;
      // Past the bound a key cannot be told from one seen before: count it as new.
      if (overflowed.has(breaker)) return true;
      if (size >= max) {
        overflowed.add(breaker);
        return true;
      }
      set.set(name, key);
      sets.set(breaker, set);
      size++;
      return true;
    },
    take(breaker) {
      const set = sets.get(breaker);
      sets.delete(breaker);
      size -= set?.size ?? 0;
      const all = overflowed.delete(breaker);
      return { keys: [...(set?.values() ?? [])], all };
    },
    peek: (breaker) => ({ keys: [...(sets.get(breaker)?.values() ?? [])], all: overflowed.has(breaker) }),
    size: () => size,
  };
}
