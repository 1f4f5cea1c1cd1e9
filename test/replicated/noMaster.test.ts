/**
 * A replicated group none of whose nodes answers (Redisson's `replicatedServersConfig` on a dead address): no
 * master is ever found, so commands fail with RedisConnectionError after `timeout`, and shutdown closes the scan
 * probes. In a file of its own: the socket count is the process's, and in replicated.test.ts the clients of
 * earlier tests re-connect after their promotions at moments of their own.
 */
import { expect, it } from 'vitest';
import { RedisConnectionError, Redisson } from '../../src/index.js';
import { eventually, uniqueName } from '../support/redis.js';

it('commands fail with RedisConnectionError after timeout (no master found); shutdown leaves nothing behind', async () => {
  const sockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPWRAP').length;
  const before = sockets();
  const c = Redisson.create({ redis: { replicatedNodes: ['redis://127.0.0.1:1'], scanInterval: 100 }, timeout: 500, shortLeaseWarning: false });
  await expect(c.getLock(uniqueName('nowhere')).tryLock()).rejects.toThrow(RedisConnectionError);
  await c.shutdown();
  await eventually(() => sockets() <= before, 10_000, 'the probe sockets to close');
});
