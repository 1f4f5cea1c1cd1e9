/**
 * Which driver a run uses, proven on the server side: every connection a Redisson client opens — the
 * command connection and the subscriber — speaks the protocol the run asked for (`CLIENT LIST` `resp=`).
 * ioredis 6 defaults to RESP3 (`HELLO 3`) and REDIS_PROTOCOL=2 turns it back to RESP2 (the ioredis 6 legs,
 * test/package/ioredis6.config.ts); ioredis 5 always speaks RESP2. A waiter woken through its channel
 * proves the subscription works on that protocol (under RESP3 messages arrive as push frames).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TimeUnit } from '../../src/index.js';
import { useRedis, uniqueName, within } from '../support/redis.js';

const suite = useRedis();

function driver(): { name: string; version: string; protocol: number } {
  const dir = process.env['IOREDIS_DIR'];
  const load = createRequire(dir === undefined ? import.meta.url : join(dir, 'package.json'));
  const { name, version } = load(dir === undefined ? 'ioredis/package.json' : './package.json') as { name: string; version: string };
  const asked = process.env['REDIS_PROTOCOL'];
  // iovalkey (0.x, forked from ioredis 5) sends no HELLO: RESP2 only. ioredis 6+ defaults to RESP3.
  const resp3 = name === 'ioredis' && Number(version.split('.')[0]) >= 6;
  return { name, version, protocol: asked !== undefined ? Number(asked) : resp3 ? 3 : 2 };
}

/** `CLIENT LIST` as one record per connection. */
async function clientList(raw: Redis): Promise<Map<string, Record<string, string>>> {
  const text = (await raw.call('CLIENT', 'LIST')) as string;
  const entries = text.split('\n').filter((line) => line.trim() !== '').map((line) => Object.fromEntries(line.trim().split(' ').map((kv) => kv.split('=', 2) as [string, string])));
  return new Map(entries.map((e) => [e['id'] ?? '', e]));
}

