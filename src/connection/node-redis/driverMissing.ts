/** The error `Redisson.create` throws when a node-redis client is asked for and `redis` is not installed. */
import { RedisDriverMissingError } from '../../errors.js';

const MESSAGE =
  'redisson-ts was asked for a node-redis connection (`driver: \'node-redis\'`), and the `redis` package is not ' +
  'installed: run `npm install redis` (node-redis 5.12+ or 6).';

export function nodeRedisMissing(cause: unknown): RedisDriverMissingError {
  return new RedisDriverMissingError(MESSAGE, { cause });
}
