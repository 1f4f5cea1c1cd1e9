/**
 * The acquire loop (wait/acquire.ts) on its own, over a real redis-server and a real PublishSubscribe, with
 * attempts written by the test (a free/held flag in the test) so each step of the loop can be forced:
 * a first attempt that wins never subscribes; a waiter retries on a release message and otherwise only when
 * the delay its attempt returned runs out (no polling); the wait ends with null, aborts undo a late
 * acquisition, a waiting call that gives up leaves the queue (giveUp), and nothing is left subscribed.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientContext } from '../../src/ClientContext.js';
import { resolveOptions } from '../../src/config.js';
import { IoredisSubscriber } from '../../src/connection/ioredis/IoredisSubscriber.js';
import { PublishSubscribe } from '../../src/pubsub/PublishSubscribe.js';
import { lockWakePolicy } from '../../src/pubsub/wakePolicies.js';
import { acquire, acquired, retryAfter, type Attempt } from '../../src/wait/acquire.js';
import { Clients, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

let server: TestRedis;
let clients: Clients;
let raw: Redis;
let pubsub: PublishSubscribe;
const background: Promise<unknown>[] = [];

beforeAll(async () => {
  server = await startRedis();
  clients = new Clients(server.url);
  raw = clients.raw();
  pubsub = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), '');
});
afterAll(async () => {
  await Promise.allSettled(background);
  await pubsub.close();
  await clients.closeAll();
  await server.stop();
});

/** The parts of a client the loop uses, around the real pub/sub. */
function context(): ClientContext {
  return {
    options: resolveOptions({ redis: server.url }),
    pubsub,
    clustered: false,
    trackWaiter: () => {},
    untrackWaiter: () => {},
    keepUntilClosed: (work: Promise<unknown>) => void background.push(work),
  } as unknown as ClientContext;
}

/** A resource the test frees at will; each attempt is recorded with whether it was a retry. */
function resource(retryMs: number) {
  const state = { free: false, attempts: [] as boolean[] };
  const attempt = (retry: boolean): Promise<Attempt<string>> => {
    state.attempts.push(retry);
    return Promise.resolve(state.free ? acquired('token') : retryAfter<string>(retryMs));
  };
  return { state, attempt };
}

const channelSubscribers = async (channel: string): Promise<number> => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);

