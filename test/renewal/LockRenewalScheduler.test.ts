/**
 * The watchdog renews in batches: one script call per ≤ lockWatchdogBatchSize locks per period, only for
 * this client's fields, and reports a lock whose field is gone as lost.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { Clients, eventually, sleep, startRedis, uniqueName, type TestRedis } from '../support/redis.js';
import type { LockLostEvent } from '../../src/index.js';
import { CommandExecutor } from '../../src/connection/CommandExecutor.js';
import { IoredisConnection } from '../../src/connection/ioredis/IoredisConnection.js';
import { LockRenewalScheduler, lockRenewal, type RenewalKind } from '../../src/renewal/LockRenewalScheduler.js';

let server: TestRedis;
let clients: Clients;
let raw: Redis;
beforeAll(async () => {
  server = await startRedis({ own: true });
  clients = new Clients(server.url);
  raw = clients.raw();
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

async function scriptCalls(): Promise<number> {
  const info = await raw.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

it('renews 120 locks with 3 script calls per period when the batch size is 50', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600, lockWatchdogBatchSize: 50 });
  const locks = Array.from({ length: 120 }, () => client.getLock(uniqueName('many')));
  await Promise.all(locks.map((l) => l.lock()));
  await raw.config('RESETSTAT');
  await sleep(1_000); // several periods of 200 ms
  const calls = await scriptCalls();
  expect(calls).toBeGreaterThanOrEqual(3);
  expect(calls % 3).toBe(0); // whole ticks of ceil(120 / 50) = 3 batches, nothing else
  for (const l of locks.slice(0, 5)) expect(await l.remainTimeToLive()).toBeGreaterThan(0);
  await Promise.all(locks.map((l) => l.unlock()));
});

it('never renews another client\'s lock, and reports its own lost lock once', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600 });
  const lost: LockLostEvent[] = [];
  client.on('lockLost', (e) => lost.push(e));
  const name = uniqueName();
  const lock = client.getLock(name);
  await lock.lock();
  // Someone deletes it and a foreign owner takes it with a short lease.
  await raw.del(name);
  await raw.hset(name, 'ffffffff-0000-4000-8000-000000000000:1', 1);
  await raw.pexpire(name, 700);
  await eventually(() => lost.length === 1, 5_000, 'lockLost');
  expect(lost[0]).toEqual({ name, clientId: client.getId(), threadId: lock.threadId });
  // The foreign lock is not extended by our watchdog: it expires on its own.
  await eventually(async () => (await raw.exists(name)) === 0, 5_000, 'foreign lock expiry');
  await sleep(300);
  expect(lost.length).toBe(1);
});

it('renews each kind with its own script, and removing one kind\'s hold never cancels another kind\'s on the same name', async () => {
  const executor = new CommandExecutor(new IoredisConnection(clients.raw()));
  const calls: string[] = [];
  // A second renewal shape over the same lock script, as a read lock's is over its own.
  const other: RenewalKind = {
    id: 'other',
    renew: (run, lease, entries) => {
      calls.push('other');
      return lockRenewal.renew(run, lease, entries);
    },
  };
  const counting: RenewalKind = {
    id: lockRenewal.id,
    renew: (run, lease, entries) => {
      calls.push('lock');
      return lockRenewal.renew(run, lease, entries);
    },
  };
  const lost: unknown[] = [];
  const scheduler = new LockRenewalScheduler(
    (kind, entries) => kind.renew((id, keys, args) => executor.eval(id, keys, args), 1_000, entries),
    100,
    100,
    (l) => lost.push(l),
    () => undefined,
  );
  const name = uniqueName();
  await raw.hset(name, 'me:1', '1', 'me:1:write', '1');
  await raw.pexpire(name, 300);
  scheduler.add(counting, name, 'me:1:write', 1);
  scheduler.add(other, name, 'me:1', 1);
  expect(scheduler.size).toBe(2);
  expect(scheduler.remove(other, name, 'me:1')).toBe(true);
  expect(scheduler.renews(counting, name, 'me:1:write')).toBe(true);
  await sleep(500); // past the 300 ms the key had: only the remaining kind's renewals kept it
  expect(await raw.pttl(name)).toBeGreaterThan(0);
  expect(new Set(calls)).toEqual(new Set(['lock']));
  expect(lost).toEqual([]);
  scheduler.stop();
  executor.dispose();
});

// ---- issue 24, defect 5: which hold a renewal result is about -------------------------------------------
//
// The test decides when each batch's script runs and when its result reaches the scheduler (`gatedLock`):
// the owner's unlock and re-lock (the real lock scripts) are put in between, in the order under test.

interface Round {
  /** Resolves when the scheduler has sent the batch (its entries are fixed). */
  readonly called: Promise<void>;
  /** Runs the real renewal script; resolves with its per-lock results (not yet handed to the scheduler). */
  run(): Promise<number[]>;
  /** Hands the results to the scheduler; resolves after it has processed them (a macrotask later). */
  deliver(): Promise<void>;
}

function gatedLock(): { kind: RenewalKind; round(i: number): Round } {
  const rounds: Array<Round & { start(results: () => Promise<number[]>): Promise<number[]> }> = [];
  const make = (): (typeof rounds)[number] => {
    let called!: () => void;
    let go!: () => void;
    let hand!: () => void;
    let ran!: (r: number[]) => void;
    const calledP = new Promise<void>((r) => (called = r));
    const goP = new Promise<void>((r) => (go = r));
    const handP = new Promise<void>((r) => (hand = r));
    const ranP = new Promise<number[]>((r) => (ran = r));
    return {
      called: calledP,
      run: () => {
        go();
        return ranP;
      },
      deliver: async () => {
        hand();
        await new Promise((r) => setImmediate(r));
      },
      start: async (results) => {
        called();
        await goP;
        const r = await results();
        ran(r);
        await handP;
        return r;
      },
    };
  };
  const round = (i: number): (typeof rounds)[number] => {
    while (rounds.length <= i) rounds.push(make());
    return rounds[i] as (typeof rounds)[number];
  };
  let calls = 0;
  const kind: RenewalKind = {
    id: lockRenewal.id,
    renew: (run, lease, entries) => round(calls++).start(() => lockRenewal.renew(run, lease, entries)),
  };
  return { kind, round };
}

