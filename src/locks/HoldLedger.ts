/**
 * What this client believes each of its owners holds, so that an acquire whose reply was lost can be
 * settled instead of silently re-entered.
 *
 * An acquire script runs in Redis even when the socket drops before its reply (`ConnectionLostError`).
 * Redisson leaves such a hold to expire; but every later acquire by the same owner re-enters it, so the
 * count never returns to 0 while that owner keeps working, and everyone else is starved. Here the owner's
 * key is marked doubtful instead: the truth is learnt in the background as soon as Redis answers again
 * (the owner's count in Redis against the count this ledger expected), a hold that landed is undone, and
 * every later operation of that owner on that lock waits for this to finish first.
 */
import { KeptMap } from '../kept.js';

interface Hold {
  count: number;
  /** `performance.now()` after which Redis has dropped the hold by itself; Infinity while renewed. */
  expiresAt: number;
}

interface Doubt {
  readonly check: () => Promise<void>;
  running: Promise<void> | null;
}

export class HoldLedger {
  // Kept: an uncontended lock's hold comes and goes on every pair (see KeptMap).
  readonly #holds = new KeptMap<string, Hold>();
  readonly #doubts = new Map<string, Doubt>();

  /** The ledger key of owner `field` on lock `rawName`. */
  static key(rawName: string, field: string): string {
    return `${rawName}\u0000${field}`;
  }

  /** The hold count this client expects Redis to have for `key` now. */
  expected(key: string): number {
    const hold = this.#holds.get(key);
    if (!hold) return 0;
    if (performance.now() < hold.expiresAt) return hold.count;
    this.#holds.delete(key);
    return 0;
  }

  /** One more hold of `key` was confirmed by Redis; it lasts until `expiresAt` unless renewed. */
  acquired(key: string, expiresAt: number): void {
    const count = this.expected(key) + 1;
    this.#holds.set(key, { count, expiresAt });
  }

  /**
   * An unlock of `key` was answered. `stillHeld`: the owner's count was decremented and it still holds (until
   * `expiresAt`); otherwise it holds nothing now — whether the lock was released, found not held, or stays
   * held by other owners (a read lock), this owner's count in Redis is 0.
   */
  unlocked(key: string, stillHeld: boolean, expiresAt: number): void {
    const count = this.expected(key);
    if (stillHeld) this.#holds.set(key, { count: Math.max(1, count - 1), expiresAt });
    else this.#holds.delete(key);
  }

  /** `rawName` got a new time to live: every hold of it that is not renewed now ends at `expiresAt`. */
  expireAll(rawName: string, expiresAt: number): void {
    const prefix = HoldLedger.key(rawName, '');
    for (const [key, hold] of this.#holds) {
      if (key.startsWith(prefix) && hold.expiresAt !== Infinity) hold.expiresAt = expiresAt;
    }
  }

  /** Every owner of `rawName` lost its holds (force unlock, or the watchdog found one gone). */
  forget(rawName: string, field?: string): void {
    if (field !== undefined) {
      this.#holds.delete(HoldLedger.key(rawName, field));
      return;
    }
    const prefix = HoldLedger.key(rawName, '');
    for (const key of this.#holds.keys()) if (key.startsWith(prefix)) this.#holds.delete(key);
  }

  /**
   * An acquire of `key` went unanswered. `check` compares Redis with {@link expected} and undoes a hold that
   * landed; it runs now in the background (its failure leaves the doubt for the next {@link settle}).
   */
  doubt(key: string, check: () => Promise<void>): Promise<void> {
    this.#doubts.set(key, { check, running: null });
    return this.settle(key) ?? Promise.resolve();
  }

  /**
   * Settles a doubt on `key` before the owner acts on it again; `undefined` when there is none (the hot
   * path stays synchronous). Rejects when Redis still cannot answer; the doubt then stays.
   */
  settle(key: string): Promise<void> | undefined {
    if (this.#doubts.size === 0) return undefined;
    const doubt = this.#doubts.get(key);
    if (!doubt) return undefined;
    doubt.running ??= doubt.check().then(
      () => {
        if (this.#doubts.get(key) === doubt) this.#doubts.delete(key);
      },
      (error: unknown) => {
        doubt.running = null;
        throw error;
      },
    );
    return doubt.running;
  }

  /** Whether `key`'s last acquire (or handed-off grant) is still unsettled. */
  isDoubtful(key: string): boolean {
    return this.#doubts.size > 0 && this.#doubts.has(key);
  }

  /** Number of owners whose last acquire is still unsettled. */
  get doubtful(): number {
    return this.#doubts.size;
  }
}
