/**
 * `redisson-ts inspect` on the rest of the family, against data our primitives (or Java-shaped raw writes)
 * put in a real server: a FairLock's queue in order with deadlines and per-waiter channels, a FencedLock's
 * token, a ReadWriteLock's mode with readers' leases and its writer, a semaphore's permits, a latch's count,
 * a PermitExpirableSemaphore's leased permits, and a bare number told apart by its waiters or `--kind`.
 */
import { expect, it } from 'vitest';
import { main } from '../../packages/cli/src/main.js';
import { humanDuration, type LockInfo } from '../../packages/cli/src/inspectCommand.js';
import { TimeUnit } from '../../src/index.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { runMain } from './cliHarness.js';

const suite = useRedis();

const inspect = (...args: string[]) => runMain(main, ['inspect', ...args, '--redis', suite.redis.url]);
const json = async (...args: string[]): Promise<LockInfo> => JSON.parse((await inspect(...args, '--json')).stdout) as LockInfo;
const numsub = async (channel: string): Promise<number> => Number((await suite.clients.raw().pubsub('NUMSUB', channel))[1]);

it('FairLock: the holder, then the queue in request order with each deadline and own-channel subscriber', async () => {
  const name = uniqueName('fair');
  const [a, b, c] = [suite.clients.client(), suite.clients.client(), suite.clients.client()];
  const holder = a.getFairLock(name);
  await holder.lock();
  const first = b.getFairLock(name);
  const second = c.getFairLock(name);
  const waits = [first.tryLock(60_000, 10_000)];
  await eventually(async () => (await suite.clients.raw().llen(`redisson_lock_queue:{${name}}`)) === 1, 5_000, 'the first waiter to queue');
  waits.push(second.tryLock(60_000, 10_000));
  await eventually(async () => (await suite.clients.raw().llen(`redisson_lock_queue:{${name}}`)) === 2, 5_000, 'the second waiter to queue');
  const fields = [`${b.id}:${first.threadId}`, `${c.id}:${second.threadId}`];
  await eventually(async () => (await numsub(`redisson_lock__channel:{${name}}:${fields[1]}`)) === 1, 5_000, 'the second waiter to subscribe');

  const run = await inspect(name);
  expect(run.code).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`fair lock '${name}': held by 1 owner`);
  expect(lines[1]).toMatch(new RegExp(`^\\s+owner\\s+client ${a.id}\\s+thread ${holder.threadId}\\s+holds 1$`));
  expect(lines[3]).toBe('  queue    2 waiters');
  expect(lines[4]).toMatch(new RegExp(`^\\s+1\\. client ${b.id}\\s+thread ${first.threadId}\\s+deadline in \\d+ ms \\(\\d[\\d. a-z]*\\)\\s+own channel subscribers 1$`));
  expect(lines[5]).toMatch(new RegExp(`^\\s+2\\. client ${c.id}\\s+thread ${second.threadId}\\s+deadline in \\d+ ms \\(\\d[\\d. a-z]*\\)\\s+own channel subscribers 1$`));
  const info = await json(name);
  expect(info.primitive).toBe('fairLock');
  expect(info.queue?.map((w) => w.field)).toEqual(fields);
  // Each waiter's deadline is after the one before it (Redisson's queue arithmetic).
  expect((info.queue?.[1]?.deadlineInMs ?? 0) > (info.queue?.[0]?.deadlineInMs ?? 0)).toBe(true);

  await holder.unlock();
  expect(await waits[0]).toBe(true);
  await first.unlock();
  expect(await waits[1]).toBe(true);
  await second.unlock();
  // Nothing left: no key says which primitive it was, unless --kind does.
  expect((await json(name)).primitive).toBeNull();
  expect((await inspect(name, '--kind', 'fair')).stdout.split('\n').slice(0, 2)).toEqual([`fair lock '${name}': not locked (no key)`, '  queue    empty']);
});

