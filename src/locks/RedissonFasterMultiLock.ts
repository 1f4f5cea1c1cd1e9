/**
 * Redisson's `RedissonFasterMultiLock` (`getMultiLock(group, values)`, Redisson 3.38.0+), wire-identical for
 * values encoded by `StringCodec` or `LongCodec`: one hash per group instead of one key per lock, so a lock
 * over thousands of values costs one key and one script. In the group hash `G`, each value `v` is a field
 * named by the Base64 HighwayHash-128 of the value's encoded bytes (Redisson's `Hash.hash128toBase64`):
 * `v` → the holding owner `<clientUUID>:<threadId>`, `v:<owner>:expire_time` → that owner's deadline (absolute
 * ms), `v:<owner>:lock_count` → its hold count. Releases publish `0` on `redisson_lock__channel:{G}`, as RLock.
 */
import type { ClientContext } from '../ClientContext.js';
import { describeValue, requireOptionKeys, requireThreadId } from '../config.js';
import { lockChannelName } from '../keys.js';
import { UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import type { RenewalEntry, RenewalKind, ScriptRunner } from '../renewal/LockRenewalScheduler.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { BaseLock, nilAcquired, type AcquireRequest } from './BaseLock.js';
import { hash128toBase64 } from './highwayHash.js';
import { ArgumentRangeError, InvalidArgumentError } from '../errors.js';

/**
 * The Redisson codecs whose encoding of a value redisson-ts reproduces (both write the value's string form
 * as UTF-8). Redisson's default codec (Kryo5Codec) and the other JVM serializers cannot be matched.
 */
export type FasterMultiLockCodec = 'StringCodec' | 'LongCodec';

/** A value of a FasterMultiLock: strings with `StringCodec`; integers (number or bigint) with either codec. */
export type FasterMultiLockValue = string | number | bigint;

/** Options of `getMultiLock(group, values, options)`. */
export interface FasterMultiLockOptions {
  /**
   * The codec the Java clients that share these locks are configured with (`config.setCodec(...)`): field
   * names are hashes of the encoded values, so both sides must encode alike.
   * @default 'StringCodec'
   */
  readonly codec?: FasterMultiLockCodec;
}

const CODECS: readonly string[] = ['StringCodec', 'LongCodec'];
let serial = 0;

/** The bytes Redisson's StringCodec / LongCodec write for `value`: its string form, UTF-8. */
function encode(value: FasterMultiLockValue, codec: FasterMultiLockCodec, index: number): Uint8Array {
  const integer = (typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint';
  if (codec === 'LongCodec' && !integer) throw new InvalidArgumentError(`Expected values[${index}] to be an integer (number or bigint) for LongCodec, got ${describeValue(value)}`);
  if (!integer && typeof value !== 'string') throw new InvalidArgumentError(`Expected values[${index}] to be a string or an integer (number or bigint), got ${describeValue(value)}`);
  if (typeof value === 'bigint' && (value < -(2n ** 63n) || value >= 2n ** 63n)) throw new ArgumentRangeError(`Expected values[${index}] to fit a Java long, got ${value}`);
  return new Uint8Array(Buffer.from(String(value), 'utf8'));
}

/** Reads `getMultiLock(group, values, options?)`'s values and options into the value fields. */
export function fasterMultiLockFields(values: unknown, options: unknown): readonly string[] {
  if (options !== undefined) requireOptionKeys(options, 'getMultiLock(group, values) options', ['codec']);
  const codec = (options as FasterMultiLockOptions | undefined)?.codec ?? 'StringCodec';
  if (!CODECS.includes(codec)) {
    throw new InvalidArgumentError(
      `Expected \`codec\` to be 'StringCodec' or 'LongCodec', got ${describeValue(codec)}: a FasterMultiLock's field names are hashes of each value ` +
        "as the Java client's codec encodes it, and only these two codecs can be reproduced without a JVM serializer (Redisson's default, Kryo5Codec, cannot)",
    );
  }
  if (typeof values !== 'object' || values === null || !(Symbol.iterator in values) || typeof values === 'string') {
    throw new InvalidArgumentError(`Expected \`values\` to be an array of values, got ${describeValue(values)}`);
  }
  const list = [...(values as Iterable<unknown>)];
  if (list.length === 0) throw new ArgumentRangeError('Expected `values` to hold at least one value');
  // As Redisson (a Set of hashes): a value given twice is one field.
  return [...new Set(list.map((v, i) => hash128toBase64(encode(v as FasterMultiLockValue, codec, i))))];
}

/**
 * One lock over many values of a group, taken and released all at once: Redisson's `getMultiLock(group,
 * values)`. Obtain with `client.getMultiLock(group, values, { codec })`. It is a lock of the RLock family
 * (`lock`, `tryLock`, `unlock`, holds, watchdog), where "held" means every value is held by the owner.
 * Java peers must use the same codec (see {@link FasterMultiLockOptions.codec}).
 * @example
 * const lock = client.getMultiLock('class:100', ['Jack_001', 'Mary_002']);
 * await lock.withLock(async () => enrol(...));
 */
export class RedissonFasterMultiLock extends BaseLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonFasterMultiLock';
  readonly #fields: readonly string[];
  readonly #channel: string;
  readonly #renewal: RenewalKind;

  /** @internal use `client.getMultiLock(group, values)`. */
  constructor(ctx: ClientContext, group: string, fields: readonly string[]) {
    super(ctx, group);
    this.#fields = fields;
    this.#channel = lockChannelName(this.rawName);
    // Each object renews its own values (Redisson's FastMultilockTask keeps the fields per entry).
    this.#renewal = fasterMultiLockRenewal(`fasterMultiLock#${++serial}`, fields);
  }

  /** The field names of the values in the group hash (Base64 HighwayHash-128 of each encoded value). */
  get valueFields(): readonly string[] {
    return this.#fields;
  }

  protected override get channelName(): string {
    return this.#channel;
  }

  protected override get renewalKind(): RenewalKind {
    return this.#renewal;
  }

  /** `fastermultilock/tryLockInner`: every value at once, or the ms until the latest other holder's deadline. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    const undo = this.undoUnsynced(field, threadId, nilAcquired);
    const ttl = (await this.ctx.executor.eval('fastermultilock/tryLockInner', [this.rawName], [leaseMs, Date.now(), field, ...this.#fields], 'never', undo)) as number | null;
    return ttl === null ? acquired(undefined) : retryAfter(ttl);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    return this.ctx.executor.eval(
      'fastermultilock/unlockInner',
      [this.rawName, this.#channel, latch],
      [field, UNLOCK_MESSAGE, this.internalLockLeaseTime, latchTtl, Date.now(), ...this.#fields],
      'idempotent',
    );
  }

  protected override async forceUnlockInner(): Promise<boolean> {
    const removed = await this.ctx.executor.eval('fastermultilock/forceUnlock', [this.rawName, this.#channel], [UNLOCK_MESSAGE, ...this.#fields]);
    return (removed as number) > 0;
  }

  /** The owner's hold count: the smallest count among the values (0 when one is not held). */
  protected override async holdCountOf(field: string): Promise<number> {
    const counts = (await this.ctx.executor.command('HMGET', this.rawName, ...this.#fields.map((v) => `${v}:${field}:lock_count`))) as (string | null)[];
    return Math.max(0, Math.min(...counts.map((c) => Number(c ?? 0))));
  }

  /** True when any of the values is held, by anyone, with a deadline that has not passed. */
  override async isLocked(): Promise<boolean> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.eval('fastermultilock/isLocked', [this.rawName], [Date.now(), ...this.#fields], 'idempotent')) === 1;
  }

  /** True when thread `threadId` of this client holds every value. */
  override async isHeldByThread(threadId: number): Promise<boolean> {
    requireThreadId(threadId);
    this.ctx.ensureOpen();
    return (await this.ctx.executor.eval('fastermultilock/isHeldByThread', [this.rawName], [Date.now(), this.fieldName(threadId), ...this.#fields], 'idempotent')) === 1;
  }
}

/** The watchdog's renewal of FasterMultiLock holds: one script per group (Redisson's `FastMultilockTask`). */
function fasterMultiLockRenewal(id: string, fields: readonly string[]): RenewalKind {
  return Object.freeze({
    id,
    renew(run: ScriptRunner, leaseMs: number, entries: readonly RenewalEntry[]): Promise<number[]> {
      return Promise.all(entries.map(async ({ rawName, field }) => (await run('fastermultilock/renewExpiration', [rawName], [leaseMs, Date.now(), field, ...fields])) as number));
    },
  });
}
