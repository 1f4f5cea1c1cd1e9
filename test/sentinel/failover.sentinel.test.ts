/**
 * Following a Sentinel failover at once (issue 24, defect 9). After `SENTINEL FAILOVER` the old master stays a
 * master for several seconds, until Sentinel demotes it; a client that kept writing there would take locks
 * another client (following the switch) sees free on the new master. Our client subscribes to
 * `+switch-master` and moves its connections at once, holding commands meanwhile. Forced timing: the test
 * itself listens to `+switch-master` and, on it, pauses the new master for 400 ms (below Sentinel's 1 s
 * down-after) and, once our client has dropped its socket to the old master, issues a lock while the move is
 * still under way: that lock must be held back and land on the new master, never on the old one.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson, type MasterSwitch } from '../../src/index.js';
import { eventually, uniqueName, within } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';

let set: SentinelSet;
const clients: Redisson[] = [];
const raws: Redis[] = [];

beforeAll(async () => {
  set = await startSentinelSet();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  for (const r of raws) r.disconnect();
  await set?.stop();
});

const client = (): Redisson => {
  const c = Redisson.create({ redis: set.redisOptions(), shortLeaseWarning: false, lockWatchdogTimeout: 9_000 });
  clients.push(c);
  return c;
};
const direct = (port: number): Redis => {
  const r = new Redis({ port, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
};
/** Scripts run on a server (EVAL/EVALSHA): ours; Sentinel and replication never send them. */
const scripts = async (r: Redis): Promise<number> => {
  const stats = await r.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:eval|evalsha|eval_ro|evalsha_ro):calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
};
const onPort = (r: Redis, port: number): boolean => r.status === 'ready' && (r as unknown as { stream: { remotePort?: number } }).stream.remotePort === port;
/**
 * Whether client `c` still writes to the master on `port`: its ioredis socket is there; on node-redis (a
 * `createSentinel()` client under it), its commands are not held and node-redis' master is there.
 */
const writesTo = (c: Redisson, port: number): boolean => {
  const sentinel = c.redis as unknown as { getMasterNode?: () => { port: number } | undefined };
  if (typeof sentinel.getMasterNode !== 'function') return onPort(c.redis, port);
  return c.connectionStatus().command === 'ready' && sentinel.getMasterNode()?.port === port;
};
const numsub = async (r: Redis, channel: string): Promise<number> => Number(((await r.pubsub('NUMSUB', channel)) as [string, number])[1]);

