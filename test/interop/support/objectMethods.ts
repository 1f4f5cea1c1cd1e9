/**
 * The RObject / RExpirable methods across Java and redisson-ts (the peer's ObjectMethods: Java's lock classes
 * are RedissonExpirable subclasses, its semaphores RExpirable): one side creates an object, the other gives it
 * a time to live, an expiry, clears it and deletes it; every key of the object (a FairLock's queue and
 * deadlines, a FencedLock's token counter, a PermitExpirableSemaphore's leases) must show it in Redis, and the
 * creating side must read the same. `delete` publishes where Redisson's does (the lock family's forceUnlock)
 * and nowhere else, counted with INFO commandstats.
 */
import { expect } from 'vitest';
import { fairLockQueueName, fairLockTimeoutName, fencedLockTokenName, permitExpirableTimeoutName, TimeUnit, type Redisson } from '../../../src/index.js';
import type { RExpirable } from '../../../src/RExpirable.js';
import { eventually } from '../../support/redis.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { familyName } from './lockFamily.js';

/** Every lease here: no watchdog re-expires a key during a check. */
const LEASE = 60_000;

type Side = 'java' | 'ts';

interface ObjectSpec {
  readonly id: string;
  /** The matrix's primitive label. */
  readonly primitive: string;
  /** The peer's primitive for the object methods. */
  readonly javaPrimitive: string;
  /** The object's keys, its own first. */
  keys(name: string): string[];
  /** Our object. */
  ours(client: Redisson, name: string): RExpirable;
  /** Creates the object (all its keys) on `side`; returns what stops anything left waiting. */
  create(ctx: InteropContext, side: Side, name: string): Promise<(() => Promise<void>) | void>;
  /** Whether `delete()` publishes (the lock family's forceUnlock). */
  readonly deletePublishes: boolean;
  /** First Redisson version with the primitive. */
  readonly since?: readonly [number, number];
}

const java = async (ctx: InteropContext, primitive: string, name: string, method: string, args: unknown[] = []): Promise<unknown> =>
  (await ctx.peer.call(primitive, name, method, args, `${name}-t`)).result;

/** A lock held by `side` for {@link LEASE}. */
const held = (javaPrimitive: string, ours: (c: Redisson, n: string) => { lock(lease: number): Promise<void> }) => async (ctx: InteropContext, side: Side, name: string): Promise<void> => {
  if (side === 'java') await java(ctx, javaPrimitive, name, 'lock', [LEASE]);
  else await ours(ctx.clients.client(), name).lock(LEASE);
};

const SPECS: readonly ObjectSpec[] = [
  { id: 'obj-lock', primitive: 'RLock', javaPrimitive: 'lock', keys: (n) => [n], ours: (c, n) => c.getLock(n), create: held('lock', (c, n) => c.getLock(n)), deletePublishes: true },
  { id: 'obj-spinlock', primitive: 'SpinLock', javaPrimitive: 'spinLock', keys: (n) => [n], ours: (c, n) => c.getSpinLock(n), create: held('spinLock', (c, n) => c.getSpinLock(n)), deletePublishes: false },
  {
    id: 'obj-fairlock',
    primitive: 'FairLock',
    javaPrimitive: 'fairLock',
    keys: (n) => [n, fairLockQueueName(n), fairLockTimeoutName(n)],
    ours: (c, n) => c.getFairLock(n),
    async create(ctx, side, name) {
      await held('fairLock', (c, n) => c.getFairLock(n))(ctx, side, name);
      // The queue and deadlines exist while someone waits: a waiter of ours, which the check can abort.
      const stop = new AbortController();
      const waiter = ctx.clients.client().getFairLock(name).tryLock(LEASE, LEASE, { signal: stop.signal }).catch(() => false);
      await eventually(async () => (await ctx.raw.zcard(fairLockTimeoutName(name))) === 1, ctx.hangGuardMs, 'our waiter queued');
      return async () => {
        stop.abort();
        await waiter;
      };
    },
    deletePublishes: false,
  },
  {
    id: 'obj-fencedlock',
    primitive: 'FencedLock',
    javaPrimitive: 'fencedLock',
    keys: (n) => [n, fencedLockTokenName(n)],
    ours: (c, n) => c.getFencedLock(n),
    create: held('fencedLock', (c, n) => c.getFencedLock(n)),
    deletePublishes: false,
    since: [3, 19],
  },
  {
    id: 'obj-rwlock',
    primitive: 'ReadWriteLock',
    javaPrimitive: 'readWriteLock',
    keys: (n) => [n],
    ours: (c, n) => c.getReadWriteLock(n),
    create: held('writeLock', (c, n) => c.getReadWriteLock(n).writeLock()),
    deletePublishes: false,
  },
  {
    id: 'obj-semaphore',
    primitive: 'Semaphore',
    javaPrimitive: 'semaphore',
    keys: (n) => [n],
    ours: (c, n) => c.getSemaphore(n),
    async create(ctx, side, name) {
      if (side === 'java') expect(await java(ctx, 'semaphore', name, 'trySetPermits', [3])).toBe(true);
      else expect(await ctx.clients.client().getSemaphore(name).trySetPermits(3)).toBe(true);
    },
    deletePublishes: false,
  },
  {
    id: 'obj-pes',
    primitive: 'PermitExpirableSemaphore',
    javaPrimitive: 'permitExpirableSemaphore',
    keys: (n) => [n, permitExpirableTimeoutName(n)],
    ours: (c, n) => c.getPermitExpirableSemaphore(n),
    async create(ctx, side, name) {
      if (side === 'java') {
        expect(await java(ctx, 'permitExpirableSemaphore', name, 'trySetPermits', [3])).toBe(true);
        await java(ctx, 'permitExpirableSemaphore', name, 'acquire', [LEASE]);
      } else {
        const s = ctx.clients.client().getPermitExpirableSemaphore(name);
        expect(await s.trySetPermits(3)).toBe(true);
        await s.acquire(LEASE, TimeUnit.MILLISECONDS);
      }
    },
    deletePublishes: false,
  },
];

