/** The error `Redisson.create` throws when ioredis is not installed (it is an optional peer dependency). */
import { RedisDriverMissingError } from '../../errors.js';

const MESSAGE =
  'redisson-ts needs a Redis client library beside it, and none is installed: run `npm install ioredis` ' +
  '(ioredis 5.9+ or 6). The `redis` package (node-redis, `npm install redis`) is not supported as a driver yet.';

/** Whether `error`, thrown by loading `name`, says the package is not installed (Node, Jest, Bun, Deno, webpack). */
export function isModuleMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message === 'string' && !message.includes(`'${name}'`) && !message.includes(`"${name}"`)) return false;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || (typeof message === 'string' && /Cannot find (module|package)/.test(message));
}

export function driverMissing(cause: unknown): RedisDriverMissingError {
  return new RedisDriverMissingError(MESSAGE, { cause });
}
