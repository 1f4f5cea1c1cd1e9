/**
 * Property-based bad input for every public method of the client and of RLock (issue 8): generated names,
 * times, units, thread ids, option objects and calls after shutdown. Each call must fail with a typed error
 * (TypeError, RangeError or a RedissonError) before the next macrotask, send ZERO commands to Redis and open
 * no connection (`INFO commandstats stats` deltas on a separate raw connection), and change no Redis state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { DEFAULTS, Redisson, RedissonError, RedissonShutdownError, TimeUnit, type RLock } from '../../src/index.js';
import { Clients, uniqueName, useRedis } from '../support/redis.js';
import {
  badName,
  badOwnerOptions,
  badThreadId,
  badTime,
  badUnit,
  badWaitOptions,
  isWellFormed,
  loneSurrogateString,
  MAX_SAFE,
  nonPlainObject,
  notAString,
  UNITS,
  validThreadId,
  withUnknownKey,
} from './arbitraries.js';

// Its own server, listening on 127.0.0.2 only: a client of another suite that reconnects to a port freed
// on 127.0.0.1 (a killed server) can never reach this one and add to the counts measured here.
const suite = useRedis({ own: true, args: ['--bind', '127.0.0.2'] });
const RUNS = { numRuns: 100 };

// ---- measuring what reaches Redis ---------------------------------------------------------------

interface Snapshot {
  readonly calls: ReadonlyMap<string, number>;
  readonly processed: number;
  readonly connections: number;
}

async function snapshot(raw: Redis): Promise<Snapshot> {
  const text = (await raw.call('INFO', 'commandstats', 'stats')) as string;
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_(\S+?):calls=(\d+)(?:.*rejected_calls=(\d+))?/gm)) {
    calls.set(m[1] ?? '', Number(m[2]) + Number(m[3] ?? 0));
  }
  const stat = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { calls, processed: stat('total_commands_processed'), connections: stat('total_connections_received') };
}

/** What reached Redis between two snapshots, apart from the first snapshot's own INFO. */
function traffic(before: Snapshot, after: Snapshot): Record<string, number> {
  const seen: Record<string, number> = {};
  for (const [cmd, n] of after.calls) {
    const delta = n - (before.calls.get(cmd) ?? 0) - (cmd === 'info' ? 1 : 0);
    if (delta !== 0) seen[cmd] = delta;
  }
  const processed = after.processed - before.processed - 1;
  if (processed !== 0) seen['(total_commands_processed)'] = processed;
  const connections = after.connections - before.connections;
  if (connections !== 0) seen['(total_connections_received)'] = connections;
  return seen;
}

type Outcome = { readonly threw: unknown } | { readonly returned: unknown } | { readonly pending: true };

/**
 * Runs `call`, then lets the event loop reach its next macrotask: validation is synchronous, so a bad
 * call has failed by then (thrown, or a promise already rejected). A call still pending was accepted.
 */
async function settle(call: () => unknown): Promise<Outcome> {
  let outcome: Outcome = { pending: true };
  try {
    const result = call();
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => (outcome = { returned: value }),
        (error: unknown) => (outcome = { threw: error }),
      );
    } else {
      outcome = { returned: result };
    }
  } catch (error) {
    outcome = { threw: error };
  }
  await new Promise((resolve) => setImmediate(resolve));
  return outcome;
}

const isTyped = (error: unknown): boolean => error instanceof TypeError || error instanceof RangeError || error instanceof RedissonError;

/** `call` fails at once with a typed error (or, with `only`, that class) and sends nothing to Redis. */
async function rejectsQuietly(raw: Redis, call: () => unknown, only?: new (...args: never[]) => Error): Promise<void> {
  const before = await snapshot(raw);
  const outcome = await settle(call);
  const after = await snapshot(raw);
  expect(outcome).toHaveProperty('threw');
  const error = 'threw' in outcome ? outcome.threw : undefined;
  if (only) expect(error).toBeInstanceOf(only);
  else expect(isTyped(error), `not a typed error: ${String(error)}`).toBe(true);
  const seen = traffic(before, after);
  if (Object.keys(seen).length > 0) expect(seen, `CLIENT LIST:\n${String(await raw.call('CLIENT', 'LIST'))}`).toEqual({});
}

// ---- the suite ------------------------------------------------------------------------------------

