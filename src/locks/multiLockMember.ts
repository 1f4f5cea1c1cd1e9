/**
 * What a MultiLock or RedLock needs of its member locks, apart from the round that acquires them
 * (`multiLockRound.ts`) and the watch that waits for their releases (`multiLockWatch.ts`), which both use it.
 */
import type { TimeUnit } from '../TimeUnit.js';
import type { PublishSubscribe } from '../pubsub/PublishSubscribe.js';
import type { WakePolicy } from '../pubsub/wakePolicies.js';
import type { OwnerOptions, WaitOptions } from '../args.js';

/**
 * What a MultiLock needs of a member lock: any lock of the family (today `RLock`), from any client.
 * Every call gets the multilock's owner as an explicit `threadId`.
 */
export interface MultiLockMember {
  /** The member's name. */
  getName(): string;
  /** One member acquisition, for the multilock's owner (`options.threadId`). */
  tryLock(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean>;
  /** Releases the member for the multilock's owner. */
  unlock(options?: OwnerOptions): Promise<void>;
  /** Whether owner `threadId` holds the member. */
  isHeldByThread(threadId: number): Promise<boolean>;
  /**
   * Redisson's `expireAsync` (PEXPIRE of the lock key): re-sets a member's lease after the acquisition.
   * Optional: when a member lacks it, the members are acquired with the lease itself (see {@link acquireMembers}).
   */
  expire?(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  /**
   * @internal Calls `onLost` when the member's watchdog finds owner `threadId`'s hold gone; returns the function
   * that stops watching. Absent: a hold of the multilock cannot learn of this member's loss.
   */
  watchHold?(threadId: number, onLost: () => void): () => void;
  /**
   * @internal Where a release of the member is published, for a MultiLock waiting after it refused
   * `threadId`; absent or `null`: none (the refusal's TTL bounds the wait).
   */
  releaseChannel?(threadId: number): MemberChannel | null;
}

/** @internal A member's release channel on the member's own client. */
export interface MemberChannel {
  readonly pubsub: PublishSubscribe;
  readonly channel: string;
  readonly policy: WakePolicy;
  /** The member client's `subscriptionTimeout`. */
  readonly subscriptionTimeout: number;
}