describe('driver under test', () => {
  it('every connection of a Redisson client speaks the protocol of the run; a waiter is woken through its channel', async () => {
    const { version, protocol } = driver();
    const raw = suite.clients.raw();
    const before = await clientList(raw);
    const holder = suite.clients.client();
    const waiterClient = suite.clients.client();
    const name = uniqueName('driver');
    const lock = holder.getLock(name);
    await lock.lock();
    const waiting = waiterClient.getLock(name).lock();
    let mine: Record<string, string>[] = [];
    // The waiter's subscriber connection shows up subscribed once it waits for the message.
    for (let i = 0; i < 500; i++) {
      mine = [...(await clientList(raw)).entries()].filter(([id]) => !before.has(id)).map(([, e]) => e);
      if (mine.some((e) => e['sub'] === '1')) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(mine.some((e) => e['sub'] === '1'), JSON.stringify(mine)).toBe(true);
    expect(mine.map((e) => e['resp']), `${driver().name} ${version}`).toEqual(mine.map(() => String(protocol)));
    await lock.unlock();
    await within(waiting, 10_000, 'the waiter woken by the unlock message');
    expect(await waiterClient.getLock(name).isLocked()).toBe(true);
  });

  it('a process a test forks (as the fault suite and the interop crash rows do) loads the same ioredis, with the same protocol', () => {
    const script = "const { Redis } = await import('ioredis'); console.log(JSON.stringify({ at: import.meta.resolve('ioredis'), protocol: Redis.defaultOptions.protocol ?? 2 }));";
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const seen = JSON.parse(child.stdout) as { at: string; protocol: number };
    const dir = process.env['IOREDIS_DIR'] ?? fileURLToPath(new URL('../../node_modules/ioredis', import.meta.url));
    expect(fileURLToPath(seen.at).startsWith(join(dir, '/'))).toBe(true);
    expect(seen.protocol).toBe(driver().protocol);
  });

  it('the replies redisson-ts reads keep their RESP2 shapes: script nil/false, integers, tables; INFO text; reply errors named ReplyError', async () => {
    const raw = suite.clients.raw();
    // Scripts answer in RESP2 terms unless they call redis.setresp(3), which ours never do.
    expect(await raw.eval("return {false, redis.call('get', KEYS[1]), 7, {'a', 1}}", 1, uniqueName('absent'))).toEqual([null, null, 7, ['a', 1]]);
    expect(await raw.eval('return false', 0)).toBeNull();
    expect(await raw.eval('return true', 0)).toBe(1);
    expect(await raw.info('replication')).toMatch(/^# Replication\r\nrole:master\r\n/);
    const failed = await raw.eval("return redis.error_reply('LOCKED by someone')", 0).then(() => null, (e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect([(failed as Error).name, (failed as Error).message]).toEqual(['ReplyError', 'LOCKED by someone']);
  });

  it("a client given the app's connection with ioredis 6's replyMapping 'resp3' (maps as objects, doubles as numbers) works the same", async () => {
    // ioredis 5 ignores both options; ioredis 6 needs protocol 3 for the 'resp3' mapping.
    const mine = suite.clients.raw({ protocol: 3, replyMapping: 'resp3' } as object);
    // The mapping took (ioredis 6): a map reply is an object, not the flat RESP2 array.
    expect(!Array.isArray(await mine.config('GET', 'maxmemory'))).toBe(driver().name === 'ioredis' && Number(driver().version.split('.')[0]) >= 6);
    const client = suite.clients.client({ redis: mine });
    const name = uniqueName('mapping');
    const lock = client.getLock(`${name}:lock`);
    await lock.lock(10, TimeUnit.SECONDS);
    expect([await lock.getHoldCount(), await lock.isLocked(), (await lock.remainTimeToLive()) > 0]).toEqual([1, true, true]);
    await lock.unlock();
    const fair = client.getFairLock(`${name}:fair`);
    expect(await fair.tryLock()).toBe(true);
    await fair.unlock();
    const rw = client.getReadWriteLock(`${name}:rw`);
    await rw.readLock().lock();
    expect(await rw.writeLock().tryLock()).toBe(false);
    await rw.readLock().unlock();
    const sem = client.getSemaphore(`${name}:sem`);
    expect(await sem.trySetPermits(2)).toBe(true);
    expect(await sem.tryAcquire(2)).toBe(true);
    expect(await sem.availablePermits()).toBe(0);
    await sem.release(2);
    const pes = client.getPermitExpirableSemaphore(`${name}:pes`);
    expect(await pes.trySetPermits(1)).toBe(true);
    const id = await pes.acquire(30, TimeUnit.SECONDS);
    const lease = await pes.getLeaseTime(id);
    expect(typeof lease === 'number' && lease > 0 && lease <= 30_000).toBe(true);
    expect(await pes.tryRelease(id)).toBe(true);
    const latch = client.getCountDownLatch(`${name}:latch`);
    expect(await latch.trySetCount(1)).toBe(true);
    await latch.countDown();
    expect(await latch.getCount()).toBe(0);
  });

  it('the key prefix option reaches a command sent by call() with an upper-case name on ioredis, not on iovalkey (why the connection layer sends names in lower case)', async () => {
    // ioredis 5.9+ looks command names up case-insensitively to find their keys; iovalkey 0.4.0 looks up the
    // name as given, so call('HGET', key) goes out unprefixed while hget(key) and defined scripts are
    // prefixed. So the ioredis driver sends its plain commands through call() in lower case.
    const name = uniqueName('prefixed');
    const prefixed = suite.clients.raw({ keyPrefix: 'kp:' });
    await prefixed.hset(name, 'f', 'v');
    const seen = [await prefixed.call('HGET', name, 'f'), await prefixed.call('hget', name, 'f'), await prefixed.hget(name, 'f')];
    expect(seen).toEqual([driver().name === 'iovalkey' ? null : 'v', 'v', 'v']);
    expect(await suite.clients.raw().exists(`kp:${name}`)).toBe(1);
  });
});
