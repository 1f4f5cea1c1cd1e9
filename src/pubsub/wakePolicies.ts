/**
 * Redisson's pub/sub message constants and what each primitive's messages do to the local waiters of a
 * channel (Redisson's `LockPubSub`, `SemaphorePubSub`, `CountDownLatchPubSub`). The registry in
 * `PublishSubscribe` is generic: a channel gets its policy from its first subscriber, and a second
 * subscriber asking for another policy on the same channel is refused.
 */

/** `LockPubSub.UNLOCK_MESSAGE`: a lock was released; wakes one waiter per process. */
export const UNLOCK_MESSAGE = 0;
/** `LockPubSub.READ_UNLOCK_MESSAGE`: a read or write hold ended; wakes every waiter per process. */
export const READ_UNLOCK_MESSAGE = 1;
/** `CountDownLatchPubSub.ZERO_COUNT_MESSAGE`: the count reached 0; opens every waiter. */
export const ZERO_COUNT_MESSAGE = 0;
/** `CountDownLatchPubSub.NEW_COUNT_MESSAGE`: a new count was set (or the latch deleted). */
export const NEW_COUNT_MESSAGE = 1;

/** The waiters of one channel, as a policy sees them. */
export interface ChannelWaiters {
  /** Wakes the longest waiter not already woken. */
  wakeOne(): void;
  /** Wakes every waiter. */
  wakeAll(): void;
  /** Wakes up to `n` waiters, longest first. */
  wakeN(n: number): void;
}

/** How a channel's messages wake its local waiters. Compared by identity: use the shared constants. */
export interface WakePolicy {
  readonly name: string;
  onMessage(message: string, waiters: ChannelWaiters): void;
}

/** Lock family: `0` wakes one waiter, `1` wakes all; anything else is ignored (as Java). */
export const lockWakePolicy: WakePolicy = Object.freeze({
  name: 'lock',
  onMessage(message: string, waiters: ChannelWaiters): void {
    if (message === '0') waiters.wakeOne();
    else if (message === '1') waiters.wakeAll();
  },
});

/**
 * Semaphores: the message is a permit count `v`; wakes `min(local waiters, v)` waiters. Java's
 * `SemaphorePubSub` fails on a negative `v`; here it wakes nobody.
 */
export const semaphoreWakePolicy: WakePolicy = Object.freeze({
  name: 'semaphore',
  onMessage(message: string, waiters: ChannelWaiters): void {
    const permits = Number(message);
    if (Number.isInteger(permits) && permits > 0) waiters.wakeN(permits);
  },
});

/**
 * CountDownLatch: `0` (count reached zero) wakes every waiter; `1` (new count) wakes nobody, so waiters
 * keep waiting on the re-closed gate.
 */
export const latchWakePolicy: WakePolicy = Object.freeze({
  name: 'latch',
  onMessage(message: string, waiters: ChannelWaiters): void {
    if (message === String(ZERO_COUNT_MESSAGE)) waiters.wakeAll();
  },
});
