/**
 * Safe by default in Node (issue 9): one lock object shared by concurrent flows — Java's
 * `private final RLock` — gives each acquisition its own owner, so the flows exclude each other; a
 * `lock()` that was not awaited cannot leave a hold kept alive by the watchdog; the hold API
 * (`acquire`, `tryAcquire`, `withLock`, `await using`) releases exactly once and signals a lost hold.
 */
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { IllegalMonitorStateError, LockLostError, type LockHold } from '../../src/index.js';
import { eventually, sleep, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();

/** Collects process warnings with `code` while `fn` runs. */
async function warningsDuring(code: string, fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (w: Error & { code?: string }): void => {
    if (w.code === code) seen.push(w.message);
  };
  process.on('warning', listener);
  try {
    await fn();
    await sleep(20); // warnings are emitted on the next tick
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

it('one RLock object shared by 8 concurrent flows in each of 3 clients never admits two of them', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName();
  const counter = `${name}:counter`;
  let inside = 0;
  let maxInside = 0;
  const flows = [];
  for (let c = 0; c < 3; c++) {
    const shared = suite.clients.client().getLock(name); // module-level, like Java's `private final RLock`
    for (let f = 0; f < 8; f++) {
      flows.push(
        (async () => {
          for (let i = 0; i < 5; i++) {
            await shared.lock();
            try {
              inside++;
              maxInside = Math.max(maxInside, inside);
              const value = Number(await raw.get(counter));
              await sleep(1);
              await raw.set(counter, String(value + 1));
              inside--;
            } finally {
              await shared.unlock();
            }
          }
        })(),
      );
    }
  }
  await Promise.all(flows);
  expect(maxInside).toBe(1);
  expect(await raw.get(counter)).toBe(String(3 * 8 * 5));
  expect(await raw.exists(name)).toBe(0);
});

it('sequential use of one object keeps one owner id, as one Java thread', async () => {
  const raw = suite.clients.raw();
  const client = suite.clients.client();
  const name = uniqueName();
  const lock = client.getLock(name);
  await lock.lock();
  expect(await raw.hgetall(name)).toEqual({ [`${client.id}:${lock.threadId}`]: '1' });
  const first = lock.threadId;
  await lock.unlock();
  await lock.lock();
  expect(lock.threadId).toBe(first);
  await lock.unlock();
});

it('a lock() that was not awaited: unlock() says so, cancels it, and the hold never stays behind', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName();
  const holder = suite.clients.client().getLock(name);
  await holder.lock(60_000);
  const lock = suite.clients.client().getLock(name);

  const warnings = await warningsDuring('REDISSON_TS_UNAWAITED_LOCK', async () => {
    const forgotten = lock.lock(); // the missing `await`
    const error = await lock.unlock().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IllegalMonitorStateError);
    expect((error as Error).message).toMatch(/had not completed \(was it awaited\?\)/);
    await expect(forgotten).rejects.toBe(error);
  });
  expect(warnings).toHaveLength(1);
  await holder.unlock();
  // Nobody waits now: the lock stays free (the cancelled acquisition neither waits on nor takes it).
  await sleep(200);
  expect(await raw.exists(name)).toBe(0);
});

it('a lock() not awaited on a free lock: the acquisition in flight is undone, not kept alive by the watchdog', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName();
  const client = suite.clients.client({ lockWatchdogTimeout: 1_000 });
  const lock = client.getLock(name);
  const forgotten = lock.lock();
  await expect(lock.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
  await expect(forgotten).rejects.toBeInstanceOf(IllegalMonitorStateError);
  await eventually(async () => (await raw.exists(name)) === 0, 5_000, 'the late acquisition undone');
  await sleep(1_200); // longer than the lease: a renewed hold would still be there
  expect(await raw.exists(name)).toBe(0);
});

it('re-locking the same object in the same flow waits for itself, and a warning says why', async () => {
  const client = suite.clients.client({ lockWatchdogTimeout: 300 });
  const lock = client.getLock(uniqueName());
  await lock.lock();
  const controller = new AbortController();
  const warnings = await warningsDuring('REDISSON_TS_SELF_WAIT', async () => {
    const again = lock.lock({ signal: controller.signal });
    await sleep(500);
    controller.abort(new Error('stop'));
    await expect(again).rejects.toThrow('stop');
  });
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/hold\.reenter\(\), client\.runInThread\(\) or an explicit threadId/);
  await lock.unlock();
  expect(await lock.isLocked()).toBe(false);
});

it('acquire() returns a hold: `await using` releases it, reenter() re-enters as its owner', async () => {
  const raw = suite.clients.raw();
  const client = suite.clients.client();
  const name = uniqueName();
  const lock = client.getLock(name);
  let seen: LockHold | undefined;
  {
    await using hold = await lock.acquire();
    seen = hold;
    const field = `${client.id}:${hold.threadId}`;
    expect(await raw.hgetall(name)).toEqual({ [field]: '1' });
    const inner = await hold.reenter();
    expect(inner.threadId).toBe(hold.threadId);
    expect(await raw.hget(name, field)).toBe('2');
    await inner.release();
    expect(await raw.hget(name, field)).toBe('1');
    expect(await client.getLock(name).tryAcquire()).toBeNull();
  }
  expect(seen.released).toBe(true);
  expect(await raw.exists(name)).toBe(0);
  await seen.release(); // idempotent: no second unlock
});

it('withLock() always releases, also when the work throws; concurrent withLock calls exclude each other', async () => {
  const raw = suite.clients.raw();
  const client = suite.clients.client();
  const name = uniqueName();
  await expect(client.withLock(name, () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
  expect(await raw.exists(name)).toBe(0);
  const order: string[] = [];
  const lock = client.getLock(name);
  await Promise.all(
    ['a', 'b', 'c'].map((id) =>
      lock.withLock(async (signal) => {
        expect(signal.aborted).toBe(false);
        order.push(`in:${id}`);
        await sleep(10);
        order.push(`out:${id}`);
      }),
    ),
  );
  for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i]?.replace('in', 'out'));
  expect(await raw.exists(name)).toBe(0);
});

