/**
 * ReadWriteLock interop scenarios (Java `RReadWriteLock` halves through the peer's "readLock" /
 * "writeLock" primitives): readers share across sides, writers exclude, release messages wake the other
 * side (write unlock `1` wakes every reader, read unlock `0` a writer), read holds survive the other side's
 * read unlock through their `rwlock_timeout` keys, and the write→read downgrade (ours publishes `1`, Java's
 * nothing: a recorded difference, checked on each side).
 *
 * No assertion depends on timing. Holders take 60 s leases, far past the 10 s hang guard, and release only
 * once every waiter is parked: it made both of its refused attempts (the one before and the one after
 * subscribing), each of which ends with a `PTTL` that `INFO commandstats` counts. A waiter that acquires
 * within the guard was woken by the message. (MONITOR is the RLock suite's; a second one mid-suite is
 * unsafe, see suite.ts.)
 */
import { expect } from 'vitest';
import { readWriteLockChannelName, type RedissonReadWriteLock } from '../../../src/index.js';
import { collectMessages, eventually, sleep, uniqueName, within as guard } from '../../support/redis.js';
import type { JavaPeer } from '../JavaPeer.js';
import type { InteropContext, InteropScenarios } from './context.js';

const LEASE = 60_000;
const PRIMITIVE = 'ReadWriteLock';
type Half = 'readLock' | 'writeLock';

/**
 * Redisson 3.44.0–3.x: `ReadLockTask`'s script reuses the outer loop's `i` in its inner loop, so the timeout
 * keys of every lock but the first in a renewal batch are re-expired under the wrong prefix (fixed in 4.0.0).
 * A Java client of those versions that renews two read locks at once lets the second one's keys expire.
 */
const SHADOWED_RENEWAL =
  "Redisson 3.44.0–3.x renews the `rwlock_timeout` keys of only the first read lock of a watchdog batch correctly (a shadowed Lua loop variable, fixed in 4.0.0): with two Java read locks renewed at once, the second one's keys expire and the next read unlock on either side — Java's own included — deletes that lock. The Java holds here renew one read lock at a time.";
const hasShadowedRenewal = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major === 3 && minor >= 44;
};

