/**
 * What the semaphore and latch behaviour tests share: counting the server's commands (to tell when a
 * waiter is parked, and that bad input sent nothing), channel subscriber counts, and a settled-or-not
 * view of a promise. No assertion here depends on timing: time limits are hang guards only.
 */
import type { Redis } from 'ioredis';
import { eventually, within as guard } from '../support/redis.js';

/** Calls of `command` the server ran so far, including those run by scripts (INFO commandstats). */
export async function calls(raw: Redis, command: string): Promise<number> {
  const m = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await raw.info('commandstats'));
  return Number(m?.[1] ?? 0);
}

/** Every command call the server ran so far (INFO commandstats summed), minus the INFO calls themselves. */
export async function allCalls(raw: Redis): Promise<number> {
  const stats = await raw.info('commandstats');
  let total = 0;
  for (const m of stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/**
 * Resolves once no client has a channel subscribed on the server: a waiter that acquired leaves its channel
 * subscribed for the client's `subscriptionLinger`, and the UNSUBSCRIBE that ends it is a command — a test
 * that counts every command must not start its count while one is pending.
 */
export function noSubscriptions(raw: Redis): Promise<void> {
  return eventually(async () => ((await raw.pubsub('CHANNELS')) as string[]).length === 0, 5_000, 'lingering subscriptions to end');
}

/** Subscribers of `channel` on the server. */
export async function numSub(raw: Redis, channel: string): Promise<number> {
  const reply = (await raw.pubsub('NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

/**
 * Resolves once `n` waiters that started after `from` (a {@link calls} of GET) are parked: each made its
 * attempt before subscribing and its retry after (one GET each — inside the semaphore's tryAcquire
 * script, or the latch's count check), and waits for a message now.
 */
export function parked(raw: Redis, from: number, n: number, who = 'waiters'): Promise<void> {
  return eventually(async () => (await calls(raw, 'get')) - from >= 2 * n, 10_000, `${who} parked`);
}

/** Observes whether a promise has settled, without waiting for it. */
export function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** `promise`, or a rejection after `ms` (a hang guard, not an assertion on time). */
export const within = <T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> => guard(promise, ms, what);
