/**
 * Messages state what happened (issue 26): a call that could not reach Redis reports how long it really
 * waited and which limit ended the wait — `timeout`, ioredis' `maxRetriesPerRequest`, or a `retryStrategy`
 * that gave up — rather than always "within `timeout`". A real port nothing listens on; a paused server for a
 * reply that never comes.
 */
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../../packages/cli/src/RedisServerProcess.js';
import { Redisson, RedisConnectionError, RedisTimeoutError, isRedissonError, type RedissonOptions } from '../../src/index.js';
import { useRedis } from '../support/redis.js';

const suite = useRedis({ own: true });
const clients: Redisson[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.shutdown()));
});

/** The error of one `tryLock()` on a client of `options`, and the time measured around the call. */
async function failedCall(options: RedissonOptions): Promise<{ error: RedisConnectionError; outsideMs: number }> {
  const client = Redisson.create(options);
  client.on('error', () => undefined);
  clients.push(client);
  const started = performance.now();
  const error: unknown = await client.getLock('unreachable').tryLock().then(
    () => null,
    (e: unknown) => e,
  );
  const outsideMs = performance.now() - started;
  expect(error).toBeInstanceOf(RedisConnectionError);
  expect(isRedissonError(error)).toBe(true);
  expect((error as RedisConnectionError).code).toBe('ERR_REDISSON_CONNECTION');
  return { error: error as RedisConnectionError, outsideMs };
}

it('maxRetriesPerRequest: 1 ends the wait first: the message names it and the time really waited, not `timeout`', async () => {
  const port = await freePort();
  const { error, outsideMs } = await failedCall({ redis: { host: '127.0.0.1', port, maxRetriesPerRequest: 1 }, timeout: 10_000 });
  expect(error.limit).toBe('ioredis maxRetriesPerRequest 1 exceeded: 2 reconnect attempts, before timeout 10000 ms');
  // The time reported is the time the call took (measured inside it), never the unreached limit.
  expect(error.elapsedMs).toBeLessThanOrEqual(Math.ceil(outsideMs));
  expect(error.message).toBe(
    `could not reach Redis at 127.0.0.1:${port}: gave up after ${error.elapsedMs} ms (${error.limit}); the command was not sent; ` +
      `last error: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});

it('a retryStrategy that gives up ends the wait at once, and the message says so', async () => {
  const port = await freePort();
  const { error, outsideMs } = await failedCall({ redis: { host: '127.0.0.1', port, retryStrategy: () => null }, timeout: 10_000 });
  expect(error.limit).toBe('the connection closed for good: ioredis retryStrategy gave up, or it was disconnected');
  expect(error.elapsedMs).toBeLessThanOrEqual(Math.ceil(outsideMs));
  expect(error.message).toContain(`gave up after ${error.elapsedMs} ms (${error.limit})`);
});

it('when `timeout` ends the wait, the message names it and the time waited', async () => {
  const port = await freePort();
  const { error, outsideMs } = await failedCall({ redis: { host: '127.0.0.1', port }, timeout: 200 });
  expect(error.limit).toBe('timeout 200 ms');
  expect(error.elapsedMs).toBeLessThanOrEqual(Math.ceil(outsideMs));
  expect(error.message).toMatch(new RegExp(`^could not reach Redis at 127\\.0\\.0\\.1:${port}: gave up after ${error.elapsedMs} ms \\(timeout 200 ms\\); the command was not sent`));
});

it('a reply that never comes (paused server): RedisTimeoutError with the time waited and the limit', async () => {
  const server = suite.redis.server;
  if (!server) throw new Error('needs a redis-server of its own');
  const client = Redisson.create({ redis: suite.redis.url, timeout: 200 });
  client.on('error', () => undefined);
  clients.push(client);
  const lock = client.getLock('paused');
  expect(await lock.isLocked()).toBe(false);
  server.pause();
  let error: unknown;
  try {
    error = await lock.isLocked().then(
      () => null,
      (e: unknown) => e,
    );
  } finally {
    server.resume();
  }
  expect(error).toBeInstanceOf(RedisTimeoutError);
  expect((error as RedisTimeoutError).code).toBe('ERR_REDISSON_TIMEOUT');
  expect((error as Error).message).toMatch(
    new RegExp(`^no reply from Redis at 127\\.0\\.0\\.1:${suite.redis.port}: gave up after \\d+ ms \\(timeout 200 ms\\); whether the command ran is unknown$`),
  );
});
