/**
 * Which Redis a command talks to: `--redis URL`, else `REDIS_URL`, else (for the demo) a throwaway
 * `redis-server` that is removed at exit. Connection problems become one-line {@link CliError}s.
 */
import { Redis } from 'ioredis';
import { CliError, type CliIo } from './CliError.js';
import { hasRedisServerBinary, INSTALL_HINT, RedisServerProcess } from './RedisServerProcess.js';

export interface RedisTarget {
  readonly url: string;
  /** For the header line: where this Redis came from. */
  readonly description: string;
  /** A connected admin connection. */
  readonly redis: Redis;
  /** Closes the connection and stops the embedded server, if any. */
  close(): Promise<void>;
}

/** Throws a one-line CliError unless `url` is a redis:// or rediss:// URL. */
export function checkRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`invalid Redis URL '${url}': expected redis://host:port`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new CliError(`invalid Redis URL '${url}': expected redis://host:port or rediss://host:port`);
  }
  return url;
}

/** Connects once, without retries; a failure is a one-line CliError naming the URL. */
export async function connect(url: string): Promise<Redis> {
  const redis = new Redis(checkRedisUrl(url), {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // Without a listener ioredis would print every connection error itself.
  let lastError: Error | null = null;
  redis.on('error', (error: Error) => (lastError = error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const reason = lastError ?? error;
    const message = reason instanceof Error ? reason.message : String(reason);
    throw new CliError(`cannot connect to Redis at ${url}: ${message || 'connection failed'}`, undefined, { cause: error });
  }
  return redis;
}

/**
 * The Redis given by `--redis` or `REDIS_URL`; with neither, an embedded server when `embedded` is
 * allowed, else `redis://127.0.0.1:6379`.
 */
export async function openTarget(urlOption: string | undefined, io: CliIo, embedded: boolean): Promise<RedisTarget> {
  const given = urlOption ?? (process.env.REDIS_URL || undefined);
  if (given !== undefined || !embedded) {
    const url = given ?? 'redis://127.0.0.1:6379';
    const redis = await connect(url);
    return { url, description: url, redis, close: () => quit(redis) };
  }
  if (!hasRedisServerBinary()) throw new CliError(INSTALL_HINT);
  let server: RedisServerProcess;
  try {
    server = await RedisServerProcess.start();
  } catch (error) {
    throw new CliError(`could not start redis-server: ${error instanceof Error ? error.message : String(error)}`, undefined, { cause: error });
  }
  const unregister = io.onInterrupt(() => server.stop());
  try {
    const redis = await connect(server.url);
    return {
      url: server.url,
      description: `embedded redis-server on ${server.url} (pid ${server.pid ?? '?'}, removed at exit)`,
      redis,
      close: async () => {
        await quit(redis);
        await server.stop();
        unregister();
      },
    };
  } catch (error) {
    await server.stop();
    unregister();
    throw error;
  }
}

async function quit(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
