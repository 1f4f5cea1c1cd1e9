/**
 * RLock interop in replicated mode (issue 28): Java Redisson 4.7.0 and our client both configured from one
 * `replicatedServersConfig` YAML file (Java: `Config.fromYAML`; we: `Redisson.fromConfig`), on a spawned master and
 * two replicas with no Sentinel. Both find the master by the nodes' roles, follow their lock writes with `WAIT`
 * (counted in the master's `INFO commandstats`), exclude each other and wake each other. Last, a manual
 * promotion while Java waits on our hold: both sides follow it by their scans, our unlock on the new master wakes
 * Java's waiter. Holders take 60 s leases, far beyond the 10 s hang guards, so a waiter that acquires within a
 * guard was woken by the release message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { eventually, uniqueName } from '../support/redis.js';
import { startReplicatedSet, type ReplicatedSet } from '../support/replicated.js';
import { within as guard } from '../support/poll.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const VERSION = '4.7.0';
const LONG_LEASE_MS = 60_000;
const HANG_GUARD_MS = 10_000;
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder('Replicated interop', availability.reason);

describe.runIf(availability.ok)(`Java Redisson ${VERSION} ⇄ redisson-ts in replicated mode (one YAML file)`, () => {
  let set: ReplicatedSet;
  let peer: JavaPeer;
  let client: Redisson;
  let dir: string;

  beforeAll(async () => {
    set = await startReplicatedSet();
    dir = mkdtempSync(path.join(tmpdir(), 'redisson-replicated-'));
    const file = path.join(dir, 'redisson.yaml');
    // The replicas first: both sides find the master by role, not by position.
    const nodes = [...set.replicas(), set.master()].map((n) => `  - "redis://127.0.0.1:${n.port}"`);
    writeFileSync(file, ['replicatedServersConfig:', '  scanInterval: 1000', '  nodeAddresses:', ...nodes, ''].join('\n'));
    // Redisson's own account of a promotion (its master change, each channel re-subscribed) reaches the peer's
    // stderr, quoted when the promotion row fails.
    peer = await JavaPeer.start(VERSION, { address: '', configFile: file, logLevels: { 'org.redisson.connection': 'info', 'org.redisson.pubsub': 'info' } });
    client = Redisson.fromConfig(file);
  }, 120_000);

  afterAll(async () => {
    await client?.shutdown();
    await peer?.shutdown();
    await set?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await peer.call('lock', name, method, args, thread)).result;
  const waits = async (r: Redis): Promise<number> => Number(/cmdstat_wait:calls=(\d+)/.exec(await r.info('commandstats'))?.[1] ?? 0);
  const numsub = async (r: Redis, name: string): Promise<number> => Number(((await r.pubsub('NUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1]);
  const within = <T>(p: Promise<T>, what: string): Promise<T> => guard(p, HANG_GUARD_MS, what);

  it('Java holds (its write followed by WAIT): our tryLock() is false and our waiter wakes on its unlock; ours is WAITed for too', async () => {
    const master = set.direct(set.master());
    const name = uniqueName('interop-replicated');
    const before = await waits(master);
    await java(name, 'lock', [LONG_LEASE_MS], 'holder');
    expect((await waits(master)) - before).toBeGreaterThanOrEqual(1);
    expect(await client.getLock(name).tryLock()).toBe(false);
    const waiter = client.getLock(name);
    const waiting = waiter.lock();
    await eventually(async () => (await numsub(master, name)) === 1, HANG_GUARD_MS, 'our waiter to subscribe');
    const beforeOurs = await waits(master);
    await java(name, 'unlock', [], 'holder');
    await within(waiting, 'our waiter');
    expect((await waits(master)) - beforeOurs).toBeGreaterThanOrEqual(1);
    for (const replica of set.replicas()) expect(await set.direct(replica).hget(name, `${client.getId()}:${waiter.threadId}`)).toBe('1');
    await waiter.unlock();
  });

  it("we hold: Java's tryLock() is false and a Java waiter wakes on our unlock", async () => {
    const master = set.direct(set.master());
    const name = uniqueName('interop-replicated');
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await java(name, 'tryLock', [], 'probe')).toBe(false);
    const waiting = java(name, 'lock', [LONG_LEASE_MS], 'waiter');
    await eventually(async () => (await numsub(master, name)) === 1, HANG_GUARD_MS, 'the Java waiter to subscribe');
    await lock.unlock();
    await within(waiting, "Java's waiter");
    expect(Object.keys(await master.hgetall(name))).toEqual([`${peer.clientId}:${await peer.threadId('waiter')}`]);
    await java(name, 'unlock', [], 'waiter');
  });

  // Last: it promotes a replica. Redisson 4.7.0 (its source unchanged on master as of 2026-08) can lose a waiter's
  // subscription at any master change in replicated mode: its re-subscription unsubscribes the channel on the old
  // master's pub/sub connection it has just closed, and when that write fails nothing completes it, so nothing is
  // re-subscribed (COMPATIBILITY.md, replicated deployments). Redisson logs each channel it re-subscribes; the row
  // reads that log (INFO, on the peer's stderr) and checks each outcome for what it is: re-subscribed, our unlock
  // wakes Java by its message (within a guard far shorter than the lease); lost (the master change logged, no
  // re-subscription logged, no subscriber on any node), Java's waiter gets the lock at its TTL, as Redisson's
  // waiters do without a message. Anything else fails, with where the subscribers were and what Java logged.
  it('a promotion while we hold and Java waits: both follow by their scans; our unlock on the new master wakes Java (or, when Redisson lost its subscription, its TTL does), whose hold there excludes us', async () => {
    const oldMaster = set.direct(set.master());
    const name = uniqueName('interop-promoted');
    const channel = `redisson_lock__channel:{${name}}`;
    const lease = 40_000;
    const lock = client.getLock(name);
    await lock.lock(lease); // on both replicas (WAIT) before the promotion
    const waitsBefore = await waits(oldMaster);
    const javaWaiting = java(name, 'lock', [LONG_LEASE_MS], 'waiter');
    javaWaiting.catch(() => undefined); // awaited below
    // Parked, not only subscribed: Redisson attempts once more after subscribing, and each attempt is followed by
    // WAIT. A WAIT still blocked on the old master when it is demoted fails with UNBLOCKED, and Java's lock() with it
    // (seen in CI). So the promotion starts once both attempts' WAITs are done and no client is blocked.
    await eventually(
      async () => (await numsub(oldMaster, name)) === 1 && (await waits(oldMaster)) >= waitsBefore + 2 && /^blocked_clients:0\r?$/m.test(await oldMaster.info('clients')),
      HANG_GUARD_MS,
      'the Java waiter to subscribe and park',
    );

    const next = set.replicas()[0]!;
    const followed = once(client, 'failover');
    // (The one promotion of this file, and a channel of its own: the log lines searched for are this row's.)
    const javaLog = (): string => peer.stderr;
    // Demoted first: while two nodes say `master`, Java's scan switches between them, and with that window held
    // open for 2.5 s its waiter stayed subscribed on the demoted node, or its lock() failed (COMPATIBILITY.md,
    // replicated deployments).
    await set.promote(next, { order: 'demote-first' });
    await guard(followed, 5_000, 'our client to follow the promotion');
    const newMaster = set.direct(next);
    const started = Date.now();
    const seen: string[] = [];
    let changedAt: number | null = null;
    let outcome: 'resubscribed' | 'lost' | null = null;
    await eventually(
      async () => {
        const nodes = [set.master(), ...set.replicas()];
        const subscribers = await Promise.all(nodes.map((n) => numsub(set.direct(n), name)));
        const counts = nodes.map((n, i) => `${n.port}:${subscribers[i]}`).join(' ');
        if (seen.at(-1)?.startsWith(`${counts} @`) !== true) seen.push(`${counts} @${Date.now() - started} ms`);
        if (subscribers[nodes.indexOf(next)] === 1) outcome = 'resubscribed';
        const log = javaLog();
        if (changedAt === null && log.includes(`has been changed to 127.0.0.1/127.0.0.1:${next.port}`)) changedAt = Date.now();
        // Redisson re-subscribes within milliseconds of its master change (seen: 2 ms) or never: 3 s is ample.
        if (outcome === null && changedAt !== null && Date.now() - changedAt > 3_000 && !log.includes(`listeners of '${channel}' channel have been resubscribed`) && subscribers.every((n) => n === 0)) outcome = 'lost';
        return outcome !== null;
      },
      20_000,
      "the Java waiter to re-subscribe on the new master, or Redisson's log to show it lost the subscription",
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; new master ${next.port}; NUMSUB by node: ${seen.join(' | ')}; JVM stderr tail:\n${javaLog().slice(-4_000)}`, { cause: error });
    });
    await lock.unlock();
    if (outcome === 'resubscribed') {
      await within(javaWaiting, "Java's waiter, woken by our unlock's message");
    } else {
      console.warn(`replicated interop: Redisson ${VERSION} lost its waiter's subscription at the master change (no node subscribed; NUMSUB ${seen.join(' | ')}); its waiter gets the lock at its TTL`);
      await guard(javaWaiting, lease + HANG_GUARD_MS, "Java's waiter, at its TTL");
    }
    expect(Object.keys(await newMaster.hgetall(name))).toEqual([`${peer.clientId}:${await peer.threadId('waiter')}`]);
    expect(await client.getLock(name).tryLock()).toBe(false);
    await java(name, 'unlock', [], 'waiter');
    expect(await newMaster.exists(name)).toBe(0);
  }, 120_000);
});
