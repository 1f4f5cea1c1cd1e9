/**
 * Every Lua script in `lua/` registered once per ioredis connection with `defineCommand` (EVAL on first use per
 * socket, EVALSHA after, with NOSCRIPT fallback).
 */
import type { ChainableCommander } from 'ioredis';
import { IllegalStateError } from '../../errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from '../../generated/lua.js';
import type { RedisConnection } from './types.js';
import { integerString } from '../wire.js';

type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;

// Per script id, made once: every command sent looks its name up.
const COMMAND_NAMES = new Map<LuaScriptId, string>();

function commandName(id: LuaScriptId): string {
  let name = COMMAND_NAMES.get(id);
  if (name === undefined) COMMAND_NAMES.set(id, (name = `redissonTs_${id.replace(/\//g, '_')}`));
  return name;
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

/**
 * Runs script `id` with `keys` and `args` exactly as given (a script that publishes takes its publish command
 * in `args`); numbers must be integers and go as plain decimal strings. On a pipeline the command is queued
 * (the pipeline's `exec` answers it).
 */
export function evalScript(redis: RedisConnection | ChainableCommander, id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const fn = (redis as unknown as Record<string, ScriptFn | undefined>)[commandName(id)];
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