it('FencedLock: the owner and the last token issued', async () => {
  const name = uniqueName('fenced');
  const lock = suite.clients.client().getFencedLock(name);
  expect(await lock.lockAndGetToken()).toBe(1);
  await lock.unlock();
  expect(await lock.lockAndGetToken()).toBe(2);
  const run = await inspect(name);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`fenced lock '${name}': held by 1 owner`);
  expect(lines[3]).toBe('  token    2 (the last issued; the next acquisition draws 3)');
  await lock.unlock();
  expect((await inspect(name)).stdout.split('\n')[0]).toBe(`fenced lock '${name}': not locked (no key)`);
  expect(await json(name)).toMatchObject({ primitive: 'fencedLock', token: 2 });
});

it('ReadWriteLock: read mode with each reader and its read leases, then write mode with the writer; its own channel', async () => {
  const name = uniqueName('rw');
  const [x, y] = [suite.clients.client(), suite.clients.client()];
  const rx = x.getReadWriteLock(name);
  const ry = y.getReadWriteLock(name);
  await rx.readLock().lock({ threadId: 5 });
  await rx.readLock().lock({ threadId: 5 }); // re-entered: two read leases
  await ry.readLock().lock({ threadId: 6 });
  const run = await inspect(name);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`read-write lock '${name}': read mode, held by 2 owners`);
  // Hash order is Redis's: either reader may come first.
  expect(lines.slice(1, 3)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`client ${x.id}\\s+thread 5\\s+reads 2\\s+leases \\d+ ms \\(\\d+\\.\\d s\\), \\d+ ms \\(\\d+\\.\\d s\\)$`)),
      expect.stringMatching(new RegExp(`client ${y.id}\\s+thread 6\\s+reads 1\\s+leases \\d+ ms \\(\\d+\\.\\d s\\)$`)),
    ]),
  );
  expect(lines.at(-1)).toBe(`  channel  redisson_rwlock:{${name}}  subscribers 0`);
  const info = await json(name);
  expect(info).toMatchObject({ primitive: 'readWriteLock', mode: 'read', channel: `redisson_rwlock:{${name}}` });
  expect(info.owners.map((o) => o.field).sort()).toEqual([`${x.id}:5`, `${y.id}:6`].sort());
  expect(info.readLeases?.[`${x.id}:5`]?.map((l) => l.key)).toEqual([1, 2].map((k) => `{${name}}:${x.id}:5:rwlock_timeout:${k}`));

  await rx.readLock().unlock({ threadId: 5 });
  await rx.readLock().unlock({ threadId: 5 });
  await ry.readLock().unlock({ threadId: 6 });
  await rx.writeLock().lock({ threadId: 9 });
  const write = (await inspect(name)).stdout.trimEnd().split('\n');
  expect(write[0]).toBe(`read-write lock '${name}': write mode, held by 1 owner`);
  expect(write[1]).toMatch(new RegExp(`client ${x.id}\\s+thread 9\\s+writes 1$`));
  await rx.writeLock().unlock({ threadId: 9 });
});

it('a bare number is a semaphore or a latch: waiters on one channel decide, else it says so and --kind chooses', async () => {
  const name = uniqueName('sem');
  const client = suite.clients.client();
  const semaphore = client.getSemaphore(name);
  await semaphore.trySetPermits(2);
  const unsure = await inspect(name);
  expect(unsure.stdout).toContain(`'${name}' holds the number 2: a semaphore's available permits or a count-down latch's count;`);
  expect(unsure.stdout).toContain('pass --kind semaphore or --kind latch');
  // No lock channel for what is not a lock: the two candidates' channels.
  expect(unsure.stdout).not.toContain('redisson_lock__channel');
  expect(unsure.stdout.trimEnd().split('\n').at(-1)).toBe(`  channels redisson_sc:{${name}} (semaphore), redisson_countdownlatch__channel__{${name}} (latch)`);
  expect((await json(name)).ambiguous).toEqual(['semaphore', 'countDownLatch']);

  expect((await inspect(name, '--kind', 'semaphore')).stdout.split('\n')[0]).toBe(`semaphore '${name}': 2 permits available`);
  const waiting = semaphore.acquire(3); // more than there are: waits on redisson_sc:{name}
  await eventually(async () => (await numsub(`redisson_sc:{${name}}`)) === 1, 5_000, 'the semaphore waiter to subscribe');
  const auto = (await inspect(name)).stdout.trimEnd().split('\n');
  expect(auto).toEqual([`semaphore '${name}': 2 permits available`, `  ttl      no expiry (the key is kept until someone deletes it)`, `  channel  redisson_sc:{${name}}  subscribers 1`]);
  await semaphore.release(1);
  await waiting;

  const latchName = uniqueName('latch');
  const latch = client.getCountDownLatch(latchName);
  await latch.trySetCount(2);
  const awaiting = latch.await();
  await eventually(async () => (await numsub(`redisson_countdownlatch__channel__{${latchName}}`)) === 1, 5_000, 'the latch waiter to subscribe');
  expect((await inspect(latchName)).stdout.split('\n')[0]).toBe(`count-down latch '${latchName}': count 2`);
  await latch.countDown();
  await latch.countDown();
  await awaiting;
  expect((await inspect(latchName, '--kind', 'latch')).stdout.split('\n')[0]).toBe(`count-down latch '${latchName}': open (count 0) (no key)`);
});

