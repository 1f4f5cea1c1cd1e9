/**
 * Direct handoff (issue 29, docs/design/direct-handoff.md): a release that reached nobody but the releasing
 * client's own subscription, on a master without replicas, writes the client's longest parked waiter's hold in
 * the unlock script itself. Every row forces its timing with a {@link CommandGate} on the client's command
 * connection (the scripts run on the real server; the test decides when they are written and when their replies
 * are handed on) or with a {@link RedisProxy}: a waiter is parked once its attempts were answered, a woken
 * waiter's retry is held, so "granted" and "not granted" are told apart by the data in Redis right after the
 * unlock resolved — the waiter's field with count 1 (granted) or no hash at all (its retry has not run).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { lockChannelName, type Redisson, type RLock } from '../../src/index.js';
import { HANDOFF_BACKOFF_MS, HANDOFF_REFUSALS } from '../../src/pubsub/PublishSubscribe.js';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { CommandGate } from '../support/commandGate.js';
import { RedisProxy } from '../support/proxy.js';
import { replicasOnline } from '../support/replicated.js';
import { openMonitor } from '../support/monitor.js';
import { eventually, sleep, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis();
const LONG_LEASE = 60_000;
const GUARD_MS = 10_000;
const gates: CommandGate[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const gate of gates.splice(0)) gate.uninstall();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function gate(client: Redisson, ids: Parameters<typeof CommandGate.scripts>[1]): CommandGate {
  const g = CommandGate.scripts(client.redis, ids);
  gates.push(g);
  return g;
}

/** Lets `n` held commands of `g` run and be answered, in order. */
async function pass(g: CommandGate, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const held = await within(g.next(), GUARD_MS, 'a held command');
    await held.send();
    held.deliver();
  }
  // The refused attempt's continuation parks the waiter.
  await macrotask();
}

async function numsub(raw: Redis, name: string): Promise<number> {
  return Number(((await raw.pubsub('NUMSUB', lockChannelName(name))) as [string, number])[1]);
}

