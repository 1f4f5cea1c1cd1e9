/**
 * Every error this library throws. Raw Redis replies are mapped to these in one place (the lock
 * classes), so callers can branch on `error.code` (the Node convention, `ERR_REDISSON_…`, stable across
 * releases and listed in docs/errors.md), on `instanceof`, or on `error.name`.
 */

/**
 * Every `code` an error of this library carries; docs/errors.md (in the repository and in the installed package,
 * `node_modules/redisson-ts/docs/errors.md`) says when each is thrown and what the error carries.
 */
export type RedissonErrorCode =
  | 'ERR_REDISSON_ERROR'
  | 'ERR_REDISSON_ILLEGAL_MONITOR_STATE'
  | 'ERR_REDISSON_LOCK_LOST'
  | 'ERR_REDISSON_SHUTDOWN'
  | 'ERR_REDISSON_ILLEGAL_STATE'
  | 'ERR_REDISSON_PERMIT_NOT_HELD'
  | 'ERR_REDISSON_CONNECTION'
  | 'ERR_REDISSON_TIMEOUT'
  | 'ERR_REDISSON_CONNECTION_LOST'
  | 'ERR_REDISSON_QUORUM'
  | 'ERR_REDISSON_CONFIG'
  | 'ERR_REDISSON_NO_SYNCED_SLAVES'
  | 'ERR_REDISSON_DUPLICATE_LOCK_MEMBER'
  | 'ERR_REDISSON_CROSS_SLOT_NAME'
  | 'ERR_REDISSON_INVALID_ARGUMENT'
  | 'ERR_REDISSON_OUT_OF_RANGE'
  | 'ERR_REDISSON_DRIVER_MISSING'
  | 'ERR_REDISSON_KEYSPACE_NOTIFICATIONS_DISABLED';

/**
 * Gives an error class its `name` and `code` on its prototype, spelled out rather than taken from the class's
 * own name, which a minifier renames. A subclass declares its own and so overrides its parent's.
 */
function declareError(cls: abstract new (...args: never[]) => Error, name: string, code: RedissonErrorCode): void {
  for (const [key, value] of [['name', name], ['code', code]] as const) {
    Object.defineProperty(cls.prototype, key, { value, writable: true, configurable: true, enumerable: false });
  }
}

/** Copies the class's `code` onto the instance, so that logs and `util.inspect` show it, as Node's errors do. */
function ownCode(error: Error & { readonly code: RedissonErrorCode }): void {
  Object.defineProperty(error, 'code', { value: error.code, writable: true, configurable: true, enumerable: true });
}

/**
 * Whether `error` was thrown by this library: any error whose `code` starts with `ERR_REDISSON_`. Unlike
 * `instanceof RedissonError`, also true of {@link InvalidArgumentError} and {@link ArgumentRangeError} (which
 * extend `TypeError` and `RangeError`), and of errors from another copy of the library in the same process.
 */
export function isRedissonError(error: unknown): error is Error & { readonly code: RedissonErrorCode } {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_REDISSON_');
}

/**
 * Base class of the redisson-ts errors (all but the two argument errors, which keep the `TypeError` and
 * `RangeError` of bad input). `name` is the concrete class's name; `code` its stable `ERR_REDISSON_…` code.
 */
export class RedissonError extends Error {
  static {
    declareError(this, 'RedissonError', 'ERR_REDISSON_ERROR');
  }

  /** The stable code of the error's class (`ERR_REDISSON_…`, see docs/errors.md). */
  declare readonly code: RedissonErrorCode;

  /**
   * Creates the error; its `name` and `code` are its class's.
   * @param message what happened
   * @param options `cause`: the error that led to this one
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // A subclass declared outside this file (without declareError) is still named after its class.
    if (!Object.hasOwn(new.target.prototype, 'name')) this.name = new.target.name;
    ownCode(this);
  }
}

/**
 * Bad input: a value of the wrong type, an unknown option, a call with the wrong arguments — thrown (or the
 * call rejects) before anything is sent. A `TypeError`, as such input always was; not a {@link RedissonError}.
 */
export class InvalidArgumentError extends TypeError {
  static {
    declareError(this, 'InvalidArgumentError', 'ERR_REDISSON_INVALID_ARGUMENT');
  }

  /** `ERR_REDISSON_INVALID_ARGUMENT`. */
  declare readonly code: RedissonErrorCode;

  /**
   * Creates the error; its `name` and `code` are its class's.
   * @param message what was wrong with the input
   * @param options `cause`: the error that led to this one
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    ownCode(this);
  }
}

/**
 * Input of the right type outside what is accepted: a time that is not a finite integer or is too large, an
 * empty or malformed name, a count out of bounds — before anything is sent. A `RangeError`, as such input
 * always was; not a {@link RedissonError}.
 */
export class ArgumentRangeError extends RangeError {
  static {
    declareError(this, 'ArgumentRangeError', 'ERR_REDISSON_OUT_OF_RANGE');
  }