describe('acquire', () => {
  it('a first attempt that wins returns its value and never subscribes', async () => {
    const channel = uniqueName('ch');
    const { state, attempt } = resource(-1);
    state.free = true;
    const before = Number(/cmdstat_subscribe:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0);
    expect(await acquire({ ctx: context(), attempt, undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: -1 })).toEqual({ value: 'token' });
    const after = Number(/cmdstat_subscribe:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0);
    expect(after - before).toBe(0);
    expect(state.attempts).toEqual([false]);
  });

  it('waitMs 0 is a single attempt: null when it fails, without subscribing', async () => {
    const channel = uniqueName('ch');
    const { state, attempt } = resource(-1);
    expect(await acquire({ ctx: context(), attempt, undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: 0 })).toBeNull();
    expect(state.attempts).toEqual([false]);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('a waiter retries when a release message arrives, not before (no polling), and unsubscribes after', async () => {
    const channel = uniqueName('ch');
    const { state, attempt } = resource(-1); // no TTL: only a message may wake it
    const result = acquire({ ctx: context(), attempt, undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: -1 });
    // Subscribed, retried once after subscribing, and now parked.
    for (let i = 0; i < 200 && (await channelSubscribers(channel)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 200));
    expect(state.attempts).toEqual([false, true]);
    state.free = true;
    await raw.publish(channel, '0');
    expect(await result).toEqual({ value: 'token' });
    expect(state.attempts).toEqual([false, true, true]);
    // The channel may linger for a next waiter of this client (subscriptionLinger), but no waiter is left.
    expect(pubsub.waiterCount).toBe(0);
  });

  it('without a message, a waiter retries when the delay its attempt returned runs out, and gives up with null when the wait does', async () => {
    const channel = uniqueName('ch');
    const { state, attempt } = resource(150);
    let gaveUp = 0;
    const result = await acquire({
      ctx: context(),
      attempt,
      undo: () => Promise.resolve(),
      giveUp: () => Promise.resolve(void gaveUp++),
      mode: { channel, policy: lockWakePolicy },
      waitMs: 1_500,
    });
    expect(result).toBeNull();
    // first attempt, the retry after subscribing, then at most one retry per 150 ms delay within the wait:
    // at least one retry came from the delay alone (nothing was published), and never more than the delays allow
    expect(state.attempts[0]).toBe(false);
    expect(state.attempts.length).toBeGreaterThanOrEqual(3);
    expect(state.attempts.length).toBeLessThanOrEqual(2 + Math.ceil(1_500 / 150) + 1);
    expect(gaveUp).toBe(1);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('a wait timer that fires before the wait has run out (by performance.now()) waits the rest: no retry after the wait', async () => {
    // Node's timers count from the loop's cached clock and can fire up to a millisecond early. Forced here: every
    // long timer fires 20 ms early while the waiter is parked. Before, the loop saw time left, sent one more
    // attempt after its wait was over, and a paused server turned that attempt into a command timeout.
    const channel = uniqueName('ch');
    const { state, attempt } = resource(-1); // no TTL: only the wait's own deadline ends it
    const real = globalThis.setTimeout;
    const early = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) =>
      real(fn, ms !== undefined && ms >= 300 ? ms - 20 : ms, ...args)) as typeof setTimeout;
    globalThis.setTimeout = early;
    const started = performance.now();
    try {
      const result = await acquire({ ctx: context(), attempt, undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: 400 });
      expect(result).toBeNull();
    } finally {
      globalThis.setTimeout = real;
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    // The first attempt and the retry after subscribing; none after the wait.
    expect(state.attempts).toEqual([false, true]);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('an abort while an attempt is in flight rejects at once, and an acquisition that still lands is undone', async () => {
    const channel = uniqueName('ch');
    const controller = new AbortController();
    let land!: (a: Attempt<string>) => void;
    const undone: string[] = [];
    const result = acquire({
      ctx: context(),
      attempt: () => new Promise<Attempt<string>>((resolve) => (land = resolve)),
      undo: (value) => Promise.resolve(void undone.push(value)),
      mode: { channel, policy: lockWakePolicy },
      waitMs: -1,
      signal: controller.signal,
    });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('caller gave up'));
    await expect(result).rejects.toThrow('caller gave up');
    land(acquired('late token'));
    await Promise.allSettled(background);
    expect(undone).toEqual(['late token']);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('an abort in the same tick as the attempt acquiring: the call rejects with the reason and the acquisition is undone, once', async () => {
    const channel = uniqueName('ch');
    const controller = new AbortController();
    let land!: (a: Attempt<string>) => void;
    const undone: string[] = [];
    const result = acquire({
      ctx: context(),
      attempt: () => new Promise<Attempt<string>>((resolve) => (land = resolve)),
      undo: (value) => Promise.resolve(void undone.push(value)),
      mode: { channel, policy: lockWakePolicy },
      waitMs: -1,
      signal: controller.signal,
    });
    await new Promise((r) => setImmediate(r));
    // The attempt has resolved, but the loop has not read its result yet (that is a microtask away).
    land(acquired('same-tick token'));
    controller.abort(new Error('caller gave up'));
    await expect(result).rejects.toThrow('caller gave up');
    await Promise.allSettled(background);
    expect(undone).toEqual(['same-tick token']);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('an attempt that fails after the abort does not replace the abort reason', async () => {
    const channel = uniqueName('ch');
    const controller = new AbortController();
    let fail!: (e: Error) => void;
    const undone: string[] = [];
    const result = acquire({
      ctx: context(),
      attempt: () => new Promise<Attempt<string>>((_, reject) => (fail = reject)),
      undo: (value) => Promise.resolve(void undone.push(value)),
      mode: { channel, policy: lockWakePolicy },
      waitMs: -1,
      signal: controller.signal,
    });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('caller gave up'));
    fail(new Error('connection lost'));
    // The background undo sees the failure: nothing to undo, and nothing left unhandled.
    const settled = Promise.allSettled(background);
    await expect(result).rejects.toThrow('caller gave up');
    await settled;
    expect(undone).toEqual([]);
    expect(pubsub.waiterCount).toBe(0);
  });

  it('an abort while a retry after a wake-up is in flight rejects at once, and an acquisition that still lands is undone', async () => {
    const channel = uniqueName('ch');
    const controller = new AbortController();
    const attempts: boolean[] = [];
    let land: ((a: Attempt<string>) => void) | undefined;
    const undone: string[] = [];
    const result = acquire({
      ctx: context(),
      // Refused twice (before and after subscribing), then the retry a release message starts hangs until landed.
      attempt: (retry) => {
        attempts.push(retry);
        return attempts.length <= 2 ? Promise.resolve(retryAfter<string>(-1)) : new Promise<Attempt<string>>((resolve) => (land = resolve));
      },
      undo: (value) => Promise.resolve(void undone.push(value)),
      mode: { channel, policy: lockWakePolicy },
      waitMs: -1,
      signal: controller.signal,
    });
    for (let i = 0; i < 200 && (attempts.length < 2 || (await channelSubscribers(channel)) === 0); i++) await new Promise((r) => setTimeout(r, 5));
    await raw.publish(channel, '0');
    for (let i = 0; i < 200 && land === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(attempts).toEqual([false, true, true]);
    controller.abort(new Error('caller gave up'));
    await expect(result).rejects.toThrow('caller gave up');
    land!(acquired('late token'));
    await Promise.allSettled(background);
    expect(undone).toEqual(['late token']);
    expect(pubsub.waiterCount).toBe(0);
  });

  it("a woken waiter outranked by another client's older waiter retries a turn later; an abort in that turn rejects it with no retry", async () => {
    const second = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), '');
    const channel = uniqueName('ch');
    const refusing = (log: boolean[]) => (retry: boolean): Promise<Attempt<string>> => {
      log.push(retry);
      return Promise.resolve(retryAfter<string>(-1));
    };
    const olderAttempts: boolean[] = [];
    const youngerAttempts: boolean[] = [];
    const olderAbort = new AbortController();
    const youngerAbort = new AbortController();
    const older = acquire({ ctx: context(), attempt: refusing(olderAttempts), undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: -1, signal: olderAbort.signal });
    for (let i = 0; i < 200 && (olderAttempts.length < 2 || (await channelSubscribers(channel)) < 1); i++) await new Promise((r) => setTimeout(r, 5));
    const youngerCtx = { ...context(), pubsub: second } as ClientContext;
    const younger = acquire({ ctx: youngerCtx, attempt: refusing(youngerAttempts), undo: () => Promise.resolve(), mode: { channel, policy: lockWakePolicy }, waitMs: -1, signal: youngerAbort.signal });
    for (let i = 0; i < 200 && (youngerAttempts.length < 2 || (await channelSubscribers(channel)) < 2); i++) await new Promise((r) => setTimeout(r, 5));
    expect(youngerAttempts).toEqual([false, true]);
    // The younger waiter's deferred retry is scheduled with setImmediate: abort it right then, inside that turn.
    const original = globalThis.setImmediate;
    let deferred = 0;
    globalThis.setImmediate = ((fn: (...a: unknown[]) => void, ...args: unknown[]) => {
      if (fn.name === 'retryLater') {
        deferred++;
        youngerAbort.abort(new Error('younger gave up'));
      }
      return original(fn, ...args);
    }) as typeof setImmediate;
    try {
      await raw.publish(channel, '0');
      await expect(younger).rejects.toThrow('younger gave up');
    } finally {
      globalThis.setImmediate = original;
    }
    expect(deferred).toBe(1);
    expect(youngerAttempts).toEqual([false, true]);
    // The older waiter retried on the same message (refused) and waits again.
    for (let i = 0; i < 200 && olderAttempts.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(olderAttempts).toEqual([false, true, true]);
    olderAbort.abort(new Error('older gave up'));
    await expect(older).rejects.toThrow('older gave up');
    expect(pubsub.waiterCount).toBe(0);
    expect(second.waiterCount).toBe(0);
    await second.close();
  });

  it('an already-aborted signal rejects before any attempt', async () => {
    const { state, attempt } = resource(-1);
    await expect(acquire({ ctx: context(), attempt, undo: () => Promise.resolve(), mode: { channel: uniqueName('ch'), policy: lockWakePolicy }, waitMs: -1, signal: AbortSignal.abort(new Error('no')) })).rejects.toThrow('no');
    expect(state.attempts).toEqual([]);
  });

  it('a channel-less waiter backs off between attempts', async () => {
    const { state, attempt } = resource(10_000);
    let sleeps = 0;
    const result = acquire({
      ctx: context(),
      attempt: (retry) => {
        if (state.attempts.length === 3) state.free = true;
        return attempt(retry);
      },
      undo: () => Promise.resolve(),
      mode: { backoff: () => ({ next: () => (sleeps++, 5) }) },
      waitMs: 5_000,
    });
    expect(await result).toEqual({ value: 'token' });
    expect(state.attempts).toEqual([false, true, true, true]);
    expect(sleeps).toBe(3);
  });
});