export const readWriteLockScenarios: InteropScenarios = (ctx: InteropContext) => {
  const java = async (peer: JavaPeer, half: Half, name: string, method: string, args: unknown[], thread: string): Promise<unknown> =>
    (await peer.call(half, name, method, args, thread)).result;
  const javaField = async (peer: JavaPeer, thread: string): Promise<string> => peer.lockOwner(await peer.threadId(thread));
  const oursField = (rw: RedissonReadWriteLock, clientId: string): string => `${clientId}:${rw.threadId}`;
  const timeoutKey = (name: string, field: string): string => `${name.includes('{') ? name : `{${name}}`}:${field}:rwlock_timeout:1`;
  const pttlCalls = async (): Promise<number> => Number(/cmdstat_pttl:calls=(\d+)/.exec(await ctx.raw.info('commandstats'))?.[1] ?? 0);
  /** Resolves once `n` waiters started after `from` (a {@link pttlCalls} value) are parked. */
  const parked = (from: number, n: number, who: string): Promise<void> =>
    eventually(async () => (await pttlCalls()) - from >= 2 * n, ctx.hangGuardMs, `${who} parked`);
  const within = <T>(promise: Promise<T>, what: string): Promise<T> => guard(promise, ctx.hangGuardMs, what);
  /**
   * Resolves once each of the peer's `threads` is queued on its lock entry's latch. A Java waiter that has
   * retried (its TTL counted by {@link parked}) but is not yet queued misses message `1`, whose wake-up Redisson
   * gives only to the threads queued at that moment (`release(getQueueLength())`): it then sleeps until the TTL it
   * read, as it would behind a Java writer (COMPATIBILITY.md, ReadWriteLock).
   */
  const queuedOnLatch = (threads: readonly string[], who: string): Promise<void> =>
    eventually(async () => (await Promise.all(threads.map((t) => ctx.peer.latchWaiting(t)))).every(Boolean), ctx.hangGuardMs, `${who} queued on the latch`);

  const expectHash = async (name: string, expected: Record<string, string>): Promise<void> => {
    expect(await ctx.raw.hgetall(name), `hash ${name}`).toEqual(expected);
  };

  // ------------------------------------------------------------------------------------ sharing
  ctx.row('rw-share', PRIMITIVE, 'Readers share: the other side\'s reader enters; one hash with both reader fields and both `rwlock_timeout` keys');
  for (const direction of ['java-to-ts', 'ts-to-java'] as const) {
    ctx.check('rw-share', direction, direction === 'java-to-ts' ? 'Java reads: our reader enters beside it' : 'we read: Java\'s reader enters beside us', async () => {
      const name = uniqueName('interop-rw');
      const client = ctx.clients.client();
      const rw = client.getReadWriteLock(name);
      const jf = await javaField(ctx.peer, 'rw-share');
      if (direction === 'java-to-ts') {
        await java(ctx.peer, 'readLock', name, 'lock', [LEASE], 'rw-share');
        expect(await rw.readLock().tryLock(), 'our read tryLock()').toBe(true);
      } else {
        await rw.readLock().lock(LEASE);
        expect(await java(ctx.peer, 'readLock', name, 'tryLock', [], 'rw-share'), "Java's read tryLock()").toBe(true);
      }
      await expectHash(name, { mode: 'read', [jf]: '1', [oursField(rw, client.getId())]: '1' });
      for (const field of [jf, oursField(rw, client.getId())]) expect(await ctx.raw.exists(timeoutKey(name, field)), `timeout key of ${field}`).toBe(1);
      await java(ctx.peer, 'readLock', name, 'unlock', [], 'rw-share');
      await rw.readLock().unlock();
      expect(await ctx.raw.exists(name), 'hash after both unlocks').toBe(0);
    });
  }

  // ---------------------------------------------------------------------------------- exclusion
  ctx.row('rw-exclude', PRIMITIVE, "A writer excludes the other side's readers and writers; a reader excludes the other side's writer");
  ctx.check('rw-exclude', 'java-to-ts', "Java writes, then reads: our tryLock()s are refused as Redisson's", async () => {
    const name = uniqueName('interop-rw');
    const rw = ctx.clients.client().getReadWriteLock(name);
    await java(ctx.peer, 'writeLock', name, 'lock', [LEASE], 'rw-excl');
    expect(await rw.readLock().tryLock(), 'our read while Java writes').toBe(false);
    expect(await rw.writeLock().tryLock(), 'our write while Java writes').toBe(false);
    await java(ctx.peer, 'writeLock', name, 'unlock', [], 'rw-excl');
    await java(ctx.peer, 'readLock', name, 'lock', [LEASE], 'rw-excl');
    expect(await rw.writeLock().tryLock(), 'our write while Java reads').toBe(false);
    await java(ctx.peer, 'readLock', name, 'unlock', [], 'rw-excl');
    expect(await ctx.raw.exists(name), 'hash after unlock').toBe(0);
  });
  ctx.check('rw-exclude', 'ts-to-java', "we write, then read: Java's tryLock()s are refused", async () => {
    const name = uniqueName('interop-rw');
    const rw = ctx.clients.client().getReadWriteLock(name);
    const jtry = (half: Half): Promise<unknown> => java(ctx.peer, half, name, 'tryLock', [], 'rw-excl');
    await rw.writeLock().lock(LEASE);
    expect(await jtry('readLock'), "Java's read while we write").toBe(false);
    expect(await jtry('writeLock'), "Java's write while we write").toBe(false);
    await rw.writeLock().unlock();
    await rw.readLock().lock(LEASE);
    expect(await jtry('writeLock'), "Java's write while we read").toBe(false);
    await rw.readLock().unlock();
    expect(await ctx.raw.exists(name), 'hash after unlock').toBe(0);
  });

  // ----------------------------------------------------------------------------------- wake-ups
  ctx.row('rw-wake-write', PRIMITIVE, "The write unlock (message `1`) wakes every parked reader of the other side");
  ctx.check('rw-wake-write', 'java-to-ts', "Java's write unlock wakes our 3 parked readers (two clients)", async () => {
    const name = uniqueName('interop-rw');
    await java(ctx.peer, 'writeLock', name, 'lock', [LEASE], 'rw-ww');
    const [a, b] = [ctx.clients.client(), ctx.clients.client()];
    const readers = [a, b, a].map((c) => c.getReadWriteLock(name));
    const from = await pttlCalls();
    const acquired = readers.map((r) => r.readLock().lock(LEASE));
    await parked(from, readers.length, 'our readers');
    await java(ctx.peer, 'writeLock', name, 'unlock', [], 'rw-ww');
    await within(Promise.all(acquired), 'our readers');
    expect(Object.keys(await ctx.raw.hgetall(name)).length, 'mode + 3 reader fields').toBe(4);
    for (const r of readers) await r.readLock().unlock();
  });
  ctx.check('rw-wake-write', 'ts-to-java', "our write unlock wakes Java's 2 parked readers", async () => {
    const name = uniqueName('interop-rw');
    const rw = ctx.clients.client().getReadWriteLock(name);
    await rw.writeLock().lock(LEASE);
    const from = await pttlCalls();
    const acquired = ['rw-wr1', 'rw-wr2'].map((t) => java(ctx.peer, 'readLock', name, 'lock', [LEASE], t));
    await parked(from, 2, "Java's readers");
    await queuedOnLatch(['rw-wr1', 'rw-wr2'], "Java's readers");
    await rw.writeLock().unlock();
    await within(Promise.all(acquired), "Java's readers");
    await expectHash(name, { mode: 'read', [await javaField(ctx.peer, 'rw-wr1')]: '1', [await javaField(ctx.peer, 'rw-wr2')]: '1' });
    for (const t of ['rw-wr1', 'rw-wr2']) await java(ctx.peer, 'readLock', name, 'unlock', [], t);
  });

  ctx.row('rw-wake-read', PRIMITIVE, "The last read unlock (message `0`) wakes the other side's parked writer");
  ctx.check('rw-wake-read', 'java-to-ts', "Java's read unlock wakes our parked writer", async () => {
    const name = uniqueName('interop-rw');
    await java(ctx.peer, 'readLock', name, 'lock', [LEASE], 'rw-wr');
    const rw = ctx.clients.client().getReadWriteLock(name);
    const from = await pttlCalls();
    const acquired = rw.writeLock().lock(LEASE);
    await parked(from, 1, 'our writer');
    await java(ctx.peer, 'readLock', name, 'unlock', [], 'rw-wr');
    await within(acquired, 'our writer');
    expect(await ctx.raw.hget(name, 'mode'), 'mode').toBe('write');
    await rw.writeLock().unlock();
  });
  ctx.check('rw-wake-read', 'ts-to-java', "our read unlock wakes Java's parked writer", async () => {
    const name = uniqueName('interop-rw');
    const rw = ctx.clients.client().getReadWriteLock(name);
    await rw.readLock().lock(LEASE);
    const from = await pttlCalls();
    const acquired = java(ctx.peer, 'writeLock', name, 'lock', [LEASE], 'rw-rw');
    await parked(from, 1, "Java's writer");
    await rw.readLock().unlock();
    await within(acquired, "Java's writer");
    await expectHash(name, { mode: 'write', [`${await javaField(ctx.peer, 'rw-rw')}:write`]: '1' });
    await java(ctx.peer, 'writeLock', name, 'unlock', [], 'rw-rw');
  });

  // ----------------------------------------------------------------------------- timeout keys
  ctx.row(
    'rw-timeout-keys',
    PRIMITIVE,
    "A reader's unlock keeps the other side's watchdog read hold past several leases: its `rwlock_timeout` keys are alive (plain and hash-tag names)",
  );
  ctx.check('rw-timeout-keys', 'both', 'each side\'s read unlock after 2 watchdog leases leaves the other side\'s renewed read hold', async () => {
    const outlive = 2 * ctx.shortWatchdogMs + 500;
    const javaUnlocks = async (name: string): Promise<void> => {
      const client = ctx.clients.client({ lockWatchdogTimeout: ctx.shortWatchdogMs });
      const rw = client.getReadWriteLock(name);
      await rw.readLock().lock(); // watchdog: only our renewal keeps the hold and its timeout key
      const thread = `rw-tk-${uniqueName('t')}`;
      await java(ctx.peer, 'readLock', name, 'lock', [], thread);
      await sleep(outlive);
      await java(ctx.peer, 'readLock', name, 'unlock', [], thread);
      await expectHash(name, { mode: 'read', [oursField(rw, client.getId())]: '1' });
      await rw.readLock().unlock();
      expect(await ctx.raw.exists(name), 'hash after our unlock').toBe(0);
    };
    const weUnlock = async (name: string): Promise<void> => {
      const thread = `rw-tk-${uniqueName('t')}`;
      await java(ctx.watchdogPeer, 'readLock', name, 'lock', [], thread); // Java's watchdog only
      const rw = ctx.clients.client().getReadWriteLock(name);
      await rw.readLock().lock();
      await sleep(outlive);
      await rw.readLock().unlock();
      await expectHash(name, { mode: 'read', [await javaField(ctx.watchdogPeer, thread)]: '1' });
      await java(ctx.watchdogPeer, 'readLock', name, 'unlock', [], thread);
      expect(await ctx.raw.exists(name), "hash after Java's unlock").toBe(0);
    };
    const plain = (): string => uniqueName('interop-rw');
    const tagged = (): string => `orders:{${uniqueName('rw')}}:rw`;
    // Java renews one read lock at a time: see SHADOWED_RENEWAL.
    const oneJavaReadLockAtATime = async (): Promise<void> => {
      await weUnlock(plain());
      await weUnlock(tagged());
    };
    await Promise.all([javaUnlocks(plain()), javaUnlocks(tagged()), oneJavaReadLockAtATime()]);
    if (hasShadowedRenewal(ctx.version)) ctx.results.note('rw-timeout-keys', 'ts-to-java', SHADOWED_RENEWAL);
  }, 30_000);

  // ------------------------------------------------------------------------------ downgrade
  ctx.row('rw-downgrade', PRIMITIVE, "Write→read downgrade: the other side's reader may enter, its writer may not");
  // Our write unlock publishes `1` on a downgrade, Java's publishes nothing (COMPATIBILITY.md, "The downgrade
  // wakes parked readers"): each direction checks its own side of that recorded difference. The marker,
  // published on the same channel after the unlock, proves by its position whether anything came before it.
  const messagesUntilMarker = async (name: string, messages: string[]): Promise<string[]> => {
    await ctx.raw.publish(readWriteLockChannelName(name), 'marker');
    await eventually(() => messages.includes('marker'), ctx.hangGuardMs, 'the marker');
    return messages;
  };
  ctx.check('rw-downgrade', 'java-to-ts', 'Java writes, reads, releases the write (publishing nothing, as Redisson): we may read, not write', async () => {
    const name = uniqueName('interop-rw');
    const client = ctx.clients.client();
    const rw = client.getReadWriteLock(name);
    const messages = await collectMessages(ctx.clients.raw(), readWriteLockChannelName(name));
    for (const [half, method] of [['writeLock', 'lock'], ['readLock', 'lock'], ['writeLock', 'unlock']] as const) {
      await java(ctx.peer, half, name, method, method === 'lock' ? [LEASE] : [], 'rw-dg');
    }
    expect(await messagesUntilMarker(name, messages), "messages of Java's downgrade").toEqual(['marker']);
    expect(await rw.writeLock().tryLock(), 'our write after the downgrade').toBe(false);
    expect(await rw.readLock().tryLock(), 'our read after the downgrade').toBe(true);
    await expectHash(name, { mode: 'read', [await javaField(ctx.peer, 'rw-dg')]: '1', [oursField(rw, client.getId())]: '1' });
    await rw.readLock().unlock();
    await java(ctx.peer, 'readLock', name, 'unlock', [], 'rw-dg');
    expect(await ctx.raw.exists(name), 'hash after both unlocks').toBe(0);
  });
  ctx.check('rw-downgrade', 'ts-to-java', "we write, read, release the write (publishing `1`): Java's parked reader wakes; Java may read, not write", async () => {
    const name = uniqueName('interop-rw');
    const client = ctx.clients.client();
    const rw = client.getReadWriteLock(name);
    // Our downgrade is Java's one thread: a runInThread flow of the object's own id (the default ownership).
    await client.runInThread(async () => {
      await rw.writeLock().lock(LEASE);
      await rw.readLock().lock(LEASE);
      const messages = await collectMessages(ctx.clients.raw(), readWriteLockChannelName(name));
      const from = await pttlCalls();
      const parkedReader = java(ctx.peer, 'readLock', name, 'lock', [LEASE], 'rw-dg3');
      await parked(from, 1, "Java's reader");
      await queuedOnLatch(['rw-dg3'], "Java's reader");
      await rw.writeLock().unlock();
      await within(parkedReader, "Java's reader parked behind our writer");
      expect(await messagesUntilMarker(name, messages), 'messages of our downgrade').toEqual(['1', 'marker']);
      expect(await java(ctx.peer, 'writeLock', name, 'tryLock', [], 'rw-dg2'), "Java's write after the downgrade").toBe(false);
      expect(await java(ctx.peer, 'readLock', name, 'tryLock', [], 'rw-dg2'), "Java's read after the downgrade").toBe(true);
      await expectHash(name, {
        mode: 'read',
        [await javaField(ctx.peer, 'rw-dg2')]: '1',
        [await javaField(ctx.peer, 'rw-dg3')]: '1',
        [oursField(rw, client.getId())]: '1',
      });
      for (const t of ['rw-dg2', 'rw-dg3']) await java(ctx.peer, 'readLock', name, 'unlock', [], t);
      await rw.readLock().unlock();
      expect(await ctx.raw.exists(name), 'hash after every unlock').toBe(0);
    }, rw.threadId);
  });
};