function track<T>(promise: Promise<T>): { readonly promise: Promise<T>; outcome: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } {
  const state: { promise: Promise<T>; outcome: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { promise, outcome: 'pending' };
  promise.then(
    (value) => Object.assign(state, { outcome: 'resolved', value }),
    (error: unknown) => Object.assign(state, { outcome: 'rejected', error }),
  );
  return state;
}

/**
 * A client, a lock held by owner 1 with a long lease, and owner 2 parked in `lock()` (its first attempt and its
 * retry after subscribing answered through the gate on tryLockInner, which stays installed: a later retry of
 * owner 2 is held there).
 */
async function heldWithWaiter(options: { client?: Redisson; signal?: AbortSignal } = {}): Promise<{ client: Redisson; lock: RLock; name: string; attempts: CommandGate; waiter: ReturnType<typeof track<void>> }> {
  const client = options.client ?? suite.clients.client();
  const name = uniqueName('handoff');
  const lock = client.getLock(name);
  await lock.lock(LONG_LEASE, { threadId: 1 });
  const attempts = gate(client, ['lock/tryLockInner']);
  // An object of its own, as a request handler's getLock(name): its lease is the watchdog's, not the holder's 60 s.
  const waiter = track(client.getLock(name).lock(options.signal ? { threadId: 2, signal: options.signal } : { threadId: 2 }));
  await pass(attempts, 2);
  return { client, lock, name, attempts, waiter };
}

/**
 * Right after a release: `client`'s owner `threadId` holds `name` with count 1 (granted), with a PTTL in `lease`
 * (`[above, at most]` ms) when given, and its `lock()` resolves.
 */
async function grantedTo(raw: Redis, name: string, client: Redisson, threadId: number, pending: { readonly promise: Promise<unknown> }, lease?: readonly [number, number]): Promise<void> {
  expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:${threadId}`]: '1' });
  if (lease) {
    const ttl = await raw.pttl(name);
    expect(ttl).toBeGreaterThan(lease[0]);
    expect(ttl).toBeLessThanOrEqual(lease[1]);
  }
  await within(pending.promise, GUARD_MS, `owner ${threadId} of client ${client.getId()}, granted`);
}

describe('direct handoff', () => {
  it('only this client waits: the unlock writes the waiter’s hold (count 1, its watchdog lease) and the waiter resolves without a retry', async () => {
    const raw = suite.clients.raw();
    const { client, lock, name, waiter } = await heldWithWaiter();
    expect(await numsub(raw, name)).toBe(1);
    await lock.unlock({ threadId: 1 });
    // Right after the unlock's reply the waiter's hold is in Redis: its own retry is held by the gate and never sent.
    // lockWatchdogTimeout, 30 s, as its own attempt would have sent
    await grantedTo(raw, name, client, 2, waiter, [25_000, 30_000]);
    expect(await lock.isHeldByThread(2)).toBe(true);
    await lock.unlock({ threadId: 2 });
    expect(await raw.exists(name)).toBe(0);
  });

  it('a waiter with a lease gets that lease', async () => {
    const raw = suite.clients.raw();
    const client = suite.clients.client();
    const name = uniqueName('handoff-lease');
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE, { threadId: 1 });
    const attempts = gate(client, ['lock/tryLockInner']);
    const waiter = track(client.getLock(name).lock(5_000, { threadId: 2 }));
    await pass(attempts, 2);
    await lock.unlock({ threadId: 1 });
    await grantedTo(raw, name, client, 2, waiter, [4_000, 5_000]);
    await lock.unlock({ threadId: 2 });
  });

  it('three parked waiters are granted the lock in the order they came, each by the previous holder’s unlock', async () => {
    const raw = suite.clients.raw();
    const { client, lock, name, attempts, waiter } = await heldWithWaiter();
    const third = track(lock.lock({ threadId: 3 }));
    await pass(attempts, 1); // the channel is subscribed: it joins and waits after one attempt
    const fourth = track(lock.lock({ threadId: 4 }));
    await pass(attempts, 1);
    const order: number[] = [];
    for (const [owner, next] of [[1, waiter], [2, third], [3, fourth]] as const) {
      await lock.unlock({ threadId: owner });
      await within(next.promise, GUARD_MS, `owner ${owner + 1}`);
      const fields = Object.keys(await raw.hgetall(name));
      order.push(Number(fields[0]?.slice(client.getId().length + 1)));
    }
    expect(order).toEqual([2, 3, 4]);
    await lock.unlock({ threadId: 4 });
  });

  it('directHandoff: false: the release only publishes; the waiter takes the lock by its own retry', async () => {
    const raw = suite.clients.raw();
    const { lock, name, attempts, waiter } = await heldWithWaiter({ client: suite.clients.client({ directHandoff: false }) });
    await lock.unlock({ threadId: 1 });
    expect(await raw.exists(name)).toBe(0);
    await pass(attempts, 1); // the woken waiter's retry
    await within(waiter.promise, GUARD_MS, 'the woken waiter');
    await lock.unlock({ threadId: 2 });
  });

  describe.each([
    ['before the waiter parks', true],
    ['after the waiter parked', false],
  ])('a subscriber of another connection on the channel, subscribed %s', (_, first) => {
    it('is never passed: no grant, the release wakes both, the local waiter takes the lock by its retry', async () => {
      const raw = suite.clients.raw();
      const other = suite.clients.raw();
      const messages: string[] = [];
      other.on('message', (_channel: string, message: string) => void messages.push(message));
      const client = suite.clients.client();
      const name = uniqueName('handoff-remote');
      const lock = client.getLock(name);
      await lock.lock(LONG_LEASE, { threadId: 1 });
      if (first) await other.subscribe(lockChannelName(name));
      const attempts = gate(client, ['lock/tryLockInner']);
      const waiter = track(client.getLock(name).lock({ threadId: 2 }));
      await pass(attempts, 2);
      if (!first) await other.subscribe(lockChannelName(name));
      expect(await numsub(raw, name)).toBe(2);
      await lock.unlock({ threadId: 1 });
      expect(await raw.exists(name)).toBe(0); // released, not granted
      await eventually(() => messages.length === 1, GUARD_MS, 'the release message at the other subscriber');
      expect(messages).toEqual(['0']);
      await pass(attempts, 1);
      await within(waiter.promise, GUARD_MS, 'the woken waiter');
      await lock.unlock({ threadId: 2 });
    });
  });

  it('after HANDOFF_REFUSALS releases in a row whose count showed a subscriber not ours, no handoff is tried on the channel for HANDOFF_BACKOFF_MS; then it is again', async () => {
    const raw = suite.clients.raw();
    const other = suite.clients.raw();
    // The channel lingers all along: the entry that remembers the refusals stays.
    const { client, lock, name, attempts, waiter } = await heldWithWaiter({ client: suite.clients.client({ subscriptionLinger: 60_000 }) });
    const handoffs = gate(client, ['lock/unlockHandoff']);
    await other.subscribe(lockChannelName(name));
    /** Owner `owner` releases with `next` parked: the handoff script is sent, refused (reply 1); `next` retries. */
    const refused = async (owner: number, next: ReturnType<typeof track<void>>): Promise<void> => {
      const unlocking = lock.unlock({ threadId: owner });
      const held = await within(handoffs.next(), GUARD_MS, `owner ${owner}'s handoff script`);
      expect(await held.send()).toBe(1);
      held.deliver();
      await unlocking;
      await pass(attempts, 1);
      await within(next.promise, GUARD_MS, `owner ${owner + 1}, by its retry`);
    };
    await refused(1, waiter);
    for (let owner = 2; owner <= HANDOFF_REFUSALS; owner++) {
      const next = track(lock.lock({ threadId: owner + 1 }));
      await pass(attempts, 1);
      await refused(owner, next);
    }
    await other.unsubscribe(lockChannelName(name));
    expect(await numsub(raw, name)).toBe(1); // ours alone: a grant would be allowed now
    const paused = HANDOFF_REFUSALS + 1;
    const afterPause = track(lock.lock({ threadId: paused + 1 }));
    await pass(attempts, 1);
    await lock.unlock({ threadId: paused });
    expect(handoffs.pending).toBe(0); // the plain unlockInner was sent
    expect(await raw.exists(name)).toBe(0);
    await pass(attempts, 1);
    await within(afterPause.promise, GUARD_MS, `owner ${paused + 1}, by its retry`);
    await sleep(HANDOFF_BACKOFF_MS + 100);
    const granted = track(lock.lock({ threadId: paused + 2 }));
    await pass(attempts, 1);
    const unlocking = lock.unlock({ threadId: paused + 1 });
    const held = await within(handoffs.next(), GUARD_MS, 'the handoff script, tried again');
    expect(await held.send()).toBe(3);
    held.deliver();
    await unlocking;
    expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:${paused + 2}`]: '1' });
    await within(granted.promise, GUARD_MS, `owner ${paused + 2}, granted`);
    await lock.unlock({ threadId: paused + 2 });
  });

  describe.each([
    ['of the releasing client', false],
    ['of another client of the process', true],
  ])('the pin, the candidate %s', (_, across) => {
    it('while the unlock script is held, the candidate leaves, the linger runs out and another connection subscribes: no UNSUBSCRIBE is written before the reply, and no grant happens', async () => {
      const raw = suite.clients.raw();
      const other = suite.clients.raw();
      const waiting = suite.clients.client({ subscriptionLinger: 20 });
      const releasing = across ? suite.clients.client() : waiting;
      const name = uniqueName('handoff-pin');
      const lock = releasing.getLock(name);
      await lock.lock(LONG_LEASE, { threadId: 1 });
      const attempts = gate(waiting, ['lock/tryLockInner']);
      const controller = new AbortController();
      const waiter = track(waiting.getLock(name).lock({ threadId: 2, signal: controller.signal }));
      await pass(attempts, 2);
      const unlocks = gate(releasing, ['lock/unlockHandoff']);
      const unlocking = lock.unlock({ threadId: 1 });
      const held = await within(unlocks.next(), GUARD_MS, 'the unlock script');
      controller.abort();
      await expect(waiter.promise).rejects.toThrow();
      await sleep(100); // five lingers
      await other.subscribe(lockChannelName(name));
      // The waiting client is still subscribed: the reservation keeps the channel until the reply.
      expect(await numsub(raw, name)).toBe(2);
      expect(await held.send()).toBe(1); // released, not granted: the count was 2
      held.deliver();
      await unlocking;
      expect(await raw.exists(name)).toBe(0);
      await eventually(async () => (await numsub(raw, name)) === 1, GUARD_MS, 'its UNSUBSCRIBE after the reply');
    });
  });

  describe.each([
    ['aborted', 'abort'],
    ['timed out', 'timeout'],
  ])('a candidate %s while the unlock script is held', (_, how) => {
    it('the grant is released at once and the next waiter acquires', async () => {
      const raw = suite.clients.raw();
      const client = suite.clients.client();
      const name = uniqueName(`handoff-${how}`);
      const lock = client.getLock(name);
      await lock.lock(LONG_LEASE, { threadId: 1 });
      const attempts = gate(client, ['lock/tryLockInner']);
      const controller = new AbortController();
      const candidate = track<unknown>(how === 'abort' ? lock.lock({ threadId: 2, signal: controller.signal }) : lock.tryLock(2_000, { threadId: 2 }));
      await pass(attempts, 2);
      const next = track(lock.lock({ threadId: 3 }));
      await pass(attempts, 1);
      attempts.uninstall();
      const unlocks = gate(client, ['lock/unlockHandoff']);
      const unlocking = lock.unlock({ threadId: 1 });
      const held = await within(unlocks.next(), GUARD_MS, 'the unlock script');
      if (how === 'abort') {
        controller.abort();
        await expect(candidate.promise).rejects.toThrow();
      } else {
        expect(await within(candidate.promise, GUARD_MS, 'the timed-out candidate')).toBe(false);
      }
      // The script runs after the candidate gave up: it still grants (only this client is subscribed)...
      expect(await held.send()).toBe(3);
      expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:2`]: '1' });
      unlocks.uninstall();
      held.deliver();
      await unlocking;
      // ...and the grant nobody takes is released at once: the next waiter acquires (the grant's lease is 30 s).
      await within(next.promise, GUARD_MS, 'the next waiter');
      expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:3`]: '1' });
      expect(await lock.isHeldByThread(2)).toBe(false);
      await lock.unlock({ threadId: 3 });
    });
  });

  it('a lost reply: the re-sent unlock returns the latch’s outcome, and the grant is taken once (exactly one holder, count 1)', async () => {
    const raw = suite.clients.raw();
    const proxy = await RedisProxy.start(suite.redis.port);
    cleanups.push(() => proxy.stop());
    const client = suite.clients.client({ redis: proxy.url, timeout: 10_000 });
    client.redis.on('error', () => undefined);
    const { lock, name, waiter } = await heldWithWaiter({ client });
    expect(proxy.connections).toBe(2); // the command connection (first), the subscriber
    proxy.replyDelayOf.set(0, 60_000); // the command connection's replies are held from now on
    const unlocking = track(lock.unlock({ threadId: 1 }));
    // The script ran (the grant is in Redis) but its reply is held: drop the command connection only.
    await eventually(async () => (await raw.hexists(name, `${client.getId()}:2`)) === 1, GUARD_MS, 'the grant in Redis');
    proxy.drop(0);
    await within(unlocking.promise, GUARD_MS, 'the re-sent unlock');
    await within(waiter.promise, GUARD_MS, 'the granted waiter');
    expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:2`]: '1' });
    expect(await lock.isHeldByThread(2)).toBe(true);
    await lock.unlock({ threadId: 2 });
    expect(await raw.exists(name)).toBe(0);
    await client.shutdown(); // before the proxy stops
  });
});

