/**
 * Our Lua scripts on node-redis, as `sendCommand` arguments: EVAL the first time on a socket, EVALSHA after, and
 * on a NOSCRIPT reply the same call once as EVAL (see `NodeRedisConnection`) — ioredis' rule for its
 * `defineCommand` scripts, done here by hand so that it works on a client we did not create (node-redis' own
 * `scripts` are fixed when a client is created).
 */
import { createHash } from 'node:crypto';
import { IllegalStateError } from '../../errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from '../../generated/lua.js';
import type { WireArg } from '../driver.js';
import { integerString } from '../wire.js';

// Per script id, computed once.
const SHAS = new Map<LuaScriptId, string>();

function sha1(id: LuaScriptId): string {
  let sha = SHAS.get(id);
  if (sha === undefined) SHAS.set(id, (sha = createHash('sha1').update(LUA_SCRIPTS[id].source).digest('hex')));
  return sha;
}

/** `EVALSHA sha numkeys keys… args…` for script `id` (numbers as plain decimals). */
export function evalShaArgs(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): (string | Buffer)[] {
  const declared = LUA_SCRIPTS[id].keys;
  if (declared !== null && declared !== keys.length) throw new IllegalStateError(`script ${id} takes ${declared} keys, got ${keys.length}`);
  const argv: (string | Buffer)[] = ['EVALSHA', sha1(id), String(keys.length)];
  for (const key of keys) argv.push(key);
  for (const a of args) argv.push(typeof a === 'number' ? integerString(a) : a);
  return argv;
}

/** The same call as EVAL with the script's source (after NOSCRIPT). */
export function asEval(id: LuaScriptId, evalSha: readonly (string | Buffer)[]): (string | Buffer)[] {
  const argv = [...evalSha];
  argv[0] = 'EVAL';
  argv[1] = LUA_SCRIPTS[id].source;
  return argv;
}

/** Whether `error` is Redis' NOSCRIPT reply. */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
