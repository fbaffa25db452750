/**
 * A map bounded to its most recently used entries, as client-go bounds the caches of its event
 * correlator and spam filter: memory that grows with every object ever seen must not grow forever.
 */

/** A map that keeps its `size` most recently used entries. */
export class LruMap<V> {
  readonly #entries = new Map<string, V>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: re-inserting moves the entry to the most recent end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#size) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