it('PermitExpirableSemaphore (Java-shaped data): available permits and each leased permit with its expiry', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName('pes');
  const leased = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const forever = Buffer.from('fedcba9876543210fedcba9876543210', 'hex');
  const [seconds] = await raw.time();
  await raw.set(name, '1');
  await raw.zadd(`{${name}}:timeout`, String(Number(seconds) * 1000 + 60_000), leased);
  await raw.zadd(`{${name}}:timeout`, '922337203685477', forever); // Redisson's score for a permit without a lease
  const lines = (await inspect(name)).stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`permit-expirable semaphore '${name}': 1 permit available, 2 leased`);
  expect(lines[1]).toMatch(/^ {2}permit {3}0123456789abcdef0123456789abcdef {2}expires in \d+ ms \(\d+\.\d s\)$/);
  expect(lines[2]).toBe('  permit   fedcba9876543210fedcba9876543210  never expires');
  expect(lines.at(-1)).toBe(`  channel  redisson_sc:{${name}}  subscribers 0`);
});

it('rejects an unknown --kind before connecting', async () => {
  const run = await runMain(main, ['inspect', 'x', '--kind', 'mutex', '--redis', 'redis://127.0.0.1:1']);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("inspect: --kind must be one of auto, lock, fair, fenced, rwlock, semaphore, latch; got 'mutex'");
});

it('a pattern shows every matching key with its own layout, companion keys folded into their owner; --limit bounds it', async () => {
  const prefix = uniqueName('pat');
  const client = suite.clients.client();
  const lock = client.getLock(`${prefix}:a`);
  await lock.lock();
  const fair = client.getFairLock(`${prefix}:b`);
  await fair.lock();
  // Held with nobody queued, a FairLock is an RLock on the wire; its queue tells them apart.
  expect(JSON.parse((await inspect(`${prefix}:b`, '--json')).stdout)).toMatchObject({ primitive: 'lock' });
  const queued = suite.clients.client().getFairLock(`${prefix}:b`).tryLock(60_000, 10_000);
  await eventually(async () => (await suite.clients.raw().llen(`redisson_lock_queue:{${prefix}:b}`)) === 1, 5_000, 'the waiter to queue');
  const fenced = client.getFencedLock(`${prefix}:c`);
  await fenced.lockAndGetToken();
  await fenced.unlock(); // only its token key is left: a companion, not listed apart
  const run = await inspect(`${prefix}:*`);
  expect(run.code).toBe(0);
  const blocks = run.stdout.trimEnd().split('\n\n');
  expect(blocks[0]).toBe(`2 keys match '${prefix}:*'`);
  expect(blocks[1]?.split('\n')[0]).toBe(`lock '${prefix}:a': held by 1 owner`);
  expect(blocks[2]?.split('\n')[0]).toBe(`fair lock '${prefix}:b': held by 1 owner`);
  const parsed = JSON.parse((await inspect(`${prefix}:*`, '--json')).stdout) as { pattern: string; truncated: boolean; keys: LockInfo[] };
  expect(parsed.pattern).toBe(`${prefix}:*`);
  expect(parsed.keys.map((k) => [k.name, k.primitive])).toEqual([
    [`${prefix}:a`, 'lock'],
    [`${prefix}:b`, 'fairLock'],
  ]);
  const limited = await inspect(`${prefix}:*`, '--limit', '1');
  expect(limited.stdout.split('\n')[0]).toBe(`1 key shown (more match: raise --limit) '${prefix}:*'`);
  expect((await inspect(`${prefix}:zz*`)).stdout).toBe(`no key matches '${prefix}:zz*'\n`);
  await lock.unlock();
  await fair.unlock();
  expect(await queued).toBe(true);
});

