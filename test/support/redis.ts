/**
 * Test harness: real Redis servers only. `startRedis()` starts a `redis-server` on a free loopback port
 * (several at once if asked), or uses `REDIS_URL` when set, or — with no binary but a running Docker —
 * a testcontainers Redis. Every server is stopped by `stop()` and, as a fallback, when the process exits.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { hasRedisServerBinary, INSTALL_HINT, RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { Redisson } from '../../src/Redisson.js';
import type { RedissonOptions } from '../../src/config.js';

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** The process, when the harness started it (needed for kill/restart tests). */
  readonly server: RedisServerProcess | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Needs a process of its own (kill/restart): never the shared `REDIS_URL`. */
  own?: boolean;
  args?: string[];
  /** Options every client of the suite's `Clients` gets unless a call overrides them. */
  clientOptions?: RedissonOptions;
}

/** Starts (or points at) a Redis for one suite. */
export async function startRedis(options: StartOptions = {}): Promise<TestRedis> {
  const shared = process.env.REDIS_URL;
  if (shared && !options.own) {
    return { url: shared, port: Number(new URL(shared).port || 6379), server: null, stop: () => Promise.resolve() };
  }
  if (hasRedisServerBinary()) {
    const server = await RedisServerProcess.start(options.args ? { args: options.args } : {});
    return { url: server.url, port: server.port, server, stop: () => server.stop() };
  }
  if (!options.own && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0) {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7').withExposedPorts(6379).start();
    const port = container.getMappedPort(6379);
    return {
      url: `redis://${container.getHost()}:${port}`,
      port,
      server: null,
      stop: async () => void (await container.stop()),
    };
  }
  throw new Error(INSTALL_HINT);
}

/** Starts `n` independent servers (RedLock, cluster and sentinel suites need several). */
export function startRedisMany(n: number, options: StartOptions = {}): Promise<TestRedis[]> {
  return Promise.all(Array.from({ length: n }, () => startRedis({ ...options, own: true })));
}

/** A name no other test uses, so suites can share one server without flushing it. */
export function uniqueName(prefix = 'lock'): string {
  return `${prefix}:${randomUUID().slice(0, 8)}`;
}

/** Tracks clients and raw connections made by a suite and closes them all in `closeAll()`. */
export class Clients {
  readonly #clients: Redisson[] = [];
  readonly #raw: Redis[] = [];
  /**
   * @param defaults options every client gets unless `client(options)` overrides them (e.g. a short
   *   `lockWatchdogTimeout`). Suites porting Java's one-thread re-entry use `runInThread`, on the default ownership.
   */
  constructor(
    private readonly url: string,
    private readonly defaults: RedissonOptions = {},
  ) {}

  client(options: RedissonOptions = {}): Redisson {
    // Suites use sub-second leases on purpose; the one-time warning about them has its own test.
    const c = Redisson.create({ redis: this.url, shortLeaseWarning: false, ...this.defaults, ...options });
    this.#clients.push(c);
    return c;
  }

  raw(options: RedisOptions = {}): Redis {
    const r = new Redis(this.url, options);
    this.#raw.push(r);
    return r;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.#clients.splice(0).map((c) => c.shutdown()));
    await Promise.allSettled(this.#raw.splice(0).map((r) => r.quit().catch(() => r.disconnect())));
  }
}

/** `promise`, or a rejection after `ms` naming `what`: a hang guard (support/poll.ts), never an assertion on timing. */
export { within } from './poll.js';

/** Resolves after `ms`. For letting leases run out — never as a stand-in for an assertion on ordering. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves when `predicate()` is true, checking on each message of the event loop up to `ms`. */
export async function eventually(predicate: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A raw subscriber collecting messages of `channel` (what a Java Redisson subscriber would see). */
export async function collectMessages(redis: Redis, channel: string): Promise<string[]> {
  const messages: string[] = [];
  redis.on('message', (ch: string, msg: string) => {
    if (ch === channel) messages.push(msg);
  });
  await redis.subscribe(channel);
  return messages;
}

/** A suite's server and clients, filled in by the hooks {@link useRedis} registers. */
export interface RedisSuite {
  readonly redis: TestRedis;
  readonly clients: Clients;
}

/** Starts a Redis before the suite's tests (`startRedis(options)`) and closes clients and server after. */
export function useRedis(options: StartOptions = {}): RedisSuite {
  const suite = {} as { redis: TestRedis; clients: Clients };
  beforeAll(async () => {
    suite.redis = await startRedis(options);
    suite.clients = new Clients(suite.redis.url, options.clientOptions);
  });
  afterAll(async () => {
    await suite.clients?.closeAll();
    await suite.redis?.stop();
  });
  return suite;
}