const TITLE = (s: ObjectSpec): string =>
  `Object methods on the other side's object: \`expire\`, \`expireAt\`, \`clearExpire\` act on every key (${s.keys('N').join(', ')}), \`remainTimeToLive\` and \`sizeInMemory\` agree, \`delete\` removes every key${s.deletePublishes ? ' and publishes the release (forceUnlock)' : ', publishing nothing'}`;

const atLeast = (version: string, [major, minor]: readonly [number, number]): boolean => {
  const [ma = 0, mi = 0] = version.split('.').map(Number);
  return ma > major || (ma === major && mi >= minor);
};

export const objectMethodsScenarios: InteropScenarios = (ctx: InteropContext) => {
  const publishes = async (): Promise<number> => {
    const stats = await ctx.raw.info('commandstats');
    return [...stats.matchAll(/cmdstat_s?publish:calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  for (const spec of SPECS) {
    ctx.row(spec.id, spec.primitive, TITLE(spec));
    if (spec.since && !atLeast(ctx.version, spec.since)) {
      ctx.notInVersion(spec.id, TITLE(spec));
      continue;
    }
    for (const actor of ['java', 'ts'] as const) {
      const creator: Side = actor === 'java' ? 'ts' : 'java';
      const direction = actor === 'java' ? 'java-to-ts' : 'ts-to-java';
      const title = actor === 'java' ? 'we create; Java expires, clears and deletes; we read the same' : 'Java creates; we expire, clear and delete; Java reads the same';
      ctx.check(spec.id, direction, title, async () => {
        const name = familyName(spec.javaPrimitive);
        const keys = spec.keys(name);
        const ours = spec.ours(ctx.clients.client(), name);
        const callOurs = (method: string, args: unknown[] = []): Promise<unknown> => {
          const fn = (ours as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
          if (typeof fn !== 'function') throw new Error(`no ${method} on our ${spec.primitive}`);
          return fn.apply(ours, args);
        };
        const callJava = (method: string, args: unknown[] = []): Promise<unknown> => java(ctx, spec.javaPrimitive, name, method, args);
        // The actor changes the object; the observer (the side that created it) reads it.
        const [act, observe] = actor === 'java' ? [callJava, callOurs] : [callOurs, callJava];
        const pttls = (): Promise<number[]> => Promise.all(keys.map((k) => ctx.raw.pttl(k)));
        const stop = await spec.create(ctx, creator, name);
        try {
          expect(await ctx.raw.exists(...keys)).toBe(keys.length);
          expect(await act('expire', [600_000])).toBe(true);
          for (const ttl of await pttls()) {
            expect(ttl).toBeGreaterThan(LEASE);
            expect(ttl).toBeLessThanOrEqual(600_000);
          }
          const left = Number(await observe('remainTimeToLive'));
          expect(left).toBeGreaterThan(LEASE);
          expect(left).toBeLessThanOrEqual(600_000);

          const at = Date.now() + 3_600_000;
          expect(await act('expireAt', [at])).toBe(true);
          expect(await Promise.all(keys.map(async (k) => Number(await ctx.raw.call('PEXPIRETIME', k))))).toEqual(keys.map(() => at));

          expect(await act('clearExpire')).toBe(true);
          expect(await pttls()).toEqual(keys.map(() => -1));
          expect(Number(await observe('remainTimeToLive'))).toBe(-1);
          expect(await act('clearExpire')).toBe(false);

          expect(Number(await act('sizeInMemory'))).toBe(Number(await observe('sizeInMemory')));
          expect(Number(await act('sizeInMemory'))).toBeGreaterThan(0);

          const before = await publishes();
          expect(await act('delete')).toBe(true);
          expect(await ctx.raw.exists(...keys)).toBe(0);
          expect((await publishes()) - before).toBe(spec.deletePublishes ? 1 : 0);
          expect(await observe('isExists')).toBe(false);
          expect(await act('delete')).toBe(false);
          expect(await act('expire', [1_000])).toBe(false);
        } finally {
          await stop?.();
        }
      });
    }
  }
};
