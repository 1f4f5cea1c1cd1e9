/**
 * Duplicate members of a RedLock / MultiLock (issue 24): one lock given twice — one client's lock twice, or the
 * same key on the same server through two clients (two URLs for one server) — is refused with
 * DuplicateLockMemberError before any acquire is sent; what is only alike (another database, another key
 * prefix, another name) is accepted. Assertions are on each server's data and on the commands it received.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { DuplicateLockMemberError, type Redisson, type RedissonOptions } from '../../src/index.js';
import { eventually, uniqueName } from '../support/redis.js';
import { field, useNodes, within } from './multiNode.js';

const nodes = useNodes(3);
const LEASE = 10_000;

const raw = (i: number): Redis => nodes.raws[i] as Redis;
const port = (i: number): number => nodes.servers[i]?.port ?? 0;

/** A client of node `i` reached through `host` (`localhost` is the same server as `127.0.0.1`). */
const clientVia = (i: number, host: string, extra: RedissonOptions = {}): Redisson =>
  nodes.client(port(i), { redis: { host, port: port(i), maxRetriesPerRequest: 1, retryStrategy: () => 20 }, ...extra });

/** Calls of every command that can acquire (scripts) on node `i`. */
async function scripts(i: number): Promise<number> {
  const stats = (await raw(i).call('INFO', 'commandstats')) as string;
  return [...stats.matchAll(/^cmdstat_(?:eval|evalsha|eval_ro|evalsha_ro|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** `call` fails with DuplicateLockMemberError naming members `indexes`, and sends no script to node 0. */
async function refused(call: () => Promise<unknown>, indexes: readonly [number, number]): Promise<DuplicateLockMemberError> {
  const before = await scripts(0);
  const error = await within(
    call().then(
      () => null,
      (e: unknown) => e,
    ),
    10_000,
    'the refused acquisition',
  );
  expect(error).toBeInstanceOf(DuplicateLockMemberError);
  expect((error as DuplicateLockMemberError).indexes).toEqual(indexes);
  expect(await scripts(0)).toBe(before);
  return error as DuplicateLockMemberError;
}

describe('RedLock: one lock given twice is refused', () => {
  it('the same key on one server through two clients, the third node down: refused before any acquire, nothing written', async () => {
    const name = uniqueName('dup');
    const [x, y] = [nodes.client(port(0)), nodes.client(port(0))];
    const down = nodes.client(port(2));
    await nodes.server(2).kill();
    const red = x.getRedLock(x.getLock(name), y.getLock(name), down.getLock(name));
    const error = await refused(() => red.tryLock(-1, LEASE), [0, 1]);
    expect(error.server).toMatch(/^run_id \w{40}, db 0$/);
    expect(error.lockName).toBe(name);
    expect(error.message).toContain(`RedLock members #0 and #1 are one lock '${name}' on one Redis server`);
    // lock() too, instead of retrying rounds that could never count the second member.
    await refused(() => red.lock(LEASE), [0, 1]);
    expect(await raw(0).exists(name)).toBe(0);
  });

  it('two URLs for one server (localhost and 127.0.0.1) are one server', async () => {
    const name = uniqueName('dup');
    const [x, y, z] = [clientVia(0, '127.0.0.1'), clientVia(1, '127.0.0.1'), clientVia(0, 'localhost')];
    const red = x.getRedLock([x.getLock(name), y.getLock(name), z.getLock(name)], { nodeTimeout: 2_000 });
    expect((await refused(() => red.tryLock(100, LEASE), [0, 2])).server).toMatch(/^run_id \w{40}, db 0$/);
    expect(await Promise.all([0, 1].map((i) => raw(i).exists(name)))).toEqual([0, 0]);
  });

  it('a server restarted (a new run_id) is asked again: two clients of it are still recognised', async () => {
    const [x, w] = [nodes.client(port(0)), nodes.client(port(1))];
    // x's server identity is asked (and kept) by a first RedLock whose key another client shares.
    const first = uniqueName('dup');
    const red = x.getRedLock(x.getLock(first), w.getLock(first));
    expect(await red.tryLock(-1, LEASE)).toBe(true);
    await red.unlock();
    const before = /^run_id:(\w+)/m.exec(await raw(0).info('server'))?.[1];
    await nodes.server(0).restart();
    await eventually(() => x.redis.status === 'ready', 10_000, 'x to reconnect');
    expect(/^run_id:(\w+)/m.exec(await raw(0).info('server'))?.[1]).not.toBe(before);
    const name = uniqueName('dup');
    const y = nodes.client(port(0));
    const error = await refused(() => x.getRedLock(x.getLock(name), w.getLock(name), y.getLock(name)).tryLock(-1, LEASE), [0, 2]);
    expect(error.server).not.toContain(before);
  });

  it('one client\'s lock twice (the same object, or two objects of one name, or both halves of one ReadWriteLock) is refused by getRedLock', () => {
    const name = uniqueName('dup');
    const [a, b] = [nodes.client(port(0)), nodes.client(port(1))];
    const lock = a.getLock(name);
    const same = (): unknown => a.getRedLock(lock, b.getLock(name), lock);
    expect(same).toThrow(DuplicateLockMemberError);
    expect(same).toThrow(`RedLock members #0 and #2 are one lock '${name}' of one client`);
    expect(() => a.getRedLock(a.getLock(name), a.getLock(name), b.getLock(name))).toThrow(DuplicateLockMemberError);
    const rw = a.getReadWriteLock(name);
    expect(() => a.getRedLock(rw.readLock(), b.getLock(name), rw.writeLock())).toThrow(DuplicateLockMemberError);
    // Before the fix this RedLock took its "majority" of 2 of 3 on one server (hold count 2 there).
    expect(() => a.getRedLock([lock, lock, b.getLock(name)])).toThrow(DuplicateLockMemberError);
  });

  it('what is only alike is accepted: another database, another keyPrefix, another name on the same server', async () => {
    const name = uniqueName('dup');
    const x = nodes.client(port(0));
    const db1 = nodes.client(port(0), { redis: { host: '127.0.0.1', port: port(0), db: 1 } });
    const prefixed = nodes.client(port(0), { redis: { host: '127.0.0.1', port: port(0), keyPrefix: 'p:' } });
    const red = x.getRedLock(x.getLock(name), db1.getLock(name), prefixed.getLock(name), x.getLock(`${name}:other`));
    expect(await red.tryLock(-1, LEASE)).toBe(true);
    expect(await raw(0).hgetall(name)).toEqual({ [field(x, red.threadId)]: '1' });
    expect(await raw(0).hgetall(`p:${name}`)).toEqual({ [field(prefixed, red.threadId)]: '1' });
    await raw(0).select(1);
    try {
      expect(await raw(0).hgetall(name)).toEqual({ [field(db1, red.threadId)]: '1' });
    } finally {
      await raw(0).select(0);
    }
    await red.unlock();
    expect(await raw(0).exists(name, `p:${name}`, `${name}:other`)).toBe(0);
  });
});

describe('MultiLock: duplicates', () => {
  it('one client\'s lock twice re-enters, as in Redisson (hold count 2), and unlock releases both', async () => {
    const name = uniqueName('dup');
    const [a, b] = [nodes.client(port(0)), nodes.client(port(1))];
    const lock = a.getLock(name);
    const multi = a.getMultiLock(lock, b.getLock(name), lock);
    expect(await multi.tryLock(-1, LEASE)).toBe(true);
    expect(await raw(0).hgetall(name)).toEqual({ [field(a, multi.threadId)]: '2' });
    await multi.unlock();
    expect(await raw(0).exists(name)).toBe(0);
  });

  it('the same key on one server through two clients could never be acquired: refused before any acquire', async () => {
    const name = uniqueName('dup');
    const [x, y] = [clientVia(0, '127.0.0.1'), clientVia(0, 'localhost')];
    const multi = x.getMultiLock(x.getLock(name), y.getLock(name));
    const error = await refused(() => multi.lock(), [0, 1]);
    expect(error.message).toContain(`MultiLock members #0 and #1 are one lock '${name}' on one Redis server`);
    expect(await raw(0).exists(name)).toBe(0);
  });
});
