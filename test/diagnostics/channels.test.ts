/**
 * The `redisson-ts:*` diagnostics channels: a subscriber sees, for real operations against a real
 * redis-server, the events of each traced operation in order, with contexts that name the object, its
 * primitive and owner, and carry the outcome (acquired, woken, released, renewed, lost) and durations.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNELS, describeEvent, type AcquireContext, type LostContext, type ReleaseContext, type RenewalContext, type WaitContext } from '../../src/diagnostics.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';

type Any = AcquireContext | WaitContext | ReleaseContext | RenewalContext | LostContext;
interface Seen {
  readonly channel: string;
  readonly event: string;
  readonly context: Any;
}

const suite = useRedis();
let seen: Seen[] = [];
let unsubscribe: (() => void)[] = [];

beforeEach(() => {
  seen = [];
  for (const [short, name] of Object.entries(CHANNELS)) {
    const record = (event: string) => (context: object) => seen.push({ channel: short, event, context: { ...(context as Any) } });
    const handlers = { start: record('start'), end: record('end'), asyncStart: record('asyncStart'), asyncEnd: record('asyncEnd'), error: record('error') };
    diagnosticsChannel.tracingChannel(name).subscribe(handlers);
    unsubscribe.push(() => diagnosticsChannel.tracingChannel(name).unsubscribe(handlers));
  }
});
afterEach(() => {
  for (const off of unsubscribe) off();
  unsubscribe = [];
});

/** The events about `name`, as `channel:event` strings. */
const about = (name: string): string[] => seen.filter((s) => 'name' in s.context && s.context.name === name).map((s) => `${s.channel}:${s.event}`);
const find = (name: string, channel: string, event: string): Any[] =>
  seen.filter((s) => 'name' in s.context && s.context.name === name && s.channel === channel && s.event === event).map((s) => s.context);