let clients: Clients;
let raw: Redis;
let client: Redisson;
let lock: RLock;
/** What the mapped client's nameMapper returns (set per case). */
let mapperResult: unknown = 'mapped';
let mapped: Redisson;
const HELD = uniqueName('held');
const FOREIGN_FIELD = '00000000-0000-4000-8000-000000000000:1';

/** What "no state change" compares: every key, and the held lock's hash and TTL. */
async function state(): Promise<unknown> {
  return { size: await raw.dbsize(), keys: (await raw.keys('*')).sort(), held: await raw.hgetall(HELD), ttl: await raw.pttl(HELD) };
}

const ready = (redis: Redis): Promise<void> =>
  new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));

beforeAll(async () => {
  clients = new Clients(`redis://127.0.0.2:${suite.redis.port}`);
  raw = clients.raw();
  // A lock held by another owner, with no expiry: an accepted lock() would have something to wait for.
  await raw.hset(HELD, FOREIGN_FIELD, '1');
  client = clients.client();
  lock = client.getLock(HELD);
  mapped = clients.client({ nameMapper: { map: () => mapperResult as string, unmap: (n) => n } });
  // Let the clients finish their own connection setup (ready check) before anything is measured.
  await Promise.all([ready(client.redis), ready(mapped.redis), ready(raw)]);
});
afterAll(() => clients.closeAll());