  /** `ERR_REDISSON_OUT_OF_RANGE`. */
  declare readonly code: RedissonErrorCode;

  /**
   * Creates the error; its `name` and `code` are its class's.
   * @param message what was wrong with the input
   * @param options `cause`: the error that led to this one
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    ownCode(this);
  }
}

/**
 * Unlock by an owner that does not hold the lock; Redisson's `IllegalMonitorStateException`.
 * The message matches Redisson's so logs read the same on both sides.
 */
export class IllegalMonitorStateError extends RedissonError {
  static {
    declareError(this, 'IllegalMonitorStateError', 'ERR_REDISSON_ILLEGAL_MONITOR_STATE');
  }

  /** The lock's name (as given to `get…`). */
  readonly lockName: string;
  /** The client id (UUID) of the owner that made the call. */
  readonly clientId: string;
  /** The thread id of the owner that made the call. */
  readonly threadId: number;

  /**
   * Creates the error for the owner `clientId:threadId` that called `unlock()` on `lockName`.
   * @param message replaces Redisson's message (which names the owner and the ownership rule) when given
   */
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
  static {
    declareError(this, 'LockLostError', 'ERR_REDISSON_LOCK_LOST');
  }

  /** The lost lock's name and the owner that held it. */
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
  static {
    declareError(this, 'RedissonShutdownError', 'ERR_REDISSON_SHUTDOWN');
  }