describe('a renewal result is applied only to the hold it was about', () => {
  const LEASE = 60_000;
  let executor: CommandExecutor;
  let lost: unknown[];
  let scheduler: LockRenewalScheduler;
  let gate: ReturnType<typeof gatedLock>;
  beforeEach(() => {
    executor = new CommandExecutor(new IoredisConnection(clients.raw()));
    lost = [];
    gate = gatedLock();
    scheduler = new LockRenewalScheduler(
      (kind, entries) => kind.renew((id, keys, args) => executor.eval(id, keys, args, 'idempotent'), LEASE, entries),
      20,
      100,
      (l) => lost.push(l),
      () => undefined,
    );
  });
  afterEach(() => {
    scheduler.stop();
    executor.dispose();
  });
  const field = 'me:1';
  const lock = async (name: string, lease = 10_000): Promise<void> => {
    expect(await executor.eval('lock/tryLockInner', [name], [lease, field])).toBeNull();
  };
  const unlock = (name: string): Promise<unknown> =>
    executor.eval('lock/unlockInner', [name, `redisson_lock__channel:{${name}}`, `redisson_unlock_latch:{${name}}:${randomUUID().replaceAll('-', '')}`], [0, 10_000, field, 10_000]);

  it("the owner unlocks and re-locks after the batch was sent: the batch's 'gone' is not the new hold's loss, which is renewed", async () => {
    const name = uniqueName('reacquire');
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).called;
    // The owner's unlock runs first, and its outcome is in (remove) ...
    expect(await unlock(name)).toBe(1);
    scheduler.remove(gate.kind, name, field);
    // ... then the batch, which finds the field gone ...
    expect(await gate.round(0).run()).toEqual([0]);
    // ... then the owner takes the lock again before that result is handled.
    await lock(name, 5_000);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).deliver();
    expect(lost).toEqual([]);
    expect(scheduler.renews(gate.kind, name, field)).toBe(true);
    // The next batch renews the new hold.
    expect(await gate.round(1).run()).toEqual([1]);
    await gate.round(1).deliver();
    expect(await raw.pttl(name)).toBeGreaterThan(5_000);
    expect(lost).toEqual([]);
  });

  it("an unlock in flight when the batch's 'gone' is handled decides: released, nothing lost", async () => {
    const name = uniqueName('inflight');
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).called;
    scheduler.releasing(gate.kind, name, field);
    expect(await unlock(name)).toBe(1); // its outcome not yet handed to the scheduler
    expect(await gate.round(0).run()).toEqual([0]);
    await gate.round(0).deliver();
    expect(lost).toEqual([]);
    expect(scheduler.remove(gate.kind, name, field)).toBe(true);
    expect(lost).toEqual([]);
    expect(scheduler.renews(gate.kind, name, field)).toBe(false);
  });

  it('a hold lost while an unlock of it was in flight is still reported: by takeLoss when the unlock found nothing', async () => {
    const name = uniqueName('inflight-lost');
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).called;
    await raw.del(name); // the lease ran out
    scheduler.releasing(gate.kind, name, field);
    expect(await unlock(name)).toBeNull();
    expect(await gate.round(0).run()).toEqual([0]);
    await gate.round(0).deliver();
    expect(lost).toEqual([]);
    // The unlock's nil: the release reports the loss (once), as BaseLock does with what takeLoss returns.
    expect(scheduler.takeLoss(gate.kind, name, field)).toEqual({ kind: 'lock', rawName: name, field, threadId: 1 });
    expect(lost).toEqual([]);
  });

  it('a hold lost after an unlock in flight left the owner a reentrant hold is reported once that unlock is in', async () => {
    const name = uniqueName('inflight-reentrant');
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).called;
    scheduler.releasing(gate.kind, name, field);
    expect(await unlock(name)).toBe(0); // still held once
    await raw.del(name); // then lost
    expect(await gate.round(0).run()).toEqual([0]);
    await gate.round(0).deliver();
    expect(lost).toEqual([]);
    scheduler.remove(gate.kind, name, field);
    expect(lost).toEqual([{ kind: 'lock', rawName: name, field, threadId: 1 }]);
    expect(scheduler.renews(gate.kind, name, field)).toBe(false);
  });

  it('a hold really lost while its owner re-entered meanwhile is reported, and the re-entered hold is kept and renewed', async () => {
    const name = uniqueName('reenter');
    await lock(name);
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).called;
    await raw.del(name); // the lease ran out
    expect(await gate.round(0).run()).toEqual([0]);
    await lock(name, 5_000); // the owner re-enters: the field comes back, counted once
    scheduler.add(gate.kind, name, field, 1);
    await gate.round(0).deliver();
    expect(lost).toEqual([{ kind: 'lock', rawName: name, field, threadId: 1 }]);
    expect(scheduler.renews(gate.kind, name, field)).toBe(true);
    expect(await gate.round(1).run()).toEqual([1]);
    await gate.round(1).deliver();
    expect(await raw.pttl(name)).toBeGreaterThan(5_000);
    expect(lost).toHaveLength(1);
  });
});
