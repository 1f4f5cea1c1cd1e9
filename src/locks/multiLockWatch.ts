/**
 * What a MultiLock / RedLock waiting between two rounds listens to: the release channel of every member
 * that refused it, each on that member's own client (Redisson's "subscribe, retry, then wait at most the
 * TTL", over several locks). A release of any of them starts the next round at once; without one, the
 * round waits out the shortest TTL the refusals returned. Redisson instead waits inside each member's
 * slice of the wait, so a release of a member it is not waiting on goes unnoticed until that slice ends.
 */
import type { Subscription } from '../pubsub/PublishSubscribe.js';
import type { MemberChannel, MultiLockMember } from './multiLockMember.js';
import { MAX_TIMER_MS } from '../config.js';
import { IllegalStateError } from '../errors.js';

/** Subscriptions of one acquisition, by member index. Call {@link close} exactly once, whatever happens. */
export class MultiLockWatch {
  readonly #members: readonly MultiLockMember[];
  readonly #threadId: number;
  readonly #signal: AbortSignal;
  readonly #subs = new Map<number, Subscription>();
  /** The subscription whose message started the round in progress, until that round is judged. */
  #woke: Subscription | null = null;
  #closed = false;

  constructor(members: readonly MultiLockMember[], threadId: number, signal: AbortSignal) {
    this.#members = members;
    this.#threadId = threadId;
    this.#signal = signal;
  }

  /** The release channel of member `index`, or `null` when none tells of its release. */
  channel(index: number): MemberChannel | null {
    return this.#members[index]?.releaseChannel?.(this.#threadId) ?? null;
  }

  /** Whether a release of member `index` wakes the waiter. */
  watches(index: number): boolean {
    return this.#subs.has(index);
  }

  /**
   * Subscribes to the release channel of each of `indexes` not watched yet, in parallel, each within
   * `timeoutMs` (a member whose subscription is not confirmed in time is left to its TTL).
   * @returns whether any channel was added: a release published between that member's refusal and the
   *   confirmation was missed, so the caller retries at once rather than waiting.
   */
  async watch(indexes: Iterable<number>, timeoutMs: number): Promise<boolean> {
    const fresh = [...indexes].filter((i) => !this.#subs.has(i));
    const added = await Promise.all(
      fresh.map(async (i) => {
        const c = this.channel(i);
        if (!c) return false;
        try {
          const sub = await c.pubsub.subscribe(c.channel, c.policy, Math.max(1, Math.min(timeoutMs, c.subscriptionTimeout)), this.#signal);
          // Closed meanwhile (aborted, or the acquisition ended): give it back at once.
          if (this.#closed) sub.release();
          else this.#subs.set(i, sub);
          return !this.#closed;
        } catch {
          return false;
        }
      }),
    );
    this.#signal.throwIfAborted();
    return added.includes(true);
  }

  /**
   * Resolves true when a release of a watched member arrives (or arrived during the last round), false after
   * `ms`. Rejects with the signal's reason on abort. Leaves no timer or listener behind.
   */
  async wait(ms: number): Promise<boolean> {
    this.#signal.throwIfAborted();
    // The last wake-up did not get this waiter the lock: hand it to a local waiter queued behind it.
    this.#woke?.passOn();
    this.#woke = null;
    const stop = new AbortController();
    const forward = (): void => stop.abort(this.#signal.reason);
    this.#signal.addEventListener('abort', forward, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const waits = [...this.#subs.values()].map((sub) => sub.wait(-1, stop.signal).then(() => sub));
    const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, Math.min(ms, MAX_TIMER_MS)))));
    const aborted = new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(stop.signal.reason as Error), { once: true }));
    // The losers of the race reject when `stop` aborts below; nobody needs those rejections.
    for (const p of [...waits, aborted]) p.catch(() => undefined);
    try {
      this.#woke = await Promise.race([...waits, timedOut, aborted]);
      return this.#woke !== null;
    } finally {
      clearTimeout(timer);
      this.#signal.removeEventListener('abort', forward);
      stop.abort(new IllegalStateError('multilock wait over'));
    }
  }

  /**
   * Leaves every channel (none lingers). A wake-up this waiter took without getting the lock is handed to
   * the next local waiter of that channel.
   */
  close(acquired: boolean): void {
    this.#closed = true;
    for (const sub of this.#subs.values()) sub.release(!acquired && sub === this.#woke);
    this.#subs.clear();
    this.#woke = null;
  }
}
