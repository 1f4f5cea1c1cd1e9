/**
 * What a primitive needs from its client. Internal: primitives are created by {@link Redisson} and talk
 * to Redis only through this.
 */
import type { CommandExecutor } from './connection/CommandExecutor.js';
import type { ResolvedOptions } from './config.js';
import type { HoldLedger } from './locks/HoldLedger.js';
import type { PublishSubscribe } from './pubsub/PublishSubscribe.js';
import type { LockRenewalScheduler, LostLock } from './renewal/LockRenewalScheduler.js';
import type { TrackedWaiter } from './wait/AbortScope.js';

export interface ClientContext {
  /** Random lowercase hyphenated UUID of this client (Redisson's `ServiceManager.id`). */
  readonly id: string;
  readonly options: ResolvedOptions;
  /** Sends every command; never replays one whose reply was lost. */
  readonly executor: CommandExecutor;
  readonly pubsub: PublishSubscribe;
  readonly renewal: LockRenewalScheduler;
  /** Holds this client believes its owners have; settles acquires whose reply was lost. */
  readonly holds: HoldLedger;
  /**
   * A Redis Cluster or Sentinel client: a waiter's retry that fails at the connection level (a master failing over) is
   * tried again after at most a second instead of failing the wait (see `acquire`).
   */
  readonly clustered: boolean;
  /** Throws `RedissonShutdownError` after shutdown. */
  ensureOpen(): void;
  /** The thread id of the current `runInThread` flow, if any. */
  currentThreadId(): number | undefined;
  /** Warns once per client (unless `shortLeaseWarning: false`) when `leaseMs` is a lease below one second. */
  noteLease(name: string, leaseMs: number): void;
  /** A fresh thread id, unique within this client. */
  allocateThreadId(): number;
  /**
   * Registers a pending wait so that `shutdown()` can reject it: its `abortWait` is called with a
   * `RedissonShutdownError`. {@link untrackWaiter} unregisters it.
   */
  trackWaiter(waiter: TrackedWaiter): void;
  /** Unregisters a wait registered by {@link trackWaiter} (nothing when it is not registered). */
  untrackWaiter(waiter: TrackedWaiter): void;
  /** Background work (undoing a late acquisition) that `shutdown()` lets finish before closing. */
  keepUntilClosed(work: Promise<unknown>): void;
  /** Calls `onLost` when the watchdog finds `field` of `rawName` lost; returns the function that stops watching. */
  watchLoss(rawName: string, field: string, onLost: () => void): () => void;
  /** Reports a lock found lost (emits `lockLost`). */
  reportLost(lost: LostLock): void;
}