describe('bad input: typed error, zero commands, no state change', () => {
  let initial: unknown;
  beforeAll(async () => {
    initial = await state();
    // The measurement itself is quiet: two snapshots with nothing between them differ by nothing.
    expect(traffic(await snapshot(raw), await snapshot(raw))).toEqual({});
  });
  afterAll(async () => {
    expect(await state()).toEqual(initial);
  });

  it('getLock: non-strings, empty, lone surrogates', async () => {
    await fc.assert(fc.asyncProperty(badName, (name) => rejectsQuietly(raw, () => client.getLock(name as string))), RUNS);
  });

  it('getLock through a nameMapper whose result is not a non-empty well-formed string', async () => {
    const results = fc.oneof(notAString, fc.constant(''), loneSurrogateString);
    await fc.assert(
      fc.asyncProperty(results, fc.string({ minLength: 1, maxLength: 8 }).filter(isWellFormed), async (result, name) => {
        mapperResult = result;
        await rejectsQuietly(raw, () => mapped.getLock(name));
      }),
      RUNS,
    );
    mapperResult = 'mapped';
    expect(mapped.getLock('n').getName()).toBe('n');
  });

  it('lock / tryLock: bad times and units in every slot, and times whose unit overflows', async () => {
    type Slot = 'T' | 'U' | 'O';
    const shapes: Record<'lock' | 'tryLock', Slot[][]> = {
      lock: [['T'], ['T', 'U'], ['T', 'O'], ['T', 'U', 'O']],
      tryLock: [['T'], ['T', 'U'], ['T', 'T'], ['T', 'T', 'U'], ['T', 'O'], ['T', 'T', 'O'], ['T', 'T', 'U', 'O']],
    };
    const valid = { T: fc.constantFrom(-1, 0, 1, 250, 30_000), U: fc.constantFrom(...UNITS), O: fc.constantFrom({}, { threadId: 1 }) };
    const call = fc
      .constantFrom<'lock' | 'tryLock'>('lock', 'tryLock')
      .chain((method) => fc.tuple(fc.constant(method), fc.constantFrom(...shapes[method])))
      .chain(([method, shape]) =>
        fc.tuple(
          fc.constant(method),
          fc.tuple(...shape.map((slot) => valid[slot])),
          fc.nat({ max: shape.length - 1 }).filter((i) => shape[i] !== 'O'),
          fc.constant(shape),
        ),
      )
      .chain(([method, args, at, shape]) =>
        (shape[at] === 'T' ? badTime : badUnit).map((bad) => ({ method, args: args.map((a: unknown, i) => (i === at ? bad : a)) })),
      );
    await fc.assert(
      fc.asyncProperty(call, ({ method, args }) => rejectsQuietly(raw, () => (lock[method] as (...a: unknown[]) => Promise<unknown>)(...args))),
      RUNS,
    );
    // A valid count whose unit takes it beyond MAX_SAFE_INTEGER ms.
    const perUnit = { SECONDS: 1_000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };
    const overflow = fc
      .constantFrom(...(Object.keys(perUnit) as (keyof typeof perUnit)[]))
      .chain((unit) => fc.tuple(fc.integer({ min: Math.floor(MAX_SAFE / perUnit[unit]) + 1, max: MAX_SAFE }), fc.constant(unit)));
    await fc.assert(
      fc.asyncProperty(overflow, fc.boolean(), ([value, unit], asWait) =>
        rejectsQuietly(raw, () => (asWait ? lock.tryLock(value, unit) : lock.lock(value, unit)), RangeError),
      ),
      RUNS,
    );
  });

  it('lock / tryLock: options with unknown keys, wrong types, arrays, non-plain objects', async () => {
    const prefixes: readonly (readonly [string, unknown[]])[] = [
      ['lock', []],
      ['lock', [5_000]],
      ['lock', [5, TimeUnit.SECONDS]],
      ['tryLock', []],
      ['tryLock', [0]],
      ['tryLock', [100, 5_000]],
      ['tryLock', [1, 5, TimeUnit.SECONDS]],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...prefixes), badWaitOptions, ([method, prefix], options) =>
        rejectsQuietly(raw, () => (lock[method as 'lock'] as (...a: unknown[]) => Promise<unknown>)(...prefix, options)),
      ),
      RUNS,
    );
  });

  it('unlock / getHoldCount / isHeldByCurrentThread: bad owner options', async () => {
    const methods = ['unlock', 'getHoldCount', 'isHeldByCurrentThread'] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), badOwnerOptions, (method, options) =>
        rejectsQuietly(raw, () => (lock[method] as (o: unknown) => Promise<unknown>)(options)),
      ),
      RUNS,
    );
  });

  it('isHeldByThread and runInThread: bad thread ids (runInThread never runs its function)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(badThreadId, fc.constant(undefined)), (id) => rejectsQuietly(raw, () => lock.isHeldByThread(id as number))),
      RUNS,
    );
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(badThreadId, (id) => rejectsQuietly(raw, () => client.runInThread(() => ran++, id as number))),
      RUNS,
    );
    expect(ran).toBe(0);
  });

  it('getMultiLock / getRedLock options: unknown keys (`nodeTimout`), non-plain objects, arrays, bad nodeTimeout', async () => {
    const members = [client.getLock(uniqueName('m')), client.getLock(uniqueName('m')), client.getLock(uniqueName('m'))];
    const badOptions = fc.oneof(
      withUnknownKey(['nodeTimeout']),
      nonPlainObject,
      fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 2 }),
      fc.constantFrom(null, 5, 'nodeTimeout', true),
      badTime.filter((t) => t !== null && typeof t !== 'object').map((nodeTimeout) => ({ nodeTimeout })),
      fc.constantFrom({ nodeTimout: 50 }, { NodeTimeout: 50 }, { leaseTime: 5_000 }, { waitTime: 100 }, { threadId: 1 }, { signal: new AbortController().signal }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'getMultiLock' | 'getRedLock'>('getMultiLock', 'getRedLock'), badOptions, (method, options) =>
        rejectsQuietly(raw, () => client[method]([...members], options as never)),
      ),
      RUNS,
    );
    expect(() => client.getRedLock([...members], { nodeTimout: 50 } as never)).toThrow(
      /^Unknown option `nodeTimout` in getRedLock options \(did you mean `nodeTimeout`\?\); accepted: `nodeTimeout`$/,
    );
    expect(() => client.getMultiLock([...members], { leaseTime: 5 } as never)).toThrow(/`leaseTime` is an argument of lock and tryLock/);
  });

  it('acquire / tryAcquire / withLock / hold.reenter options: unknown keys, non-plain objects, wrong types', async () => {
    const holdKeys = ['leaseTime', 'signal', 'threadId'];
    const badHold = (accepted: readonly string[]): fc.Arbitrary<unknown> =>
      fc.oneof(
        withUnknownKey(accepted),
        nonPlainObject,
        fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 2 }),
        fc.constantFrom(null, 0, 'x', true),
        badTime.filter((t) => t !== undefined).map((leaseTime) => ({ leaseTime })),
        fc.anything({ maxDepth: 1 }).filter((v) => v !== undefined && !(v instanceof AbortSignal)).map((signal) => ({ signal })),
      );
    let ran = 0;
    const work = (): number => ran++;
    const calls = fc.oneof(
      badHold(holdKeys).map((o) => () => lock.acquire(o as never)),
      badHold([...holdKeys, 'waitTime']).map((o) => () => lock.tryAcquire(o as never)),
      badHold(holdKeys).map((o) => () => lock.withLock(work, o as never)),
      badHold(holdKeys).map((o) => () => client.withLock(HELD, work, o as never)),
    );
    await fc.assert(fc.asyncProperty(calls, (call) => rejectsQuietly(raw, call)), RUNS);
    expect(ran).toBe(0);
    // A hold's re-entry: its owner is the hold's own, so `threadId` is refused too.
    const hold = await client.getLock(uniqueName('reenter')).acquire({ leaseTime: 60_000 });
    try {
      await fc.assert(fc.asyncProperty(fc.oneof(badHold(['leaseTime', 'signal']), fc.constant({ threadId: 1 })), (o) => rejectsQuietly(raw, () => hold.reenter(o as never))), RUNS);
      await expect(hold.reenter({ leaseTim: 5 } as never)).rejects.toThrow(/^Unknown option `leaseTim` in reenter options \(did you mean `leaseTime`\?\)/);
    } finally {
      await hold.release();
    }
  });

  it('semaphore acquireHold / tryAcquireHold / withPermits and multilock acquire / tryAcquire / withLock options', async () => {
    const badHold = (accepted: readonly string[]): fc.Arbitrary<unknown> =>
      fc.oneof(
        withUnknownKey(accepted),
        nonPlainObject,
        fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 2 }),
        fc.constantFrom(null, 0, 'x', true),
        fc.oneof(fc.constantFrom(0, -1, 2 ** 31, 1.5, Number.NaN), fc.anything({ maxDepth: 1 }).filter((v) => typeof v !== 'number' && v !== undefined)).map((permits) => ({ permits })),
        fc.anything({ maxDepth: 1 }).filter((v) => v !== undefined && !(v instanceof AbortSignal)).map((signal) => ({ signal })),
      );
    const badLease = badTime.filter((t) => t !== undefined).map((leaseTime) => ({ leaseTime }));
    let ran = 0;
    const work = (): number => ran++;
    const semaphore = client.getSemaphore(uniqueName('sem'));
    const seats = client.getPermitExpirableSemaphore(uniqueName('pes'));
    const multi = client.getMultiLock(client.getLock(uniqueName('m')), client.getLock(uniqueName('m')));
    const calls = fc.oneof(
      badHold(['permits', 'signal']).map((o) => () => semaphore.acquireHold(o as never)),
      badHold(['permits', 'signal', 'waitTime']).map((o) => () => semaphore.tryAcquireHold(o as never)),
      badHold(['permits', 'signal']).map((o) => () => semaphore.withPermits(work, o as never)),
      fc.oneof(badHold(['permits', 'signal', 'leaseTime']), badLease, fc.constant({ leaseTime: 0 })).map((o) => () => seats.acquireHold(o as never)),
      badHold(['permits', 'signal', 'leaseTime', 'waitTime']).map((o) => () => seats.tryAcquireHold(o as never)),
      badHold(['permits', 'signal', 'leaseTime']).map((o) => () => seats.withPermits(work, o as never)),
      fc.oneof(withUnknownKey(['leaseTime', 'signal', 'threadId']), nonPlainObject, badLease).map((o) => () => multi.acquire(o as never)),
      fc.oneof(withUnknownKey(['leaseTime', 'signal', 'threadId', 'waitTime']), nonPlainObject, badLease).map((o) => () => multi.tryAcquire(o as never)),
      fc.oneof(withUnknownKey(['leaseTime', 'signal', 'threadId']), nonPlainObject).map((o) => () => multi.withLock(work, o)),
    );
    await fc.assert(fc.asyncProperty(calls, (call) => rejectsQuietly(raw, call)), RUNS);
    expect(ran).toBe(0);
  });

  it('expire / expireIf… / expireAt: bad durations, units, Dates and timestamps, on every kind of object', async () => {
    type Expiring = Pick<RLock, 'expire' | 'expireIfSet' | 'expireIfNotSet' | 'expireIfGreater' | 'expireIfLess' | 'expireAt'>;
    const objects: Expiring[] = [lock, client.getFairLock(HELD), client.getSemaphore(HELD), client.getPermitExpirableSemaphore(HELD), client.getReadWriteLock(HELD)];
    const object = fc.constantFrom(...objects);
    const method = fc.constantFrom('expire', 'expireIfSet', 'expireIfNotSet', 'expireIfGreater', 'expireIfLess');
    // A Date is an instant, valid there (a past one deletes the object): never one that parses.
    const notADate = badTime.filter((t) => !(t instanceof Date));
    const badDuration = fc.oneof(notADate, fc.constantFrom(0, -1, undefined));
    const invalidDate = fc.constantFrom(new Date(Number.NaN), new Date('soon'), new Date(-1));
    const perUnit = { SECONDS: 1_000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };
    const args = fc.oneof(
      badDuration.map((d) => [d]),
      fc.tuple(fc.constantFrom(1, 5_000), badUnit),
      invalidDate.map((d) => [d]),
      fc.tuple(fc.constant(new Date(Date.now() + 60_000)), fc.constantFrom(...UNITS)),
      fc.constantFrom<unknown[]>([999, TimeUnit.MICROSECONDS], [1, TimeUnit.NANOSECONDS]),
      fc
        .constantFrom(...(Object.keys(perUnit) as (keyof typeof perUnit)[]))
        .chain((unit) => fc.tuple(fc.integer({ min: Math.floor(MAX_SAFE / perUnit[unit]) + 1, max: MAX_SAFE }), fc.constant(unit))),
    );
    await fc.assert(
      fc.asyncProperty(object, method, args, (o, m, a) => rejectsQuietly(raw, () => (o[m] as (...x: unknown[]) => Promise<boolean>).apply(o, a))),
      RUNS,
    );
    const badTimestamp = fc.oneof(notADate, invalidDate, fc.constantFrom(-1, undefined));
    await fc.assert(fc.asyncProperty(object, badTimestamp, (o, t) => rejectsQuietly(raw, () => o.expireAt(t as number))), RUNS);
  });

  it('fromConfig options: unknown keys (`onWarnings`), wrong types; no connection is opened', async () => {
    const config = { singleServerConfig: { address: `redis://127.0.0.2:${suite.redis.port}` } };
    const badOptions = fc.oneof(
      withUnknownKey(['nameMappers', 'env', 'onWarning']),
      fc.constantFrom({ onWarnings: () => undefined }, { enviroment: {} }, { nameMapper: {} }, { onWarning: 5 }, { env: 'x' }, { nameMappers: [] }, null, [], 'env'),
    );
    await fc.assert(
      fc.asyncProperty(badOptions, (options) =>
        rejectsQuietly(raw, () => {
          const created = Redisson.fromConfig(config, options as never);
          void created.shutdown(); // only reached when the bad options were accepted; the assertion fails then
          return created;
        }, TypeError),
      ),
      RUNS,
    );
    expect(() => Redisson.fromConfig(config, { onWarnings: () => undefined } as never)).toThrow(/^Unknown option `onWarnings` in fromConfig options \(did you mean `onWarning`\?\)/);
  });

  it('Redisson.create: unknown keys, wrong types, out-of-range values; no connection is opened', async () => {
    const url = `redis://127.0.0.2:${suite.redis.port}`;
    const outOf = (min: number, max: number) =>
      fc.oneof(
        fc.constantFrom(min - 1, max + 1, 2 ** 31, -1, 0).filter((v) => v < min || v > max),
        fc.maxSafeInteger().filter((v) => v < min || v > max),
        badTime.filter((t) => typeof t !== 'number' || !Number.isInteger(t)),
      );
    const badValue = fc.oneof(
      fc.tuple(fc.constant('lockWatchdogTimeout'), outOf(3, 3 * (2 ** 31 - 1))),
      fc.tuple(fc.constant('lockWatchdogBatchSize'), outOf(1, 10_000)),
      fc.tuple(fc.constant('subscriptionTimeout'), outOf(1, 2 ** 31 - 1)),
      fc.tuple(fc.constant('timeout'), outOf(1, 2 ** 31 - 1)),
      fc.tuple(fc.constant('retryAttempts'), outOf(0, 1_000)),
      fc.tuple(fc.constant('fairLockWaitTimeout'), outOf(0, MAX_SAFE)),
      fc.tuple(fc.constant('nameMapper'), fc.oneof(notAString.filter((v) => v !== undefined), fc.constant({ map: () => 'x' }), fc.constant({ map: 1, unmap: 2 }))),
      fc.tuple(
        fc.constant('redis'),
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('http://127.0.0.1:6379', 'tcp://x', '127.0.0.1:6379', null, 6379, true, [], new Map(), new Date(0)),
        ),
      ),
    );
    const badOptions = fc.oneof(
      withUnknownKey([...Object.keys(DEFAULTS), 'nameMapper']),
      fc.constantFrom({ lockWatchDogTimeout: 60_000 }, { keyPrefix: 'app:' }, { leaseTime: 5 }),
      badValue.map(([key, value]) => ({ [key]: value })),
    );
    await fc.assert(
      fc.asyncProperty(badOptions, async (options) => {
        // With a good `redis` next to the bad option (unless `redis` is the bad one): validation comes first.
        const withRedis = 'redis' in options ? options : { redis: url, ...options };
        await rejectsQuietly(raw, () => {
          const created = Redisson.create(withRedis);
          void created.shutdown(); // only reached when the bad options were accepted; the assertion fails then
          return created;
        });
      }),
      RUNS,
    );
    // Not an object at all (plain JS): arrays, null, primitives, an ioredis instance.
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 2 }), fc.constantFrom(null, 5, 'redis://x', true, Symbol('c'), client.redis)), (options) =>
        rejectsQuietly(raw, () => Redisson.create(options as never), TypeError),
      ),
      RUNS,
    );
  });
});

