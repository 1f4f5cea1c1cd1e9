/**
 * The connection layer's pure parts: the one classifier of driver errors (ioredis' own error classes, no server
 * needed) and the publish argument of each script that publishes, which the executor fills in.
 */
import { expect, it } from 'vitest';
import { ReplyError } from 'ioredis';
import { classify, isRoutingFailure, isServerRefusal, redirection } from '../../src/connection/classify.js';
import { LUA_SCRIPTS, type LuaScriptId } from '../../src/generated/lua.js';

const reply = (message: string): Error => new (ReplyError as new (m: string) => Error)(message);

it('classifies ioredis errors: replies by their first word, closed and unwritable connections, a cluster without nodes', () => {
  expect(classify(reply('NOPERM this user has no permissions'))).toEqual({ kind: 'reply', code: 'NOPERM' });
  expect(redirection(reply('MOVED 3999 127.0.0.1:6381'))).toBe('MOVED');
  expect(redirection(reply('ASK 3999 127.0.0.1:6381'))).toBe('ASK');
  expect(redirection(reply('ERR MOVED is not a redirection here'))).toBeUndefined();
  expect(isServerRefusal(reply('ERR unknown command'))).toBe(true);
  expect(classify(new Error('Connection is closed.'))).toEqual({ kind: 'closed' });
  expect(classify(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'))).toEqual({ kind: 'closed' });
  expect(classify(Object.assign(new Error('Command aborted due to connection close'), { name: 'AbortError' }))).toEqual({ kind: 'closed' });
  // A WAIT unblocked because its master turned replica (a failover): the script's outcome is unknown.
  expect(classify(reply('UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)'))).toEqual({ kind: 'closed' });
  expect(classify(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toEqual({ kind: 'not-writable' });
  const allFailed = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' });
  expect(classify(allFailed)).toEqual({ kind: 'cluster-unreachable' });
  for (const routing of [allFailed, reply('CLUSTERDOWN The cluster is down'), reply('TRYAGAIN Multiple keys request during rehashing of slot'), reply('MOVED 1 h:1'), reply('ASK 1 h:1')]) {
    expect(isRoutingFailure(routing)).toBe(true);
  }
  expect(isRoutingFailure(reply('ERR Error running script'))).toBe(false);
  expect(classify(new Error('anything else'))).toEqual({ kind: 'other' });
  expect(classify('not an error')).toEqual({ kind: 'other' });
  expect(isServerRefusal(new Error('Connection is closed.'))).toBe(false);
});

it("classifies Node's socket errors, which node-redis passes on as they are: a reset or broken socket may have run the command, a refused one never wrote it", () => {
  const socket = (code: string, syscall: string): Error => Object.assign(new Error(`${syscall} ${code}`), { code, syscall, errno: -1 });
  expect(classify(socket('ECONNRESET', 'read'))).toEqual({ kind: 'closed' });
  expect(classify(socket('EPIPE', 'write'))).toEqual({ kind: 'closed' });
  expect(classify(socket('ETIMEDOUT', 'read'))).toEqual({ kind: 'closed' });
  expect(classify(socket('ECONNREFUSED', 'connect'))).toEqual({ kind: 'not-writable' });
  expect(classify(socket('ENOTFOUND', 'getaddrinfo'))).toEqual({ kind: 'not-writable' });
  expect(isServerRefusal(socket('ECONNRESET', 'read'))).toBe(false);
  // A code without a syscall, or not an errno name, is not a socket's (a library's or Node's own coded error).
  expect(classify(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toEqual({ kind: 'other' });
  expect(classify(Object.assign(new Error('x'), { code: 'ERR_SOMETHING', syscall: 'read' }))).toEqual({ kind: 'other' });
});

it('every script that publishes has its publish argument recorded, and reads it', () => {
  for (const [id, script] of Object.entries(LUA_SCRIPTS) as [LuaScriptId, (typeof LUA_SCRIPTS)[LuaScriptId]][]) {
    // A publish in the script's body goes through the command it is given (a local, or the ARGV itself), never a
    // literal PUBLISH.
    const calls = [...script.source.matchAll(/rcall\((publish|ARGV\[(\d+)\])/g)];
    expect(script.publish !== null, id).toBe(calls.length > 0);
    expect(/rcall\('s?publish'/i.test(script.source), id).toBe(false);
    for (const call of calls) {
      // `local a, publish, b = ARGV[1], ARGV[2], ARGV[3]`: the ARGV in the local's position.
      const local = /^local ([\w, ]+) = (.+)$/m.exec(script.source.split('\n').find((line) => /^local [\w, ]*\bpublish\b/.test(line)) ?? '');
      const position = local?.[1]?.split(',').map((n) => n.trim()).indexOf('publish') ?? -1;
      const argv = call[2] ?? /ARGV\[(\d+)\]/.exec(local?.[2]?.split(',')[position] ?? '')?.[1];
      expect(Number(argv) - 1, id).toBe(script.publish);
    }
  }
});