/**
 * Clients of one process on the same server, database and key prefix: a release counts all their subscriptions
 * and hands the lock to the longest parked waiter among them (docs/design/direct-handoff.md, "Across clients").
 */
describe('direct handoff across the clients of one process', () => {
  /** `holder` holds `name` (owner 1, long lease); `waiting`'s owner 2 is parked in `lock()`, its retries gated. */
  async function acrossClients(holder: Redisson, waiting: Redisson, name = uniqueName('handoff-x')): Promise<{ lock: RLock; attempts: CommandGate; waiter: ReturnType<typeof track<void>>; name: string }> {
    const lock = holder.getLock(name);
    await lock.lock(LONG_LEASE, { threadId: 1 });
    const attempts = gate(waiting, ['lock/tryLockInner']);
    const waiter = track(waiting.getLock(name).lock({ threadId: 2 }));
    await pass(attempts, 2);
    return { lock, attempts, waiter, name };
  }

  /** Owner 1's unlock only releases (no grant): `waiting`'s owner 2 takes the lock by its retry, then unlocks. */
  async function releasedNotGranted(raw: Redis, waiting: Redisson, { lock, attempts, waiter, name }: Awaited<ReturnType<typeof acrossClients>>): Promise<void> {
    await lock.unlock({ threadId: 1 });
    expect(await raw.exists(name)).toBe(0);
    await pass(attempts, 1);
    await within(waiter.promise, GUARD_MS, 'the woken owner 2');
    await waiting.getLock(name).unlock({ threadId: 2 });
  }

  it('another client’s parked waiter is granted by the unlock (its field, count 1, its watchdog lease), without a retry', async () => {
    const raw = suite.clients.raw();
    const a = suite.clients.client();
    const b = suite.clients.client();
    const { lock, waiter, name } = await acrossClients(a, b);
    expect(await numsub(raw, name)).toBe(1); // b's subscription only
    await lock.unlock({ threadId: 1 });
    // b's retry is held by its gate and never sent: the hold is the unlock script's grant.
    await grantedTo(raw, name, b, 2, waiter, [25_000, 30_000]);
    expect(await b.getLock(name).isHeldByThread(2)).toBe(true);
    await b.getLock(name).unlock({ threadId: 2 });
    expect(await raw.exists(name)).toBe(0);
  });

  it('the releasing client’s own lingering subscription is counted too: two subscriptions, both ours, granted; the release message wakes nobody', async () => {
    const raw = suite.clients.raw();
    const a = suite.clients.client({ subscriptionLinger: 60_000 });
    const b = suite.clients.client();
    const name = uniqueName('handoff-x-linger');
    // a's owner 3 waited once (a's subscription now lingers), then b's owner 2 parks behind a's owner 1.
    await b.getLock(name).lock(LONG_LEASE, { threadId: 9 });
    const first = a.getLock(name).lock(LONG_LEASE, { threadId: 1 });
    await eventually(async () => (await numsub(raw, name)) === 1, GUARD_MS, 'a subscribed');
    await b.getLock(name).unlock({ threadId: 9 });
    await within(first, GUARD_MS, 'a’s owner 1');
    const attempts = gate(b, ['lock/tryLockInner']);
    const waiter = track(b.getLock(name).lock({ threadId: 2 }));
    await pass(attempts, 2);
    expect(await numsub(raw, name)).toBe(2); // a's lingering one and b's
    const aAttempts = gate(a, ['lock/tryLockInner']);
    const third = track(a.getLock(name).lock({ threadId: 3 }));
    await pass(aAttempts, 1); // a's owner 3 joins its lingering channel and parks behind b's owner 2
    // The script's reply is held until its message reached both subscriber sockets (it publishes before it answers).
    const unlocks = gate(a, ['lock/unlockHandoff']);
    const unlocking = a.getLock(name).unlock({ threadId: 1 });
    const held = await within(unlocks.next(), GUARD_MS, 'the unlock script');
    expect(await held.send()).toBe(3);
    await sleep(50);
    held.deliver();
    await unlocking;
    await grantedTo(raw, name, b, 2, waiter);
    // The release's message reached a's channel before the reply: held, then dropped; owner 3 sends no retry
    // while owner 2 holds.
    await sleep(50);
    expect(aAttempts.pending).toBe(0);
    await b.getLock(name).unlock({ threadId: 2 });
    // Owner 2's release hands the lock on to a's owner 3, the next longest waiter.
    await grantedTo(raw, name, a, 3, third);
    await a.getLock(name).unlock({ threadId: 3 });
  });

  it('the longest waiter of three clients goes first, whichever client it is on', async () => {
    const raw = suite.clients.raw();
    const [a, b, c] = [suite.clients.client(), suite.clients.client(), suite.clients.client()];
    const { lock, waiter, name } = await acrossClients(a, c);
    const bAttempts = gate(b, ['lock/tryLockInner']);
    const second = track(b.getLock(name).lock({ threadId: 5 }));
    await pass(bAttempts, 2);
    await lock.unlock({ threadId: 1 });
    await grantedTo(raw, name, c, 2, waiter); // the longest waiter
    await c.getLock(name).unlock({ threadId: 2 });
    await grantedTo(raw, name, b, 5, second);
    await b.getLock(name).unlock({ threadId: 5 });
  });

  it('a client on another database is not counted as ours: no grant into the wrong database, its waiter is woken and waits on', async () => {
    const raw = suite.clients.raw();
    const raw1 = suite.clients.raw({ db: 1 });
    const a = suite.clients.client();
    const b = suite.clients.client({ redis: `${suite.redis.url}/1` });
    const name = uniqueName('handoff-x-db');
    // Lock `name` in database 1, held by b's owner 1; b's owner 2 parks on the channel, which database 0's lock shares.
    const { attempts, waiter } = await acrossClients(b, b, name);
    await a.getLock(name).lock(LONG_LEASE, { threadId: 1 });
    await a.getLock(name).unlock({ threadId: 1 });
    expect(await raw.exists(name)).toBe(0); // released in database 0, nobody granted there
    expect(await raw1.hgetall(name)).toEqual({ [`${b.getId()}:1`]: '1' });
    await pass(attempts, 1); // the wake-up's retry, refused in database 1
    expect(waiter.outcome).toBe('pending');
    await b.getLock(name).unlock({ threadId: 1 });
    await within(waiter.promise, GUARD_MS, 'b’s owner 2');
    expect(await raw1.hgetall(name)).toEqual({ [`${b.getId()}:2`]: '1' });
    await b.getLock(name).unlock({ threadId: 2 });
  });

  it('a client with directHandoff: false is not counted: its subscription makes the count larger, no grant', async () => {
    const raw = suite.clients.raw();
    const a = suite.clients.client();
    const b = suite.clients.client({ directHandoff: false });
    await releasedNotGranted(raw, b, await acrossClients(a, b));
  });

  it('a subscriber of another connection beside two clients: never passed', async () => {
    const raw = suite.clients.raw();
    const other = suite.clients.raw();
    const a = suite.clients.client();
    const b = suite.clients.client();
    const held = await acrossClients(a, b);
    await other.subscribe(lockChannelName(held.name));
    expect(await numsub(raw, held.name)).toBe(2);
    await releasedNotGranted(raw, b, held);
  });

  it('the candidate’s client shuts down after the script granted and before its reply: its shutdown waits for the reply and undoes the grant', async () => {
    const raw = suite.clients.raw();
    const a = suite.clients.client();
    const b = suite.clients.client();
    const { lock, name } = await acrossClients(a, b);
    const unlocks = gate(a, ['lock/unlockHandoff']);
    const unlocking = lock.unlock({ threadId: 1 });
    const held = await within(unlocks.next(), GUARD_MS, 'the unlock script');
    expect(await held.send()).toBe(3); // granted to b's owner 2 in Redis; the reply is still held
    expect(await raw.hgetall(name)).toEqual({ [`${b.getId()}:2`]: '1' });
    const shutdown = track(b.shutdown());
    await sleep(50);
    expect(shutdown.outcome).toBe('pending'); // it waits for the reservation of its waiter to settle
    held.deliver();
    await unlocking;
    await within(shutdown.promise, GUARD_MS, 'b’s shutdown');
    // The grant to the waiter b aborted was undone on b's connection before it closed: nobody holds the lock.
    expect(await raw.exists(name)).toBe(0);
  });

});