describe('diagnostics channels', () => {
  it('traces a lock and unlock: acquire start → end → asyncEnd (acquired), release … (released, heldMs)', async () => {
    const client = suite.clients.client();
    const name = uniqueName('diag');
    const lock = client.getLock(name);
    await lock.lock(60_000);
    await lock.unlock();
    expect(about(name)).toEqual([
      'acquire:start',
      'acquire:end',
      'acquire:asyncStart',
      'acquire:asyncEnd',
      'release:start',
      'release:end',
      'release:asyncStart',
      'release:asyncEnd',
    ]);
    const [acq] = find(name, 'acquire', 'asyncEnd') as AcquireContext[];
    expect(acq).toMatchObject({ name, rawName: name, primitive: 'RLock', clientId: client.id, owner: lock.threadId, leaseMs: 60_000, waitMs: -1, acquired: true });
    expect(acq?.waitedMs).toBeGreaterThanOrEqual(0);
    const [rel] = find(name, 'release', 'asyncEnd') as ReleaseContext[];
    expect(rel).toMatchObject({ name, primitive: 'RLock', owner: lock.threadId, released: true });
    expect(rel?.heldMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a reentrant release as not released, and an unlock by a non-owner on `error`', async () => {
    const client = suite.clients.client();
    const name = uniqueName('diag');
    const lock = client.getLock(name);
    await lock.lock({ threadId: 7 });
    await lock.lock({ threadId: 7 });
    await lock.unlock({ threadId: 7 });
    await lock.unlock({ threadId: 7 });
    await expect(lock.unlock({ threadId: 7 })).rejects.toThrow(/IllegalMonitorState|not locked|does not hold/i);
    const releases = find(name, 'release', 'asyncEnd') as ReleaseContext[];
    expect(releases.map((r) => r.released)).toEqual([false, true, false]);
    expect(releases[0]?.heldMs).toBeUndefined();
    expect(releases[1]?.heldMs).toBeGreaterThanOrEqual(0);
    const errors = find(name, 'release', 'error') as ReleaseContext[];
    expect(errors).toHaveLength(1);
    expect((errors[0]?.error as Error).name).toBe('IllegalMonitorStateError');
  });

  it('reports a reader\'s last hold released while another client still reads as released, with its hold time', async () => {
    const name = uniqueName('diag');
    const other = suite.clients.client().getReadWriteLock(name);
    await other.readLock().lock(60_000);
    const read = suite.clients.client().getReadWriteLock(name).readLock();
    await read.lock({ threadId: 5 });
    await read.lock({ threadId: 5 });
    await read.unlock({ threadId: 5 });
    await read.unlock({ threadId: 5 }); // the lock stays held by the other reader
    await other.readLock().unlock();
    const releases = find(name, 'release', 'asyncEnd') as ReleaseContext[];
    expect(releases.map((r) => [r.owner, r.released, typeof r.heldMs])).toEqual([
      [5, false, 'undefined'],
      [5, true, 'number'],
      [other.threadId, true, 'number'],
    ]);
  });

  it('traces a wait woken by another client: wait starts after the first attempt, ends woken after the release', async () => {
    const holderClient = suite.clients.client();
    const waiterClient = suite.clients.client();
    const name = uniqueName('diag');
    const holder = holderClient.getLock(name);
    await holder.lock(60_000);
    const waiting = waiterClient.getLock(name).tryLock(30_000, 60_000);
    // The waiter subscribed and waits (for at most the holder's 60 s TTL).
    await eventually(() => find(name, 'wait', 'start').length === 1, 10_000, 'the waiter to wait');
    await holder.unlock();
    expect(await waiting).toBe(true);

    const waiterEvents = seen
      .filter((s) => 'clientId' in s.context && s.context.clientId === waiterClient.id && (s.event === 'start' || s.event === 'asyncEnd'))
      .map((s) => `${s.channel}:${s.event}`);
    expect(waiterEvents).toEqual(['acquire:start', 'wait:start', 'wait:asyncEnd', 'acquire:asyncEnd']);
    const order = about(name);
    // The holder's release started before the waiter's wait ended (the release message woke it).
    expect(order.indexOf('release:start')).toBeLessThan(order.indexOf('wait:asyncEnd'));
    const [wait] = find(name, 'wait', 'asyncEnd') as WaitContext[];
    expect(wait).toMatchObject({ name, primitive: 'RLock', clientId: waiterClient.id, channel: `redisson_lock__channel:{${name}}`, woken: true });
    expect(wait?.timeoutMs).toBeGreaterThan(0);
    expect(wait?.timeoutMs).toBeLessThanOrEqual(60_000);
    const acquires = find(name, 'acquire', 'asyncEnd') as AcquireContext[];
    expect(acquires.map((a) => [a.clientId, a.waitMs, a.acquired])).toEqual([
      [holderClient.id, -1, true],
      [waiterClient.id, 30_000, true],
    ]);
    await waiterClient.getLock(name).forceUnlock();
  });

  it('traces the watchdog: renewal batches that renewed the lock, then the loss once its key is deleted', async () => {
    const client = suite.clients.client({ lockWatchdogTimeout: 300 });
    const raw = suite.clients.raw();
    const name = uniqueName('diag');
    const lock = client.getLock(name);
    await lock.lock();
    const renewedMine = (): RenewalContext[] =>
      seen.filter((s) => s.channel === 'renewal' && s.event === 'asyncEnd').map((s) => s.context as RenewalContext).filter((c) => c.locks.some((l) => l.rawName === name));
    await eventually(() => renewedMine().some((c) => c.renewed >= 1), 10_000, 'a renewal');
    const [renewal] = renewedMine();
    expect(renewal).toMatchObject({ kind: 'lock', renewed: 1, gone: 0 });
    expect(renewal?.locks).toEqual([{ rawName: name, field: `${client.id}:${lock.threadId}` }]);

    await raw.del(name);
    await eventually(() => find(name, 'lost', 'start').length === 1, 10_000, 'the loss');
    expect(renewedMine().some((c) => c.gone === 1)).toBe(true);
    const lostEvents = seen.filter((s) => s.channel === 'lost').map((s) => s.event);
    expect(lostEvents).toEqual(['start', 'end']);
    const [lost] = find(name, 'lost', 'start') as LostContext[];
    expect(lost).toMatchObject({ name, rawName: name, kind: 'lock', clientId: client.id, owner: lock.threadId });
    expect(lost?.heldMs).toBeGreaterThan(0);
    await expect(lock.unlock()).rejects.toThrow();
  });

  it('traces semaphore acquires and releases with their permits, and a latch await', async () => {
    const client = suite.clients.client();
    const name = uniqueName('diag-sem');
    const semaphore = client.getSemaphore(name);
    await semaphore.trySetPermits(1);
    await semaphore.acquire();
    const second = semaphore.acquire();
    await eventually(() => find(name, 'wait', 'start').length === 1, 10_000, 'the second acquire to wait');
    await semaphore.release();
    await second;
    await semaphore.release();
    const order = about(name).filter((e) => e.endsWith(':start') || e.endsWith(':asyncEnd'));
    // The release's reply and the message it published arrive on two connections, in either order.
    const woke = order.indexOf('wait:asyncEnd');
    expect(order.slice(0, 5)).toEqual(['acquire:start', 'acquire:asyncEnd', 'acquire:start', 'wait:start', 'release:start']);
    expect(woke).toBeGreaterThan(4);
    expect(order.slice(woke)).toEqual(expect.arrayContaining(['wait:asyncEnd', 'acquire:asyncEnd']));
    expect(order.filter((e) => e !== 'release:asyncEnd').slice(5)).toEqual(['wait:asyncEnd', 'acquire:asyncEnd', 'release:start']);
    expect(order.at(-1)).toBe('release:asyncEnd');
    expect(find(name, 'release', 'asyncEnd')).toMatchObject([
      { primitive: 'RSemaphore', permits: 1, released: true },
      { primitive: 'RSemaphore', permits: 1, released: true },
    ]);

    const latchName = uniqueName('diag-latch');
    const latch = client.getCountDownLatch(latchName);
    await latch.trySetCount(1);
    const opened = latch.await();
    await eventually(() => find(latchName, 'wait', 'start').length === 1, 10_000, 'the await to wait');
    await latch.countDown();
    await opened;
    expect(find(latchName, 'acquire', 'asyncEnd')).toMatchObject([{ primitive: 'RCountDownLatch', acquired: true }]);
    expect(find(latchName, 'wait', 'asyncEnd')).toMatchObject([{ woken: true, timeoutMs: -1 }]);
  });

  it('publishes nothing while nobody subscribes, and formats events for NODE_DEBUG', async () => {
    for (const off of unsubscribe) off();
    unsubscribe = [];
    const client = suite.clients.client();
    const name = uniqueName('diag');
    const lock = client.getLock(name);
    await lock.lock();
    await lock.unlock();
    expect(seen).toEqual([]);
    for (const [, channel] of Object.entries(CHANNELS)) expect(diagnosticsChannel.tracingChannel(channel).hasSubscribers).toBe(false);
    expect(describeEvent(CHANNELS.release, 'asyncEnd', { name: 'a', primitive: 'RLock', owner: 3, released: true, heldMs: 1.25, clientId: 'x' })).toBe(
      'release asyncEnd name="a" primitive="RLock" owner=3 released=true heldMs=1.3',
    );
  });
});