  /**
   * Creates the error.
   * @param message defaults to `Redisson client is shut down`
   */
  constructor(message = 'Redisson client is shut down', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * `Redisson.create` (or `fromConfig`) with no Redis client library installed beside redisson-ts: the message
 * names the install command. Thrown before anything connects.
 */
export class RedisDriverMissingError extends RedissonError {
  static {
    declareError(this, 'RedisDriverMissingError', 'ERR_REDISSON_DRIVER_MISSING');
  }
}

/** A call that conflicts with the state of the client or of an object; Java's `IllegalStateException`. */
export class IllegalStateError extends RedissonError {
  static {
    declareError(this, 'IllegalStateError', 'ERR_REDISSON_ILLEGAL_STATE');
  }
}

/**
 * A PermitExpirableSemaphore permit that is not held — unknown, already released, or expired — was released
 * or asked about; Redisson throws `IllegalArgumentException` with the same message.
 */
export class PermitNotHeldError extends RedissonError {
  static {
    declareError(this, 'PermitNotHeldError', 'ERR_REDISSON_PERMIT_NOT_HELD');
  }

  /** The ids the call named. */
  readonly permitIds: readonly string[];

  /**
   * Creates the error, with Redisson's message.
   * @param permitIds the permit ids the call named
   */
  constructor(message: string, permitIds: readonly string[]) {
    super(message);
    this.permitIds = permitIds;
  }
}

/** How long a command waited for a connection to Redis, and what ended the wait. */
export interface ConnectionWait {
  /** Milliseconds from the call to the error. */
  readonly elapsedMs: number;
  /** What ended the wait: `timeout 3000 ms`, `ioredis maxRetriesPerRequest 1: 2 reconnect attempts, …`, … */
  readonly limit: string;
}

/**
 * Redis could not be reached: the connection did not get ready within `timeout`, or ioredis gave up first
 * (`maxRetriesPerRequest` reconnect attempts, a `retryStrategy` that stopped). The command was not sent (it
 * did not run). Carries the address, how long the call waited and the limit that ended it, and, as `cause`,
 * the connection's last error (ECONNREFUSED, …).
 */
export class RedisConnectionError extends RedissonError {
  static {
    declareError(this, 'RedisConnectionError', 'ERR_REDISSON_CONNECTION');
  }

  /** The server the client could not reach, `host:port`. */
  readonly address: string;
  /** Milliseconds the call waited for the connection. */
  readonly elapsedMs: number;
  /** What ended the wait (see {@link ConnectionWait.limit}). */
  readonly limit: string;

  /**
   * Creates the error; the message names the address, the time waited, the limit and the last error.
   * @param wait how long the call waited and why it stopped; a number `n` means `timeout n ms`, waited in full
   */
  constructor(address: string, wait: number | ConnectionWait, cause?: unknown) {
    const w = typeof wait === 'number' ? { elapsedMs: wait, limit: `timeout ${wait} ms` } : wait;
    const why = cause instanceof Error ? `; last error: ${cause.message}` : '';
    super(`could not reach Redis at ${address}: gave up after ${w.elapsedMs} ms (${w.limit}); the command was not sent${why}`, { cause });
    this.address = address;
    this.elapsedMs = w.elapsedMs;
    this.limit = w.limit;
  }
}

/** A subscription or command did not complete in time; Redisson's `RedisTimeoutException`. */
export class RedisTimeoutError extends RedissonError {
  static {
    declareError(this, 'RedisTimeoutError', 'ERR_REDISSON_TIMEOUT');
  }
}

/**
 * The connection closed after a command was written and before its reply arrived: Redis may or may not
 * have run it. Commands are not re-sent blindly, because an acquire (`HINCRBY`) must not count twice;
 * unlock is retried with the same request id, whose latch makes a second run harmless.
 */
export class ConnectionLostError extends RedissonError {
  static {
    declareError(this, 'ConnectionLostError', 'ERR_REDISSON_CONNECTION_LOST');
  }

  /**
   * Creates the error.
   * @param message defaults to saying that whether the command ran is unknown
   */
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
  static {
    declareError(this, 'QuorumError', 'ERR_REDISSON_QUORUM');
  }

  /** Members that must be acquired: all for a MultiLock, a majority (`n/2 + 1`) for a RedLock. */
  readonly required: number;
  /** Each member's answer in the last round, in member order. */
  readonly votes: readonly NodeVote[];

  /**
   * Creates the error; the message counts the votes of each kind.
   * @param required members that must be acquired
   * @param votes each member's answer
   */
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
  static {
    declareError(this, 'RedissonConfigError', 'ERR_REDISSON_CONFIG');
  }

  /** One entry per problem: the field's path (`singleServerConfig.adress`) and what is wrong with it. */
  readonly problems: readonly {
    /** The field's path, e.g. `singleServerConfig.adress`. */
    readonly path: string;
    /** What is wrong with it. */
    readonly problem: string;
  }[];

  /**
   * Creates the error; the message lists every problem.
   * @param source what the configuration came from (its file, or the object given), as the message names it
   * @param problems every problem found
   */
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
  static {
    declareError(this, 'NoSyncedSlavesError', 'ERR_REDISSON_NO_SYNCED_SLAVES');
  }

  /** Replicas the write waited for (`WAIT <expected> …`). */
  readonly expected: number;
  /** Replicas that confirmed it within `slavesSyncTimeout`. */
  readonly synced: number;

  /**
   * Creates the error, with Redisson's message followed by the counts.
   * @param timeoutMs the `slavesSyncTimeout` the write waited
   */
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
  static {
    declareError(this, 'DuplicateLockMemberError', 'ERR_REDISSON_DUPLICATE_LOCK_MEMBER');
  }

  /** Positions of the two members that are one lock. */
  readonly indexes: readonly [number, number];
  /** The member lock's name. */
  readonly lockName: string;
  /** The server both reach (`run_id …, db N`), or `null` when one client made both members. */
  readonly server: string | null;

  /**
   * Creates the error; the message says why the duplicate cannot work and what to pass instead.
   * @param kind which multilock was given the duplicate; the other arguments are the properties of the same names
   */
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

/** One key or channel of a {@link CrossSlotNameError}: where Redis Cluster would put it. */
export interface PlacedName {
  /** A Redis key, or a pub/sub channel. */
  readonly type: 'key' | 'channel';
  /** What it is: `the lock hash`, `the latch channel`, `unlock latches`, … */
  readonly role: string;
  /** The name as sent (ioredis `keyPrefix` included); for names completed at run time, their fixed head. */
  readonly name: string;
  /** What completes {@link name} at run time (`<request id>`), when only its head is fixed. */
  readonly rest?: string;
  /** The hash tag Redis hashes it by; null when it hashes the whole name. */
  readonly tag: string | null;
  /** Its slot; null when the text completing it at run time decides (no fixed slot). */
  readonly slot: number | null;
}

/**
 * Redis Cluster only: the keys and channels a primitive would use for this name do not all hash to one slot,
 * so its scripts would fail with `CROSSSLOT` (or a channel would live on another master). Thrown by the
 * client's `get…(name)` before anything is sent; a single server or Sentinel has no slots and takes the name.
 * Redisson builds its names with `{name}` unless the name already has a `{`, so a name whose own braces do not
 * form one complete, non-empty hash tag (`a{b`, `x{}y`, `a}b`), or a CountDownLatch name with any brace (its
 * channel always wraps the whole name in braces), splits the primitive. Carries where each name would go and,
 * when one exists, a name that fits. Java Redisson sends such names and fails with `CROSSSLOT` (COMPATIBILITY.md).
 */
export class CrossSlotNameError extends RedissonError {
  static {
    declareError(this, 'CrossSlotNameError', 'ERR_REDISSON_CROSS_SLOT_NAME');
  }

  /** The name given to `get…`. */
  readonly objectName: string;
  /** The primitive: `RLock`, `FairLock`, `CountDownLatch`, … */
  readonly primitive: string;
  /** Every key and channel the primitive uses for the name, with its slot. */
  readonly names: readonly PlacedName[];
  /** A name that fits (all keys and channels in one slot), or null when no simple rewrite does. */
  readonly suggestion: string | null;

  /**
   * Creates the error; the message gives each name's slot and the fix.
   * @param method the `get…` method called
   * @param keyPrefix the ioredis `keyPrefix` (`''` for none)
   */
  constructor(method: string, objectName: string, primitive: string, names: readonly PlacedName[], suggestion: string | null, keyPrefix: string) {
    const where = (n: PlacedName): string => {
      const shown = `${n.type} \`${n.name}${n.rest ?? ''}\` (${n.role})`;
      if (n.slot === null) return `${shown} has no fixed slot: ${wholeKeyReason(n.name)}, so Redis hashes each whole name, ${n.rest ?? ''} included`;
      return `${shown} is in slot ${n.slot} (${n.tag === null ? `${wholeKeyReason(n.name)}: the whole name is hashed` : `hash tag \`${n.tag}\``})`;
    };
    const prefixed = keyPrefix === '' ? '' : ` (ioredis keyPrefix '${keyPrefix}' included)`;
    const fix =
      suggestion !== null
        ? `Use a name whose keys and channels share one slot, such as '${suggestion}'.`
        : keyPrefix !== ''
          ? `No rewrite of this name fits under keyPrefix '${keyPrefix}', which sits outside the braces Redisson adds; prefix names with \`nameMapper\` instead (as Java Redisson clients do).`
          : 'Use a name with one complete, non-empty hash tag, or none.';
    super(
      `${method}('${objectName}'): in a Redis Cluster every key and channel a ${primitive} uses must share one hash slot, ` +
        `and for this name they would not${prefixed}: ${names.map(where).join('; ')}. Its scripts would fail with CROSSSLOT. ${fix}`,
    );
    this.objectName = objectName;
    this.primitive = primitive;
    this.names = names;
    this.suggestion = suggestion;
  }
}

/** Why Redis hashes all of `name` (or all of every name it heads): it has no usable hash tag. */
function wholeKeyReason(name: string): string {
  const open = name.indexOf('{');
  if (open < 0) return 'it has no hash tag';
  if (name[open + 1] === '}') return 'its first hash tag `{}` is empty';
  if (name.indexOf('}', open + 1) < 0) return `its \`{\` is never closed`;
  return 'it has no usable hash tag';
}

/**
 * `addListener()` of an object (an `ExpiredObjectListener` or `DeletedObjectListener`) on a server whose
 * `notify-keyspace-events` setting lacks what the listener needs, so it would never be called: `E` (keyevent
 * notifications) and `x` (expired) or `g` (generic commands, for `del`), or `A` for all classes. Checked with
 * `CONFIG GET notify-keyspace-events` before anything is subscribed (in a cluster, on the master of the object's slot); where CONFIG
 * is not permitted (an ACL, a managed service that renames it) the check is skipped, as Redisson never makes it.
 * Java Redisson does not check: its listener is silently never called.
 */
export class KeyspaceNotificationsDisabledError extends RedissonError {
  static {
    declareError(this, 'KeyspaceNotificationsDisabledError', 'ERR_REDISSON_KEYSPACE_NOTIFICATIONS_DISABLED');
  }

  /** The flags the listener needs, as `notify-keyspace-events` spells them (`Ex`, `Eg`). */
  readonly required: string;
  /** The server's setting as `CONFIG GET` returned it (`''`: notifications off). */
  readonly current: string;
  /** The server that answered (`host:port`, or the cluster master), when known. */
  readonly server: string;

  /**
   * Creates the error; the message names the event, the server's setting and the command that enables it.
   * @param event the keyspace event the listener waits for (`expired`, `del`)
   */
  constructor(objectName: string, event: string, required: string, current: string, server: string) {
    const where = server === '' ? 'the server' : `the server ${server}`;
    const wanted = mergeFlags(current, required);
    super(
      `addListener('${objectName}'): a listener for '${event}' events needs keyspace notifications with the flags '${required}' ` +
        `(notify-keyspace-events), and ${where} has '${current}'${current === '' ? ' (off)' : ''}. ` +
        `Enable them on every master: CONFIG SET notify-keyspace-events ${wanted} (or notify-keyspace-events "${wanted}" in redis.conf; on a managed service, its parameter group).`,
    );
    this.required = required;
    this.current = current;
    this.server = server;
  }
}

/** `current` with the letters of `required` it lacks. */
function mergeFlags(current: string, required: string): string {
  let merged = current;
  for (const flag of required) if (!merged.includes(flag)) merged += flag;
  return merged;
}
