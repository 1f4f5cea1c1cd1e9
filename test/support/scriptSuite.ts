/**
 * Set-up for suites that call Lua scripts directly and assert on what they publish: a server, a connection
 * with every script defined, and the messages on channels matching a pattern, read up to a barrier.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { defineScripts } from '../../src/connection/ioredis/scripts.js';
import { Clients, startRedis, type TestRedis } from './redis.js';

export interface ScriptSuite {
  /** A connection with every script defined (`evalScript(suite.redis, …)`). */
  readonly redis: Redis;
  readonly clients: Clients;
  /** Waits until every message published so far has arrived; answers how many there are. */
  mark(): Promise<number>;
  /** Messages (`<channel> <message>`) since `from`: a PUBLISH of our own arrives after all earlier ones. */
  messagesSince(from: number): Promise<string[]>;
}

/** A server and a connection with every script defined, filled in by the hooks {@link useScriptConnection} registers. */
export interface ScriptConnection {
  readonly redis: Redis;
  readonly clients: Clients;
}

/** Starts a server before the suite's tests, with a connection whose scripts are defined; closes both after. */
export function useScriptConnection(): ScriptConnection {
  let server: TestRedis;
  const connection = {} as { redis: Redis; clients: Clients };
  beforeAll(async () => {
    server = await startRedis();
    connection.clients = new Clients(server.url);
    connection.redis = connection.clients.raw();
    defineScripts(connection.redis);
  });
  afterAll(async () => {
    await connection.clients?.closeAll();
    await server?.stop();
  });
  return connection;
}

/** Registers the suite's hooks; `pattern` selects the channels recorded, `markChannel` must match it. */
export function useScriptSuite(pattern: string, markChannel: string): ScriptSuite {
  const connection = useScriptConnection();
  const published: string[] = [];
  const suite = {
    get redis() {
      return connection.redis;
    },
    get clients() {
      return connection.clients;
    },
  } as ScriptSuite & { messagesSince: ScriptSuite['messagesSince']; mark: ScriptSuite['mark'] };
  beforeAll(async () => {
    const events = connection.clients.raw();
    events.on('pmessage', (_p: string, channel: string, message: string) => published.push(`${channel} ${message}`));
    await events.psubscribe(pattern);
  });
  suite.messagesSince = async (from: number): Promise<string[]> => {
    const token = `${Math.random()}`;
    await suite.redis.publish(markChannel, token);
    const deadline = Date.now() + 5_000;
    while (!published.includes(`${markChannel} ${token}`)) {
      if (Date.now() > deadline) throw new Error('pub/sub barrier');
      await new Promise((r) => setTimeout(r, 5));
    }
    return published.slice(from).filter((m) => !m.startsWith(`${markChannel} `));
  };
  suite.mark = async (): Promise<number> => {
    await suite.messagesSince(0);
    return published.length;
  };
  return suite;
}
