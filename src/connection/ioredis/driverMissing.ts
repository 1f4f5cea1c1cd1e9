/** The error `Redisson.create` throws when ioredis is not installed (it is an optional peer dependency). */
import { RedisDriverMissingError } from '../../errors.js';

const MESSAGE =
  'redisson-ts needs a Redis client library beside it to connect from a URL or options, and ioredis is not ' +
  'installed: run `npm install ioredis` (ioredis 5.9+ or 6), or `npm install redis` (node-redis 5.12+ or 6) and ' +
  "pass a `createClient()` client or `{ driver: 'node-redis', url }` as `redis`.";

/** Whether `error`, thrown by loading `name`, says the package is not installed (Node, Jest, Bun, Deno, webpack). */
export function isModuleMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message === 'string' && !message.includes(`'${name}'`) && !message.includes(`"${name}"`)) return false;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || (typeof message === 'string' && /Cannot find (module|package)/.test(message));
}

export function driverMissing(cause: unknown): RedisDriverMissingError {
  return new RedisDriverMissingError(MESSAGE, { cause });
}
