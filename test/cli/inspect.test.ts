/**
 * `redisson-ts inspect` against real lock data: a lock held by our client (reentrant, with a waiter),
 * a Java-shaped foreign owner written by raw HSET, a plain string key, and no key at all.
 */
import { expect, it } from 'vitest';
import { main } from '../../packages/cli/src/main.js';
import { escapeControl, parseOwnerField, type LockInfo } from '../../packages/cli/src/inspectCommand.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { runMain } from './cliHarness.js';

const suite = useRedis();

/** Any C0 control but the report's own newlines, DEL, or a C1 control. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

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
  expect(lines[2]).toMatch(/^\s+ttl\s+(\d+) ms \(\d+\.\d s\)$/);
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
  expect(lines[2]).toMatch(/ttl\s+2\d{4} ms \(2\d\.\d s\)$/);
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

it('escapes control characters of a hostile name and hash field in the human output; --json keeps them exact', async () => {
  const raw = suite.clients.raw();
  // ESC sequences (colour, cursor up, clear line), BEL, newline, tab, CR, DEL and a C1 CSI: each could forge
  // or hide lines on an operator's terminal if printed raw.
  const prefix = uniqueName('evil');
  const name = `${prefix}\x1b[2K\r\x07\nlock 'x': not locked\x7f\x9b`;
  const shown = `${prefix}\\x1b[2K\\r\\x07\\nlock 'x': not locked\\x7f\\x9b`;
  const field = `fake\x1b[1A\n  owner    client trusted\tthread 1\u0085:7`;
  await raw.hset(name, field, '1');
  await raw.hset(name, 'mode', 'write\x1b]0;title\x07');
  await raw.pexpire(name, 25_000);
  try {
    const run = await inspect(name);
    expect(run.code).toBe(0);
    // Nothing but newlines between the report's own lines, and no other C0, DEL or C1 character at all.
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`lock '${shown}': held by 2 owners`);
    expect(lines.slice(1, 3).sort()).toEqual(
      [
        `  owner    client fake\\x1b[1A\\n  owner    client trusted\\tthread 1\\x85  thread 7  holds 1`,
        `  owner    client mode  (not a <uuid>:<threadId> field)  holds "mode"`,
      ].sort(),
    );
    expect(lines[3]).toMatch(/^ {2}ttl {6}\d+ ms \(\d+\.\d s\)$/);
    expect(lines[4]).toBe(`  channel  redisson_lock__channel:{${shown}}  subscribers 0`);

    const json = JSON.parse((await inspect(name, '--json')).stdout) as LockInfo;
    expect(json.name).toBe(name);
    expect(json.owners.map((o) => o.field).sort()).toEqual([field, 'mode'].sort());
  } finally {
    await raw.del(name);
  }
});

it('escapeControl: C0, DEL, C1, separators and bidi overrides visibly; a backslash doubled; text otherwise kept', () => {
  expect(escapeControl('a\x1bb\x07c\nd\te\rf\x00g\x7fh\x80i\x9fj')).toBe('a\\x1bb\\x07c\\nd\\te\\rf\\x00g\\x7fh\\x80i\\x9fj');
  expect(escapeControl('x\u2028y\u202ez\u2066')).toBe('x\\u2028y\\u202ez\\u2066');
  expect(escapeControl('C:\\x1b')).toBe('C:\\\\x1b');
  expect(escapeControl('plain {tag}:ü ñ 😀 \u00a0')).toBe('plain {tag}:ü ñ 😀 \u00a0');
});

it('escapes a hostile plain-string value and a hostile extra argument', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName('evilstr');
  await raw.set(name, 'v\x1b[31m"\n');
  try {
    const run = await inspect(name);
    expect(run.stdout).toContain(`'${name}' is a plain string key, not a Redisson lock: value "v\\x1b[31m\\"\\n"`);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
  } finally {
    await raw.del(name);
  }
  const bad = await inspect(name, 'extra\x1b]0;pwned\x07');
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain(`unexpected argument 'extra\\x1b]0;pwned\\x07'`);
});