describe('a master with a replica', () => {
  it('never grants: the release only publishes (a subscriber on the replica would get it, uncounted)', async () => {
    const master = await RedisServerProcess.start();
    const replica = await RedisServerProcess.start({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
    cleanups.push(async () => {
      await replica.stop();
      await master.stop();
    });
    const direct = new Redis({ port: master.port });
    cleanups.push(() => Promise.resolve(direct.disconnect()));
    await replicasOnline(direct, 1);
    const client = suite.clients.client({ redis: master.url });
    const { lock, name, attempts, waiter } = await heldWithWaiter({ client });
    expect(await numsub(direct, name)).toBe(1); // only ours on the master: the count alone would allow a grant
    await lock.unlock({ threadId: 1 });
    expect(await direct.exists(name)).toBe(0);
    await pass(attempts, 1);
    await within(waiter.promise, GUARD_MS, 'the woken waiter');
    await lock.unlock({ threadId: 2 });
    await client.shutdown(); // before its servers stop
  });
});

describe('the unlock latch’s DEL', () => {
  it('is sent after every unlock, and a shutdown right after an unlock still waits for it: no latch is left behind', async () => {
    const raw = suite.clients.raw();
    const monitor = await openMonitor(suite.clients.raw());
    cleanups.push(() => Promise.resolve(monitor.disconnect()));
    const dels: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'del' && (args[1] ?? '').startsWith('redisson_unlock_latch:')) dels.push(args);
    });
    const client = suite.clients.client();
    const name = uniqueName('latch-del');
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE);
    await lock.unlock();
    await lock.lock(LONG_LEASE);
    await lock.unlock();
    await client.shutdown();
    expect(await raw.keys(`redisson_unlock_latch:{${name}}:*`)).toEqual([]);
    await eventually(() => dels.filter((args) => args[1]?.startsWith(`redisson_unlock_latch:{${name}}:`)).length === 2, 5_000, 'both latch DELs');
  });
});
