/**
 * Our scripts leave the ioredis connection as it was (issue 29). ioredis' `defineCommand` adds two methods per
 * script to the object it is called on; called on the connection, our 51 scripts made 102 own properties, and V8
 * then keeps the connection as a dictionary-mode object, on which every property read ioredis makes while sending
 * any command — the user's own ones too, on a connection they gave us — is a hash lookup. Pipelines made from
 * the connection copied every one of them. Here a user's connection is used by redisson-ts as is (it does not
 * re-send unanswered commands, so it is not duplicated) and must come out with the same own properties as a
 * twin connection nobody used for locks, and pipelines made from it with no script method.
 */
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function connection(): Redis {
  const redis = new Redis(suite.redis.url, { autoResendUnfulfilledCommands: false });
  closers.push(() => redis.quit());
  return redis;
}

it('a connection given to redisson-ts gains no property from its scripts, and its pipelines none', async () => {
  const used = connection();
  const twin = connection();
  const client = Redisson.create({ redis: used });
  closers.unshift(() => client.shutdown());
  // The connection is used as given, not duplicated: the scripts run on this very object.
  expect(client.connection).toBe(used);

  const lock = client.getLock(uniqueName());
  await lock.lock();
  await lock.unlock();
  expect(await client.getLock(uniqueName()).tryLock()).toBe(true);
  await Promise.all([used.ping(), twin.ping()]);

  expect(Object.keys(used).sort()).toEqual(Object.keys(twin).sort());
  expect(Object.getOwnPropertyNames(used).filter((name) => /^redissonTs|^s\d+(Buffer)?$/.test(name))).toEqual([]);
  const pipeline = used.pipeline();
  expect(Object.keys(pipeline).sort()).toEqual(Object.keys(twin.pipeline()).sort());
});

it('two clients on one connection share its scripts, and each script still runs there', async () => {
  const shared = connection();
  const a = Redisson.create({ redis: shared });
  const b = Redisson.create({ redis: shared });
  closers.unshift(() => a.shutdown(), () => b.shutdown());
  const name = uniqueName();
  await a.getLock(name).lock();
  expect(await b.getLock(name).tryLock()).toBe(false);
  await a.getLock(name).forceUnlock();
  expect(await b.getLock(name).tryLock()).toBe(true);
  expect(await shared.hlen(name)).toBe(1);
});
