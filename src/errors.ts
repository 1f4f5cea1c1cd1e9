/**
 * Every error this library throws. Raw Redis replies are mapped to these in one place (the lock
 * classes), so callers can branch on `instanceof` or on `error.name`.
 */

/** Base class of all redisson-ts errors. `name` is the concrete class name. */
export class RedissonError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Unlock by an owner that does not hold the lock; Redisson's `IllegalMonitorStateException`.
 * The message matches Redisson's so logs read the same on both sides.
 */
export class IllegalMonitorStateError extends RedissonError {
  readonly lockName: string;
  readonly clientId: string;
  readonly threadId: number;

  constructor(lockName: string, clientId: string, threadId: number, message?: string, options?: { cause?: unknown }) {
    super(
      message ??
        `attempt to unlock lock, not locked by current thread by node id: ${clientId} thread-id: ${threadId}` +
          ` (lock '${lockName}'; an owner is the threadId option, the runInThread flow, or the lock object's current hold:` +
          ' unlock with the one that locked — README, "Thread identity in Node")',
      options,
    );
    this.lockName = lockName;
    this.clientId = clientId;
    this.threadId = threadId;
  }
}

/**
 * The lock was held with the watchdog, but the watchdog found the owner field gone (the lease ran out,
 * for example while the event loop was blocked, or Redis lost the data). Thrown by `unlock()` of that
 * owner; a subclass of {@link IllegalMonitorStateError}, like Redisson's exception for the same case.
 */
export class LockLostError extends IllegalMonitorStateError {
  constructor(lockName: string, clientId: string, threadId: number) {
    super(
      lockName,
      clientId,
      threadId,
      `lock '${lockName}' was lost before unlock (lease expired or key removed): node id: ${clientId} thread-id: ${threadId}`,
    );
  }
}