it('a hold\'s signal aborts with LockLostError when its lease runs out', async () => {
  const lock = suite.clients.client().getLock(uniqueName());
  const hold = await lock.acquire({ leaseTime: 200 });
  const reason = await new Promise((resolve) => hold.signal.addEventListener('abort', () => resolve(hold.signal.reason), { once: true }));
  expect(reason).toBeInstanceOf(LockLostError);
  await expect(hold.release()).rejects.toBeInstanceOf(IllegalMonitorStateError);
});

it("a leased hold's signal aborts only once Redis no longer has the hold, however early the client's lease timer fires", async () => {
  // The client's lease timer is an estimate: it may fire before Redis expires the key (a timer a ms early,
  // clocks apart). Forced here by giving the key a longer life in Redis than the hold's 200 ms lease.
  const lock = suite.clients.client().getLock(uniqueName());
  const raw = suite.clients.raw();
  const hold = await lock.acquire({ leaseTime: 200 });
  await raw.pexpire(lock.getName(), 1_500);
  const reason = await new Promise((resolve) => hold.signal.addEventListener('abort', () => resolve(hold.signal.reason), { once: true }));
  expect(reason).toBeInstanceOf(LockLostError);
  expect(await raw.exists(lock.getName())).toBe(0);
  // So the release after it reliably reports that the hold was not held any more.
  await expect(hold.release()).rejects.toBeInstanceOf(IllegalMonitorStateError);
});

it('hold options are checked before anything is sent', async () => {
  const lock = suite.clients.client().getLock(uniqueName());
  await expect(lock.acquire({ leaseTim: 5 } as never)).rejects.toThrow(/^Unknown option `leaseTim` in acquire options \(did you mean `leaseTime`\?\); accepted: `leaseTime`, `signal`, `threadId`$/);
  await expect(lock.acquire({ waitTime: 5 } as never)).rejects.toThrow(/^Unknown option `waitTime` in acquire options \(`waitTime` is an option of tryAcquire; acquire waits as long as it takes\)/);
  await expect(lock.acquire(new Date() as never)).rejects.toThrow('Expected acquire options to be a plain object, got [object Date]');
  await expect(lock.tryAcquire({ waitTime: Number.NaN })).rejects.toBeInstanceOf(TypeError);
  await expect(lock.acquire([] as never)).rejects.toBeInstanceOf(TypeError);
});

it('the client is a node:events EventEmitter: events.once() works, reconnecting is forwarded, a throwing listener only warns', async () => {
  const client = suite.clients.client({ lockWatchdogTimeout: 300 });
  client.on('lockLost', () => {
    throw new Error('bug in a listener');
  });
  const name = uniqueName();
  await client.getLock(name).lock();
  const lost = once(client, 'lockLost');
  await suite.clients.raw().del(name);
  const [event] = (await lost) as [{ name: string }];
  expect(event.name).toBe(name);
  const reconnecting = once(client, 'reconnecting');
  await suite.clients.raw().client('KILL', 'TYPE', 'normal');
  const [delay] = (await reconnecting) as [number];
  expect(typeof delay).toBe('number');
});

it('warns once per client on a lease below one second, naming the lock and the opt-out; not for derived MultiLock member leases', async () => {
  const name = uniqueName();
  const client = suite.clients.client({ shortLeaseWarning: true });
  const lock = client.getLock(name);
  const raw = suite.clients.raw();
  const first = await warningsDuring('REDISSON_TS_SHORT_LEASE', async () => {
    await lock.lock(30);
    expect(await raw.pttl(name)).toBeLessThanOrEqual(30); // still Redisson's unit: a 30 ms lease
    await lock.unlock();
    await lock.tryLock(0, 50); // a second short lease on the same client: no second warning
    await lock.unlock();
  });
  expect(first).toHaveLength(1);
  expect(first[0]).toMatch(new RegExp(`"${name}" was given a lease of 30 ms\\. Times are milliseconds unless a TimeUnit follows .*shortLeaseWarning: false`));

  // Leases of a second or more, watchdog leases, and a client that opted out: no warning.
  const quiet = await warningsDuring('REDISSON_TS_SHORT_LEASE', async () => {
    const other = suite.clients.client({ shortLeaseWarning: true }).getLock(uniqueName());
    await other.lock(1_000);
    await other.unlock();
    await (await other.acquire()).release();
    const optedOut = suite.clients.client({ shortLeaseWarning: false }).getLock(uniqueName());
    await optedOut.lock(5);
    // A MultiLock with a 10 s lease asks its members for twice its 100 ms wait (200 ms): not the caller's lease.
    const members = suite.clients.client({ shortLeaseWarning: true });
    const multi = members.getMultiLock(members.getLock(uniqueName()), members.getLock(uniqueName()));
    expect(await multi.tryLock(100, 10_000)).toBe(true);
    await multi.unlock();
  });
  expect(quiet).toEqual([]);

  const multiClient = suite.clients.client({ shortLeaseWarning: true });
  const [a, b] = [uniqueName(), uniqueName()];
  const multiWarned = await warningsDuring('REDISSON_TS_SHORT_LEASE', async () => {
    const multi = multiClient.getMultiLock(multiClient.getLock(a), multiClient.getLock(b));
    await multi.lock(500);
    await multi.unlock();
  });
  expect(multiWarned).toEqual([expect.stringContaining(`"MultiLock(${a}, ${b})" was given a lease of 500 ms`)]);
});
