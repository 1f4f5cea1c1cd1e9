/**
 * `redisson-ts inspect` against real lock data: a lock held by our client (reentrant, with a waiter),
 * a Java-shaped foreign owner written by raw HSET, a plain string key, and no key at all.
 */
import { expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseOwnerField, type LockInfo } from '../../src/cli/inspectCommand.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { runMain } from './cliHarness.js';

const suite = useRedis();

const inspect = (...args: string[]) => runMain(main, ['inspect', ...args, '--redis', suite.redis.url]);

it('shows our client as owner: UUID, thread id, hold count, TTL, channel with its waiting subscriber', async () => {
  const holder = suite.clients.client();
  const name = uniqueName('inspect');
  const lock = holder.getLock(name);
  await lock.lock({ threadId: 7 });
  await lock.lock({ threadId: 7 }); // one owner re-enters: holds 2
  const waiterClient = suite.clients.client();
  const waiter = waiterClient.getLock(name);
  const waiting = waiter.lock();
  const raw = suite.clients.raw();
  await eventually(async () => Number((await raw.pubsub('NUMSUB', `redisson_lock__channel:{${name}}`))[1]) === 1, 5_000, 'the waiter to subscribe');

  const text = await inspect(name);
  expect(text.code).toBe(0);
  expect(text.stderr).toBe('');
  const lines = text.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`lock '${name}': held by 1 owner`);
  expect(lines[1]).toMatch(new RegExp(`^\\s+owner\\s+client ${holder.id}\\s+thread 7\\s+holds 2$`));
  expect(lines[2]).toMatch(/^\s+ttl\s+(\d+) ms$/);
  const ttl = Number(/(\d+) ms/.exec(lines[2] ?? '')?.[1]);
  expect(ttl).toBeGreaterThan(20_000);
  expect(ttl).toBeLessThanOrEqual(30_000);
  expect(lines[3]).toMatch(new RegExp(`^\\s+channel\\s+redisson_lock__channel:\\{${name}\\}\\s+subscribers 1$`));

  const json = await inspect(name, '--json');
  const info = JSON.parse(json.stdout) as LockInfo;
  expect(info).toMatchObject({
    name,
    type: 'hash',
    channel: `redisson_lock__channel:{${name}}`,
    subscribers: 1,
    owners: [{ field: `${holder.id}:7`, clientId: holder.id, threadId: 7, holdCount: 2 }],
  });

  await lock.unlock({ threadId: 7 });
  await lock.unlock({ threadId: 7 });
  await waiting;
  const after = JSON.parse((await inspect(name, '--json')).stdout) as LockInfo;
  expect(after.owners).toEqual([{ field: `${waiterClient.id}:${waiter.threadId}`, clientId: waiterClient.id, threadId: waiter.threadId, holdCount: 1 }]);
  await waiter.unlock();
});

it('splits a Java Redisson owner field and uses the unbraced channel for a name with a hash tag', async () => {
  const raw = suite.clients.raw();
  const name = `{${uniqueName('java')}}:order`;
  const javaClientId = '7c0a3f0e-5d2b-4e8a-9c61-2b4f8e1d9a37';
  await raw.hset(name, `${javaClientId}:84`, '3');
  await raw.pexpire(name, 25_000);

  const run = await inspect(name);
  expect(run.code).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`lock '${name}': held by 1 owner`);
  expect(lines[1]).toMatch(new RegExp(`client ${javaClientId}\\s+thread 84\\s+holds 3$`));
  expect(lines[2]).toMatch(/ttl\s+2\d{4} ms$/);
  expect(lines[3]).toMatch(new RegExp(`channel\\s+redisson_lock__channel:${name.replace(/[{}]/g, '\\$&')}\\s+subscribers 0$`));
  await raw.del(name);
});

it('reports a missing key as not locked, and a plain string key as not a Redisson lock, with its missing expiry', async () => {
  const raw = suite.clients.raw();
  const free = uniqueName('free');
  const run = await inspect(free);
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(`lock '${free}': not locked (no key)\n  channel  redisson_lock__channel:{${free}}  subscribers 0\n`);

  const setnx = uniqueName('setnx');
  await raw.set(setnx, 'locked');
  const str = await inspect(setnx);
  expect(str.stdout).toContain(`'${setnx}' is a plain string key, not a Redisson lock: value "locked"`);
  expect(str.stdout).toMatch(/ttl\s+no expiry/);
  await raw.del(setnx);
});

it('parseOwnerField keeps fields that are not <uuid>:<threadId> whole', () => {
  expect(parseOwnerField('abc:12', '1')).toEqual({ field: 'abc:12', clientId: 'abc', threadId: 12, holdCount: 1 });
  expect(parseOwnerField('mode', 'write')).toEqual({ field: 'mode', clientId: 'mode', threadId: null, holdCount: null });
  expect(parseOwnerField('a:b:c', '2')).toEqual({ field: 'a:b:c', clientId: 'a:b:c', threadId: null, holdCount: 2 });
});