it('--exit-code: 0 while held (lock owner, no free permit, latch closed), 3 once free; human TTLs', async () => {
  const name = uniqueName('exit');
  const lock = suite.clients.client().getLock(name);
  await lock.lock(90, TimeUnit.MINUTES);
  const held = await inspect(name, '--exit-code');
  expect(held.code).toBe(0);
  expect(held.stdout).toMatch(/ttl\s+\d+ ms \(1 h 29 min\)/);
  await lock.unlock();
  expect((await inspect(name, '--exit-code')).code).toBe(3);

  const sem = suite.clients.client().getSemaphore(uniqueName('exit-sem'));
  await sem.trySetPermits(1);
  expect((await inspect(sem.getName(), '--kind', 'semaphore', '--exit-code')).code).toBe(3);
  await sem.acquire();
  expect((await inspect(sem.getName(), '--kind', 'semaphore', '--exit-code')).code).toBe(0);
  const latch = suite.clients.client().getCountDownLatch(uniqueName('exit-latch'));
  await latch.trySetCount(1);
  expect((await inspect(latch.getName(), '--kind', 'latch', '--exit-code')).code).toBe(0);
  await latch.countDown();
  expect((await inspect(latch.getName(), '--kind', 'latch', '--exit-code')).code).toBe(3);
  expect(humanDuration(999)).toBe('999 ms');
  expect(humanDuration(24_981)).toBe('24.9 s');
  expect(humanDuration(250_000)).toBe('4 min 10 s');
  expect(humanDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
});

it('--watch reports each round stamped with the time until --count (or Ctrl-C), and sees the lock change between rounds', async () => {
  const name = uniqueName('watch');
  const lock = suite.clients.client().getLock(name);
  await lock.lock();
  // The lock is released after the first round has been read: the last round must show it free.
  let rounds = 0;
  let stdout = '';
  const code = await main(['inspect', name, '--watch', '--interval', '50', '--count', '3', '--exit-code', '--redis', suite.redis.url], {
    stdout: {
      write: (text: string) => {
        stdout += text;
        if (++rounds === 1) void lock.unlock();
      },
    },
    stderr: { write: () => undefined },
    onInterrupt: () => () => undefined,
  });
  const stamps = stdout.match(/^--- \d{4}-\d\d-\d\dT[\d:.]+Z ---$/gm) ?? [];
  expect(stamps).toHaveLength(3);
  expect(stdout.split('--- ')[1]).toContain(`lock '${name}': held by 1 owner`);
  expect(stdout.split('--- ').at(-1)).toContain(`lock '${name}': not locked (no key)`);
  expect(code).toBe(3); // free at the last round

  // Ctrl-C ends an endless watch after the round in progress.
  let interrupt: (() => void) | undefined;
  let lines = 0;
  const json = main(['inspect', name, '--watch', '--json', '--interval', '50', '--redis', suite.redis.url], {
    stdout: {
      write: (text: string) => {
        lines += text.trimEnd().split('\n').length;
        const row = JSON.parse(text.trimEnd()) as { at: string; name: string };
        expect(row.name).toBe(name);
        if (lines === 2) interrupt?.();
      },
    },
    stderr: { write: () => undefined },
    onInterrupt: (cleanup) => {
      interrupt = () => void cleanup();
      return () => undefined;
    },
  });
  expect(await json).toBe(0);
  expect(lines).toBe(2);
});

it('--interval and --count without --watch are usage errors', async () => {
  const run = await runMain(main, ['inspect', 'x', '--count', '2', '--redis', 'redis://127.0.0.1:1']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('--interval and --count go with --watch');
});