describe('SENTINEL FAILOVER is followed at once', () => {
  it('a lock issued while the client moves lands on the new master; after the switch no script reaches the demoted master; an unlock across the switch releases there; a parked waiter wakes on the release', async () => {
    // `b` is made from the caller's own ioredis Sentinel-mode instance: the client follows on a duplicate of it.
    const given = new Redis({ ...set.redisOptions(), autoResendUnfulfilledCommands: false });
    given.on('error', () => undefined);
    raws.push(given);
    const b = Redisson.create({ redis: given, shortLeaseWarning: false });
    clients.push(b);
    expect(b.redis).not.toBe(given);
    const [a, w] = [client(), client()];
    const oldMaster = direct(set.master.port);
    const replicas = new Map(set.replicas.map((r) => [r.port, direct(r.port)]));
    // Connected and warm (replica counts cached) before the failover.
    const held = a.getLock(uniqueName('across'));
    await held.lock(60_000);
    const renewed = a.getLock(uniqueName('watchdog'));
    await renewed.lock();
    const contested = b.getLock(uniqueName('contested'));
    await contested.lock(60_000);
    const waiter = w.getLock(contested.getName());
    let woken = false;
    const waiting = waiter.lock(60_000).then(() => (woken = true));
    waiting.catch(() => undefined); // awaited below; a failure before that must not be unhandled
    await eventually(async () => (await numsub(oldMaster, `redisson_lock__channel:{${contested.getName()}}`)) === 1, 10_000, 'the waiter to subscribe');

    // The test's own +switch-master listener: pause the new master, then issue a lock through `a`.
    const during = a.getLock(uniqueName('during'));
    // `a` reports the failover once its commands go to the new master. On node-redis its own client there may be
    // ready before the pause lands, while node-redis' getMasterNode() still names the old master for seconds.
    let aMoved = false;
    a.once('failover', () => (aMoved = true));
    const watchers = set.sentinelAddresses.map((s) => direct(s.port));
    let issued: Promise<boolean> | null = null;
    const listening: Promise<unknown>[] = [];
    const switchSeen = new Promise<number>((resolve) => {
      for (const watcher of watchers) {
        const sub = watcher.duplicate();
        raws.push(sub);
        sub.on('error', () => undefined);
        sub.on('message', (_channel: string, message: string) => {
          if (issued !== null) return;
          const port = Number(message.split(' ')[4]);
          // Issued once `a` has heard of the switch (it dropped its old socket) and before it can be ready on the
          // paused new master: a command written earlier went to the old master before the switch was known.
          issued = replicas
            .get(port)!
            .call('CLIENT', 'PAUSE', '400', 'ALL')
            .then(() => eventually(() => aMoved || !writesTo(a, set.master.port), 2_000, '`a` to leave the old master'))
            .then(() => during.tryLock(0, 60_000));
          resolve(port);
        });
        listening.push(sub.subscribe('+switch-master'));
      }
    });
    await Promise.all(listening);
    const followed = Promise.all([a, b, w].map((c) => once(c, 'failover') as Promise<[MasterSwitch]>));
    await direct(set.sentinels[0]!.port).call('SENTINEL', 'FAILOVER', set.masterName);
    const newPort = await within(switchSeen, 20_000, 'Sentinel to switch');
    const newMaster = replicas.get(newPort)!;
    const changes = await within(followed, 10_000, 'every client to follow the switch');
    for (const [change] of changes) expect(change).toEqual({ masterName: set.masterName, from: `127.0.0.1:${set.master.port}`, to: `127.0.0.1:${newPort}` });

    // The lock issued during the move was held back and taken on the new master only.
    expect(await within(issued!, 10_000, 'the lock issued during the move')).toBe(true);
    expect(await newMaster.hlen(during.getName())).toBe(1);
    expect(await oldMaster.exists(during.getName())).toBe(0);

    // The caller's own connection was left where it was.
    expect(given.status).toBe('ready');
    expect(onPort(given, set.master.port)).toBe(true);

    // From now on nothing of ours reaches the old master, which Sentinel has not demoted yet.
    const before = await scripts(oldMaster);
    // The unlock of a hold taken before the switch releases it on the new master.
    await held.unlock();
    expect(await newMaster.exists(held.getName())).toBe(0);
    // The waiter parked on the old master re-subscribed on the new one and wakes on the holder's release,
    // long before the 60 s lease it would otherwise wait out.
    await eventually(async () => (await numsub(newMaster, `redisson_lock__channel:{${contested.getName()}}`)) === 1, 10_000, 'the waiter to re-subscribe on the new master');
    expect(woken).toBe(false);
    await contested.unlock();
    await within(waiting, 10_000, 'the waiter');
    expect(await newMaster.hget(contested.getName(), `${w.getId()}:${waiter.threadId}`)).toBe('1');
    await waiter.unlock();
    // The watchdog renews on the new master (every 3 s; the first writes after a failover may take ~5 s, while
    // the replicas resynchronise and WAIT is retried — Redisson's behaviour too, README "Sentinel").
    const pttl = await newMaster.pttl(renewed.getName());
    await eventually(async () => (await newMaster.pttl(renewed.getName())) > pttl, 15_000, 'a renewal on the new master');
    await renewed.unlock();
    await during.unlock();
    expect(await scripts(oldMaster)).toBe(before);
  }, 60_000);
});
