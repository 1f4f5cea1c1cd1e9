/**
 * A control, not a library: Redisson's RLock protocol with as little JavaScript around it as it takes to be
 * correct, so the report can show what the protocol itself costs on ioredis and how much of a gap to a peer
 * is ours (issue 15). It sends what redisson-ts and Redisson send for a lock with a lease: our own
 * `tryLockInner` and `unlockInner` scripts from lua/lock/, by EVALSHA, the unlock latch's `DEL` after a
 * release, and on a waiter's release channel one `SUBSCRIBE` per client.
 *
 * What it leaves out is everything a user relies on besides exclusion: no watchdog (every hold is a 30 s
 * lease), no reentrancy bookkeeping, no abort, no reconnect handling, no lost-reply ledger, no input checks.
 * A client stays subscribed to a channel from its first waiter on. Waiting is Redisson's rule: a release
 * message wakes this client's longest waiter (one per message; a message with nobody waiting is kept for the
 * next one), which retries; no waiter sleeps past the TTL its last attempt returned.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { Implementation, LockClient } from './types.js';

const LEASE_MS = 30_000;
/** Redisson's default latch TTL: (timeout 3 s + retry delay 1.5 s) × 4 attempts. */
const LATCH_TTL_MS = 18_000;

const script = (name: string): string => readFileSync(new URL(`../../lua/lock/${name}.lua`, import.meta.url), 'utf8');

interface Channel {
  /** Waiters' wake-ups, longest waiter first. */
  readonly queue: (() => void)[];
  /** A release message came while nobody waited: the next waiter retries at once. */
  banked: boolean;
  readonly subscribed: Promise<unknown>;
  /** The subscription is confirmed. */
  ready: boolean;
}

type BareRedis = Redis & {
  tryLockInner(lock: string, lease: number, field: string): Promise<number | null>;
  unlockInner(lock: string, channel: string, latch: string, message: number, lease: number, field: string, publish: string, latchTtl: number): Promise<number | null>;
};

export const bareProtocol: Implementation = {
  name: 'bare-protocol',
  version: () => 'lua/lock/*.lua on ioredis',
  settings: `control: Redisson's lock protocol with no features around it (lease ${LEASE_MS / 1000} s instead of a watchdog, one subscription per channel kept for the client's life)`,
  // Where the protocol's cost is the question; without a watchdog or reentrancy the rest would measure nothing.
  scenarios: ['uncontended', 'handoff', 'contention', 'clients', 'users'],
  open(options): Promise<LockClient> {
    const redis = new Redis(options.url) as BareRedis;
    redis.defineCommand('tryLockInner', { numberOfKeys: 1, lua: script('tryLockInner') });
    redis.defineCommand('unlockInner', { numberOfKeys: 3, lua: script('unlockInner') });
    const subscriber = new Redis(options.url);
    const id = randomUUID();
    const channels = new Map<string, Channel>();
    let threads = 0;
    subscriber.on('message', (name: string) => {
      const channel = channels.get(name);
      if (!channel) return;
      const wake = channel.queue.shift();
      if (wake) wake();
      else channel.banked = true;
    });
    const channelOf = (name: string): Channel => {
      let channel = channels.get(name);
      if (!channel) {
        const created: Channel = { queue: [], banked: false, ready: false, subscribed: subscriber.subscribe(name).then(() => (created.ready = true)) };
        channels.set(name, created);
        channel = created;
      }
      return channel;
    };
    /** Resolves on this channel's next release message (or a banked one), or after `ttl` ms. */
    const wait = async (channel: Channel, ttl: number): Promise<void> => {
      if (channel.banked) {
        channel.banked = false;
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          resolve();
        };
        channel.queue.push(wake);
        // -1: a lock without expiry; Redisson then waits for a message only.
        if (ttl >= 0) {
          timer = setTimeout(() => {
            const at = channel.queue.indexOf(wake);
            if (at >= 0) channel.queue.splice(at, 1);
            resolve();
          }, ttl);
        }
      });
    };
    return Promise.resolve({
      handle(name) {
        const field = `${id}:${++threads}`;
        const channelName = `redisson_lock__channel:{${name}}`;
        return {
          async acquire() {
            // A channel this client is already subscribed to delivers every release after this attempt ran: its
            // TTL is enough to wait on (as redisson-ts's join). Otherwise Redisson's order: subscribe, then try
            // again before waiting, since a release may have come in between.
            const known = channels.get(channelName);
            const joined = known?.ready === true;
            let ttl = await redis.tryLockInner(name, LEASE_MS, field);
            if (ttl === null) return;
            const channel = known ?? channelOf(channelName);
            if (!joined) {
              await channel.subscribed;
              ttl = await redis.tryLockInner(name, LEASE_MS, field);
              if (ttl === null) return;
            }
            for (;;) {
              await wait(channel, ttl);
              ttl = await redis.tryLockInner(name, LEASE_MS, field);
              if (ttl === null) return;
            }
          },
          async release() {
            const latch = `redisson_unlock_latch:{${name}}:${randomUUID().replaceAll('-', '')}`;
            const released = await redis.unlockInner(name, channelName, latch, 0, LEASE_MS, field, 'PUBLISH', LATCH_TTL_MS);
            void redis.del(latch).catch(() => undefined);
            if (released === null) throw new Error(`bare-protocol: ${field} did not hold ${name}`);
          },
        };
      },
      async close() {
        await Promise.all([redis.quit(), subscriber.quit()]);
      },
    });
  },
};
