/**
 * The tiny interface every implementation is driven through, so that each scenario is written once.
 * A handle is one lock owner (Redisson's "thread"): acquire waits as long as it takes, release gives up
 * the one hold it took.
 */

/** Implementations, in the order tables list them. */
export const IMPLEMENTATIONS = ['redisson-ts', 'redisson-ts@no-handoff', 'redisson-ts@ioredis6', 'redisson-ts@iovalkey', 'redisson-ts@node-redis', 'node-redisson', 'redis-semaphore', 'redlock', 'java-redisson', 'bare-protocol'] as const;
export type ImplName = (typeof IMPLEMENTATIONS)[number];

export interface OpenOptions {
  readonly url: string;
  /**
   * Lease (ms) that a background renewer keeps extending while a lock is held: Redisson's
   * `lockWatchdogTimeout`, redis-semaphore's `lockTimeout`, redlock's `using()` duration.
   * Undefined: the implementation's documented default.
   */
  readonly watchdogMs?: number | undefined;
}

/**
 * What a handle stands for. `lock` is every implementation's plain lock; the rest are Redisson's family,
 * measured where an implementation has it: `fair` (FairLock), `read` / `write` (ReadWriteLock halves),
 * `semaphore` (a semaphore of 1 permit: acquire / release one), `latch` (a CountDownLatch of 1: a handle's
 * acquire closes the latch when it is open and otherwise awaits it; release counts it down).
 */
export const KINDS = ['lock', 'fair', 'read', 'write', 'semaphore', 'latch'] as const;
export type Kind = (typeof KINDS)[number];

export interface LockHandle {
  acquire(): Promise<void>;
  release(): Promise<void>;
}

export interface LockClient {
  /**
   * A new owner of lock `name`. `owner` groups handles that may share one identity where an identity is
   * costly (Java: one JVM thread per owner); other adapters ignore it.
   */
  handle(name: string, owner?: string, kind?: Kind): LockHandle;
  /**
   * One no-op round trip through the transport in front of the locks, where there is one (Java: a JSON
   * `ping` over the peer's stdin/stdout), so reports can show what that hop adds to each call.
   */
  transportPing?(): Promise<void>;
  /** Closes every connection this client opened. */
  close(): Promise<void>;
}

export interface Implementation {
  readonly name: ImplName;
  /** Package and version as measured, e.g. `redlock@5.0.0-beta.2`. */
  version(): string;
  /** Settings used, in words, for the report. */
  readonly settings: string;
  /** The kinds `handle()` accepts besides `lock`; omitted: `lock` only. */
  readonly kinds?: readonly Kind[];
  /** The scenarios (as `--scenarios` names them) it is measured in; omitted: all. */
  readonly scenarios?: readonly string[];
  open(options: OpenOptions): Promise<LockClient>;
}
