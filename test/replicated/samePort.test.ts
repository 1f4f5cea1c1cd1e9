/**
 * A replicated group as managed services name it: every node on the same port, told apart only by host (here
 * 127.0.0.2, `localhost` = 127.0.0.1 and 127.0.0.3, all on one port). After a promotion to the node named by host
 * name, the client must see that its socket (same port) is still on the old master and move: the port alone
 * would say it is already there, and every write would go on to the demoted node.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson, type MasterSwitch } from '../../src/index.js';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { uniqueName } from '../support/redis.js';
import { replicasOnline } from '../support/replicated.js';

const nodes: RedisServerProcess[] = [];
const raws: Redis[] = [];
let port: number;
const direct = (host: string): Redis => {
  const r = new Redis({ host, port, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
};

beforeAll(async () => {
  const first = await RedisServerProcess.start({ args: ['--bind', '127.0.0.2'] });
  nodes.push(first);
  port = first.port;
  nodes.push(await RedisServerProcess.start({ port, args: ['--replicaof', '127.0.0.2', String(port)] })); // 127.0.0.1
  nodes.push(await RedisServerProcess.start({ port, args: ['--bind', '127.0.0.3', '--replicaof', '127.0.0.2', String(port)] }));
  await replicasOnline(direct('127.0.0.2'), 2);
}, 60_000);

afterAll(async () => {
  for (const r of raws) r.disconnect();
  await Promise.all(nodes.map((n) => n.stop()));
});

describe('nodes on one port, told apart by host', () => {
  it('a promotion to a node named by host name moves the connections there; writes land on it', async () => {
    const c = Redisson.create({ redis: { replicatedNodes: [`redis://127.0.0.2:${port}`, `redis://localhost:${port}`, `redis://127.0.0.3:${port}`], scanInterval: 200 }, shortLeaseWarning: false });
    try {
      const before = uniqueName('same-port');
      await c.getLock(before).lock(60_000);
      expect(await direct('127.0.0.2').hlen(before)).toBe(1);
      const followed = once(c, 'failover') as Promise<[MasterSwitch]>;
      await direct('127.0.0.1').call('REPLICAOF', 'NO', 'ONE');
      for (const host of ['127.0.0.2', '127.0.0.3']) await direct(host).call('REPLICAOF', '127.0.0.1', String(port));
      const [change] = await followed;
      expect(change).toEqual({ masterName: '', from: `127.0.0.2:${port}`, to: `localhost:${port}` });
      const socket = (c.redis as unknown as { stream: { remoteAddress?: string } }).stream;
      expect(socket.remoteAddress?.replace(/^::ffff:/, '')).toBe('127.0.0.1');
      const after = uniqueName('same-port');
      expect(await c.getLock(after).tryLock(0, 60_000)).toBe(true);
      expect(await direct('127.0.0.1').hlen(after)).toBe(1);
      expect(await direct('127.0.0.1').hlen(before)).toBe(1); // the hold from before the promotion, replicated
    } finally {
      await c.shutdown();
    }
  }, 60_000);
});