/** A call made after `shutdown()`, or a wait that was still pending when `shutdown()` ran. */
export class RedissonShutdownError extends RedissonError {
  constructor(message = 'Redisson client is shut down', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A call that conflicts with the state of the client or of an object; Java's `IllegalStateException`. */
export class IllegalStateError extends RedissonError {}

/**
 * A PermitExpirableSemaphore permit that is not held — unknown, already released, or expired — was released
 * or asked about; Redisson throws `IllegalArgumentException` with the same message.
 */
export class PermitNotHeldError extends RedissonError {
  /** The ids the call named. */
  readonly permitIds: readonly string[];

  constructor(message: string, permitIds: readonly string[]) {
    super(message);
    this.permitIds = permitIds;
  }
}

/**
 * Redis could not be reached within `timeout`: the command was not sent (it did not run). Carries the
 * address and, as `cause`, the connection's last error (ECONNREFUSED, …).
 */
export class RedisConnectionError extends RedissonError {
  readonly address: string;

  constructor(address: string, timeoutMs: number, cause?: unknown) {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    super(`could not reach Redis at ${address} within ${timeoutMs} ms (timeout)${why}`, { cause });
    this.address = address;
  }
}

/** A subscription or command did not complete in time; Redisson's `RedisTimeoutException`. */
export class RedisTimeoutError extends RedissonError {}

/**
 * The connection closed after a command was written and before its reply arrived: Redis may or may not
 * have run it. Commands are not re-sent blindly, because an acquire (`HINCRBY`) must not count twice;
 * unlock is retried with the same request id, whose latch makes a second run harmless.
 */
export class ConnectionLostError extends RedissonError {
  constructor(message = 'connection to Redis closed before the reply arrived; whether the command ran is unknown', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** What one member lock of a MultiLock / RedLock answered in the last acquisition round. */
export interface NodeVote {
  /** Position of the member in the multilock. */
  readonly index: number;
  /** The member lock's name. */
  readonly lock: string;
  /**
   * `granted`: acquired; `refused`: held by another owner (until the member's wait ran out); `failed`: an
   * error or the per-node timeout (whether the node set the key is unknown); `not asked`: the round
   * ended before reaching it.
   */
  readonly vote: 'granted' | 'refused' | 'failed' | 'not asked';
  /** The error of a `failed` vote (`RedisTimeoutError` for the per-node timeout). */
  readonly error?: unknown;
}

/**
 * A MultiLock / RedLock could not reach the number of member locks it needs because too many of them
 * failed (down, unreachable, slower than the per-node timeout), so waiting longer would not help.
 * Carries each node's vote. Thrown by `lock()`; `tryLock()` answers `false` instead, as Redisson does.
 */
export class QuorumError extends RedissonError {
  /** Members that must be acquired: all for a MultiLock, a majority (`n/2 + 1`) for a RedLock. */
  readonly required: number;
  readonly votes: readonly NodeVote[];

  constructor(required: number, votes: readonly NodeVote[], options?: { cause?: unknown }) {
    const count = (v: NodeVote['vote']): number => votes.filter((x) => x.vote === v).length;
    super(
      `acquired ${count('granted')} of ${votes.length} locks, ${required} required: ${count('failed')} failed, ${count('refused')} refused, ${count('not asked')} not asked`,
      options,
    );
    this.required = required;
    this.votes = votes;
  }
}

/**
 * A Redisson configuration file or object (`Redisson.fromConfig`) that cannot be used as it stands:
 * fields that are not Redisson's, fields redisson-ts does not support, or bad values. Lists every problem
 * found, not just the first; thrown before any connection is made.
 */
export class RedissonConfigError extends RedissonError {
  /** One entry per problem: the field's path (`singleServerConfig.adress`) and what is wrong with it. */
  readonly problems: readonly { readonly path: string; readonly problem: string }[];

  constructor(source: string, problems: readonly { readonly path: string; readonly problem: string }[], options?: { cause?: unknown }) {
    super(`Redisson config ${source}: ${problems.map((p) => `\`${p.path}\` ${p.problem}`).join('; ')}`, options);
    this.problems = problems;
  }
}

/**
 * A write whose replicas did not confirm it: Redisson's `NoSyncedSlavesException` ("None of slaves were
 * synced"). Only with replicas (a Sentinel deployment) and `checkLockSyncedSlaves`; an acquisition it
 * concerned was undone before this was thrown, after `retryAttempts` tries.
 */
export class NoSyncedSlavesError extends RedissonError {
  /** Replicas the write waited for (`WAIT <expected> …`). */
  readonly expected: number;
  /** Replicas that confirmed it within `slavesSyncTimeout`. */
  readonly synced: number;

  constructor(expected: number, synced: number, timeoutMs: number) {
    super(`None of slaves were synced: ${synced} of ${expected} replicas confirmed the write within ${timeoutMs} ms (slavesSyncTimeout)`);
    this.expected = expected;
    this.synced = synced;
  }
}


/**
 * A RedLock or MultiLock was given one lock twice: two members on the same Redis key of the same server and
 * database. Two kinds of duplicate:
 * - one client's lock given twice (the same object, or two objects of one client for one key), which a RedLock
 *   refuses in `getRedLock`: the owner would re-enter it, and one server would cast two votes of the majority.
 *   A MultiLock accepts it, as Redisson does (it re-enters; every member is needed anyway).
 * - the same key reached through two clients (two URLs such as `localhost` and `127.0.0.1`, a proxy), which
 *   both refuse in their first `lock`/`tryLock`, before anything is sent to a member: each client writes its
 *   own owner field, so the second member could never be acquired (a MultiLock would wait forever, a RedLock
 *   would tolerate fewer failed servers than it counts). Found by asking each member client's server for its
 *   `run_id` (`INFO server`, once per connection).
 *
 * Redisson accepts both (COMPATIBILITY.md).
 */
export class DuplicateLockMemberError extends RedissonError {
  /** Positions of the two members that are one lock. */
  readonly indexes: readonly [number, number];
  /** The member lock's name. */
  readonly lockName: string;
  /** The server both reach (`run_id …, db N`), or `null` when one client made both members. */
  readonly server: string | null;

  constructor(kind: 'RedLock' | 'MultiLock', indexes: readonly [number, number], lockName: string, server: string | null) {
    const which = `${kind} members #${indexes[0]} and #${indexes[1]} are one lock '${lockName}'`;
    const red = kind === 'RedLock';
    super(
      server === null
        ? `${which} of one client: its owner would re-enter it, and one server would cast two votes of the majority. ` +
            'Pass each lock once, each from a client of its own, independent Redis server.'
        : `${which} on one Redis server (${server}) through two clients: each client writes its own owner field, so the ` +
            `second could never be acquired${red ? ' and the RedLock would tolerate fewer failed servers than it counts' : ''}. ` +
            `Pass each lock once${red ? ', each from a client of its own, independent Redis server' : ''}.`,
    );
    this.indexes = indexes;
    this.lockName = lockName;
    this.server = server;
  }
}