describe('after shutdown: RedissonShutdownError (or a typed error for bad arguments), zero commands', () => {
  let closed: Redisson;
  let closedLock: RLock;
  beforeAll(async () => {
    closed = clients.client();
    closedLock = closed.getLock(HELD);
    await closed.redis.ping();
    await closed.shutdown();
  });

  const validCall = fc.oneof(
    fc.tuple(fc.constant('getLock'), fc.string({ minLength: 1, maxLength: 8 }).filter(isWellFormed).map((n) => [n])),
    fc.tuple(fc.constant('lock'), fc.constantFrom([], [5_000], [5, TimeUnit.SECONDS], [{ threadId: 3 }], [{ signal: new AbortController().signal }])),
    fc.tuple(fc.constant('tryLock'), fc.constantFrom([], [0], [100], [100, 5_000], [1, 5, TimeUnit.SECONDS, { threadId: 9 }])),
    fc.tuple(fc.constantFrom('unlock', 'getHoldCount', 'isHeldByCurrentThread'), fc.constantFrom([], [{}], [{ threadId: 4 }])),
    fc.tuple(fc.constant('isHeldByThread'), validThreadId.map((id) => [id])),
    fc.tuple(fc.constantFrom('forceUnlock', 'isLocked', 'remainTimeToLive'), fc.constant([])),
    fc.tuple(fc.constantFrom('delete', 'isExists', 'sizeInMemory', 'clearExpire', 'getExpireTime'), fc.constant([])),
    fc.tuple(
      fc.constantFrom('expire', 'expireIfSet', 'expireIfNotSet', 'expireIfGreater', 'expireIfLess', 'expireAt'),
      fc.constantFrom([5_000], [5, TimeUnit.SECONDS], [new Date(Date.now() + 60_000)]),
    ),
    fc.tuple(fc.constant('runInThread'), fc.constantFrom([], [12])),
  );
  const invoke = (method: string, args: readonly unknown[]): unknown => {
    if (method === 'getLock') return closed.getLock(args[0] as string);
    // A flow after shutdown runs, but the lock call inside it rejects.
    if (method === 'runInThread') return closed.runInThread(() => closedLock.lock(), args[0] as number | undefined);
    return (closedLock[method as 'lock'] as (...a: unknown[]) => unknown)(...args);
  };

  it('every method with valid arguments rejects with RedissonShutdownError', async () => {
    await fc.assert(fc.asyncProperty(validCall, ([method, args]) => rejectsQuietly(raw, () => invoke(method, args), RedissonShutdownError)), RUNS);
  });

  it('and with bad arguments still fails with a typed error', async () => {
    const badCall = fc.oneof(
      fc.tuple(fc.constant('getLock'), badName.map((n) => [n])),
      fc.tuple(fc.constantFrom('lock', 'tryLock'), fc.tuple(badTime)),
      fc.tuple(fc.constantFrom('lock', 'tryLock'), fc.tuple(badWaitOptions)),
      fc.tuple(fc.constantFrom('unlock', 'getHoldCount', 'isHeldByCurrentThread'), fc.tuple(badOwnerOptions)),
      fc.tuple(fc.constant('isHeldByThread'), fc.tuple(badThreadId)),
    );
    await fc.assert(fc.asyncProperty(badCall, ([method, args]) => rejectsQuietly(raw, () => invoke(method, args as unknown[]))), RUNS);
  });
});
