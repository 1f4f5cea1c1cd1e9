/**
 * Every Lua script in `lua/` made once per ioredis connection by the connection's own `defineCommand` (EVAL on
 * first use per socket, EVALSHA after, with NOSCRIPT fallback), kept beside the connection rather than on it.
 *
 * `defineCommand` puts two methods per script on the object it is called on. Called on the connection, our 51
 * scripts made 102 properties: V8 then turns the connection into a dictionary-mode object, and every property read
 * ioredis makes on it while sending any command (its status, options, queues, stream) becomes a hash lookup. That
 * cost the user's own commands on a client they gave us as much as ours (issue 29). So it is called on a view whose
 * prototype is the connection: the scripts read the connection's options (its `keyPrefix`) through it, and the
 * connection itself gains no property.
 */
import type { ChainableCommander } from 'ioredis';
import { IllegalStateError } from '../../errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from '../../generated/lua.js';
import type { RedisConnection } from './types.js';
import { integerString } from '../wire.js';

type ScriptArg = string | number | Buffer;
/** A script function as `defineCommand` makes it; `this` is the connection or a pipeline of it. */
type ScriptFn = (this: RedisConnection | ChainableCommander, ...args: ScriptArg[]) => Promise<unknown>;

/** Per connection, its scripts by id. */
const SCRIPTS = new WeakMap<object, ReadonlyMap<LuaScriptId, ScriptFn>>();

/** Makes every script for `redis` (idempotent: a connection shared by two clients gets one set). */
export function defineScripts(redis: RedisConnection): void {
  if (SCRIPTS.has(redis)) return;
  // Own `scriptsSet`: ioredis copies a connection's `scriptsSet` onto every pipeline the user makes from it.
  const view = Object.create(redis, { scriptsSet: { value: {}, writable: true } }) as RedisConnection & Record<string, unknown>;
  const fns = new Map<LuaScriptId, ScriptFn>();
  for (const id of Object.keys(LUA_SCRIPTS) as LuaScriptId[]) {
    const { source, keys } = LUA_SCRIPTS[id];
    const name = `s${fns.size}`;
    redis.defineCommand.call(view, name, keys === null ? { lua: source } : { lua: source, numberOfKeys: keys });
    fns.set(id, view[name] as ScriptFn);
  }
  SCRIPTS.set(redis, fns);
}

/** The connection a pipeline was made from (ioredis' `Pipeline#redis`). */
function connectionOf(redis: RedisConnection | ChainableCommander): object {
  return (redis as { isPipeline?: boolean }).isPipeline === true ? (redis as unknown as { redis: object }).redis : redis;
}

/**
 * Runs script `id` with `keys` and `args` exactly as given (a script that publishes takes its publish command
 * in `args`); numbers must be integers and go as plain decimal strings. On a pipeline the command is queued
 * (the pipeline's `exec` answers it).
 */
export function evalScript(redis: RedisConnection | ChainableCommander, id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const fn = SCRIPTS.get(connectionOf(redis))?.get(id);
  if (fn === undefined) throw new IllegalStateError(`script ${id} is not defined on this connection`);
  const declared = LUA_SCRIPTS[id].keys;
  if (declared !== null && declared !== keys.length) {
    throw new IllegalStateError(`script ${id} takes ${declared} keys, got ${keys.length}`);
  }
  // One array, filled in place and applied (no map, no spreads): this runs for every script sent.
  const argv: ScriptArg[] = declared === null ? [keys.length] : [];
  for (const key of keys) argv.push(key);
  for (const a of args) argv.push(typeof a === 'number' ? integerString(a) : a);
  return fn.apply(redis, argv);
}
