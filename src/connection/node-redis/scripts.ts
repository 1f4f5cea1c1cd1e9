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

/** Writes one command on a socket (refusing it when the socket is not ready). */
export type SendOn = (args: readonly (string | Buffer)[]) => Promise<unknown>;

/**
 * The script as EVAL the first time on a socket (which loads it; `loaded` holds what this socket was sent), then
 * as EVALSHA. Only after a NOSCRIPT reply (a SCRIPT FLUSH, a server restarted under a socket we did not see close)
 * is a call sent a second time, as EVAL: sending EVALSHA first on a new socket would put that second command after
 * the executor's reply timer, past the point where an acquire whose reply was lost is checked (an undo reading
 * Redis before it ran).
 */
function scriptCalls(loaded: Set<LuaScriptId>, id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): { first: (string | Buffer)[]; fallback: (string | Buffer)[] | null } {
  const evalSha = evalShaArgs(id, keys, args);
  if (loaded.has(id)) return { first: evalSha, fallback: asEval(id, evalSha) };
  loaded.add(id);
  return { first: asEval(id, evalSha), fallback: null };
}

/** Script `id` on the socket `send` writes to (see {@link scriptCalls}). */
export async function runScript(send: SendOn, loaded: Set<LuaScriptId>, id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown> {
  const { first, fallback } = scriptCalls(loaded, id, keys, args);
  try {
    return await send(first);
  } catch (error) {
    if (fallback === null || !isNoScript(error)) throw error;
    return send(fallback);
  }
}

/** Script `id` and `WAIT replicas timeoutMs` pipelined (not MULTI) on the socket `send` writes to. */
export async function runScriptAndWait(send: SendOn, loaded: Set<LuaScriptId>, id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]> {
  // Both are written back to back on the one socket, the WAIT's reply after the script's.
  const pair = async (script: readonly (string | Buffer)[]): Promise<readonly [unknown, number]> => {
    const sent = [send(script), send(['WAIT', String(replicas), String(timeoutMs)])] as const;
    const [reply, wait] = await Promise.allSettled(sent);
    if (reply.status === 'rejected') throw reply.reason;
    if (wait.status === 'rejected') throw wait.reason;
    return [reply.value, Number(wait.value)] as const;
  };
  const { first, fallback } = scriptCalls(loaded, id, keys, args);
  try {
    return await pair(first);
  } catch (error) {
    // The script did not run (its WAIT did, for nothing): again with the source.
    if (fallback === null || !isNoScript(error)) throw error;
    return pair(fallback);
  }
}
