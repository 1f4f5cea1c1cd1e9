/**
 * A `Map` and a `Set` whose hash table is never thrown away when their last entry is deleted.
 *
 * V8 shrinks a `Map`'s or `Set`'s table when a delete leaves it less than a quarter full, and an emptied table
 * of the smallest size counts: deleting the last entry allocates a new table (about 150 B), in a call into the
 * runtime, and the next insert may grow it again. The client's hot bookkeeping (commands in flight, the ledger
 * of holds, the watchdog's registrations, tracked waiters) goes from one entry to none on every lock() and
 * unlock() of an uncontended lock: that was about 1 KB and nine runtime calls per pair (issue 29). These keep one
 * hidden entry of their own, so a table of the smallest size is never emptied; past that, V8 grows and shrinks
 * it as usual. Only the operations the client uses are offered.
 */

/** The hidden entry (a key nobody else has). */
const KEEP: unique symbol = Symbol('kept');

export class KeptMap<K, V> {
  readonly #map = new Map<K | typeof KEEP, V | undefined>([[KEEP, undefined]]);

  get size(): number {
    return this.#map.size - 1;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): this {
    this.#map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
    this.#map.set(KEEP, undefined);
  }

  /** Entries in insertion order, as a `Map`'s. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, value] of this.#map) if (key !== KEEP) yield [key, value as V];
  }

  *keys(): IterableIterator<K> {
    for (const key of this.#map.keys()) if (key !== KEEP) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [key, value] of this.#map) if (key !== KEEP) yield value as V;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}

export class KeptSet<T> {
  readonly #set = new Set<T | typeof KEEP>([KEEP]);

  get size(): number {
    return this.#set.size - 1;
  }

  has(value: T): boolean {
    return this.#set.has(value);
  }

  add(value: T): this {
    this.#set.add(value);
    return this;
  }

  delete(value: T): boolean {
    return this.#set.delete(value);
  }

  clear(): void {
    this.#set.clear();
    this.#set.add(KEEP);
  }

  *values(): IterableIterator<T> {
    for (const value of this.#set) if (value !== KEEP) yield value;
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }
}
