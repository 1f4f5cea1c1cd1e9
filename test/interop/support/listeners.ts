/**
 * Object listeners across Java and redisson-ts (issue 28): one side holds a lock and releases it (the last
 * `unlock()` deletes the key) or lets its lease run out, and the other side's `DeletedObjectListener` /
 * `ExpiredObjectListener` is called with the lock's name. Both sides subscribe to Redisson's keyevent patterns
 * (`__keyevent@*:del`, `__keyevent@*:expired`), so each sees the other's events. The server's
 * `notify-keyspace-events` is set to `Egx` for the check and restored after it.
 */
import { expect } from 'vitest';
import { eventually } from '../../support/redis.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { familyName } from './lockFamily.js';

/** The lease left to run out (ms): Redis expires the key within a few ms of it. */
const SHORT_LEASE = 200;
const LONG_LEASE = 60_000;

interface ListenerSpec {
  readonly id: string;
  readonly event: 'deleted' | 'expired';
  readonly title: string;
}

const SPECS: readonly ListenerSpec[] = [
  {
    id: 'obj-listener-deleted',
    event: 'deleted',
    title: '`addListener(DeletedObjectListener)`: the other side locks and unlocks (its last `unlock()` deletes the key); the listener is called with the name',
  },
  {
    id: 'obj-listener-expired',
    event: 'expired',
    title: "`addListener(ExpiredObjectListener)`: the other side locks with a 200 ms lease and lets it run out; the listener is called with the name",
  },
];

export const listenerScenarios: InteropScenarios = (ctx: InteropContext) => {
  const java = async (name: string, method: string, args: unknown[] = []): Promise<unknown> => (await ctx.peer.call('lock', name, method, args, `${name}-t`)).result;
  /** Runs `fn` with keyevent notifications on, restoring the server's setting after it. */
  const withNotifications = async (fn: () => Promise<void>): Promise<void> => {
    const [, before = ''] = (await ctx.raw.config('GET', 'notify-keyspace-events')) as string[];
    await ctx.raw.config('SET', 'notify-keyspace-events', 'Egx');
    try {
      await fn();
    } finally {
      await ctx.raw.config('SET', 'notify-keyspace-events', before);
    }
  };

  for (const spec of SPECS) {
    ctx.row(spec.id, 'RLock', spec.title);
    ctx.check(spec.id, 'java-to-ts', `Java ${spec.event === 'deleted' ? 'unlocks' : 'lets the lease run out'}; our listener is called`, () =>
      withNotifications(async () => {
        const name = familyName('lock');
        const lock = ctx.clients.client().getLock(name);
        const called: string[] = [];
        const id = await lock.addListener(spec.event === 'deleted' ? { onDeleted: (n) => called.push(n) } : { onExpired: (n) => called.push(n) });
        try {
          if (spec.event === 'deleted') {
            await java(name, 'lock', [LONG_LEASE]);
            expect(called).toEqual([]);
            await java(name, 'unlock');
          } else {
            await java(name, 'lock', [SHORT_LEASE]);
          }
          await eventually(() => called.length > 0, ctx.hangGuardMs, `our ${spec.event} listener`);
          expect(called).toEqual([name]);
        } finally {
          await lock.removeListener(id);
        }
      }),
    );
    ctx.check(spec.id, 'ts-to-java', `we ${spec.event === 'deleted' ? 'unlock' : 'let the lease run out'}; Java's listener is called`, () =>
      withNotifications(async () => {
        const name = familyName('lock');
        const id = await java(name, spec.event === 'deleted' ? 'addDeletedListener' : 'addExpiredListener');
        try {
          const lock = ctx.clients.client().getLock(name);
          if (spec.event === 'deleted') {
            await lock.lock(LONG_LEASE);
            await lock.unlock();
          } else {
            await lock.lock(SHORT_LEASE);
          }
          expect(await java(name, 'awaitListener', [id, ctx.hangGuardMs])).toBe(name);
        } finally {
          await java(name, 'removeListener', [id]);
        }
      }),
    );
  }
};
