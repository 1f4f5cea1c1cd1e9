/**
 * The set-up every `test/lua` file shares: a redis-server of its own for the file, one raw ioredis connection with
 * every script of `lua/` defined on it, and the clients closed and the server stopped after the file.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { defineScripts } from '../../src/connection/ioredis/scripts.js';
import { Clients, startRedis, type TestRedis } from '../support/redis.js';

export interface ScriptServer {
  readonly server: TestRedis;
  readonly clients: Clients;
  /** The connection the scripts are defined on. */
  readonly redis: Redis;
}

/** Registers the file's hooks; the fields are set once its `beforeAll` ran. */
export function useScriptServer(): ScriptServer {
  const s = {} as { server: TestRedis; clients: Clients; redis: Redis };
  beforeAll(async () => {
    s.server = await startRedis();
    s.clients = new Clients(s.server.url);
    s.redis = s.clients.raw();
    defineScripts(s.redis);
  });
  afterAll(async () => {
    await s.clients.closeAll();
    await s.server.stop();
  });
  return s;
}

/** A fresh unlock request id: 32 hex digits, as Redisson's `generateId()`. */
export const latchId = (): string => Math.random().toString(16).slice(2).padEnd(32, '0').slice(0, 32);
