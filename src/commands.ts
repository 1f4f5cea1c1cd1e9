/**
 * The narrow command layer between the primitives and ioredis. Every Lua script in `lua/` is registered
 * once per connection with ioredis `defineCommand` (EVAL on first use per socket, EVALSHA after, with
 * NOSCRIPT fallback), and called through {@link evalScript}, the only place a script is invoked.
 */
import type { Cluster, Redis } from 'ioredis';
import { LUA_SCRIPTS, type LuaScriptId } from './generated/lua.js';

/** What the primitives need of a connection: a standalone `Redis` now, `Cluster` through the same surface later. */
export type RedisConnection = Redis | Cluster;

type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;

function commandName(id: LuaScriptId): string {
  return `redissonTs_${id.replace(/\//g, '_')}`;
}

/** Registers every script on `redis` (idempotent: a connection shared by two clients is defined once). */
export function defineScripts(redis: RedisConnection): void {
  for (const id of Object.keys(LUA_SCRIPTS) as LuaScriptId[]) {
    const name = commandName(id);
    if (name in redis) continue;
    const { source, keys } = LUA_SCRIPTS[id];
    redis.defineCommand(name, keys === null ? { lua: source } : { lua: source, numberOfKeys: keys });
  }
}

/** Runs script `id` with `keys` and `args`; numbers must be integers and go as plain decimal strings. */
export function evalScript(redis: RedisConnection, id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const fn = (redis as unknown as Record<string, ScriptFn | undefined>)[commandName(id)];
  if (fn === undefined) throw new Error(`script ${id} is not defined on this connection`);
  const wire = args.map((a) => (typeof a === 'number' ? integerString(a) : a));
  const declared = LUA_SCRIPTS[id].keys;
  if (declared !== null && declared !== keys.length) {
    throw new Error(`script ${id} takes ${declared} keys, got ${keys.length}`);
  }
  return declared === null ? fn.call(redis, keys.length, ...keys, ...wire) : fn.call(redis, ...keys, ...wire);
}

/** Java's `Long.toString` for the values we send: no fraction, no exponent. */
function integerString(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`script argument must be a safe integer, got ${n}`);
  return String(n);
}
