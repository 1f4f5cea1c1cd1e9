/**
 * One deadline timer per command connection (issue 29): the executor arms a single timer for the earliest
 * reply deadline in flight instead of a timer per command. A command with a later deadline (a synced write's
 * `WAIT` allowance) must not delay the timeout of one sent after it with an earlier deadline, and a timer left
 * armed with nothing in flight must not keep the process alive.
 */
import { expect, it } from 'vitest';
import { CommandExecutor } from '../../src/connection/CommandExecutor.js';
import { IoredisConnection } from '../../src/connection/ioredis/IoredisConnection.js';
import { RedisTimeoutError } from '../../src/index.js';
import { sleep, useRedis, within } from '../support/redis.js';

const suite = useRedis({ own: true });

it('a later deadline in flight does not hold back an earlier one: each command times out at its own', async () => {
  const redis = suite.clients.raw({ autoResendUnfulfilledCommands: false });
  await redis.ping();
  const executor = new CommandExecutor(new IoredisConnection(redis), 0, 150);
  // The executor's own timers, told apart by where they were armed: counting every active timer in the worker
  // would count ioredis' and the harness' too, which come and go on their own.
  const armed: NodeJS.Timeout[] = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    const timer = realSetTimeout(...args);
    if (new Error().stack?.includes('CommandExecutor')) armed.push(timer);
    return timer;
  }) as typeof setTimeout;
  try {
    await executor.run((r) => r.call('PING'));
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  // Nothing in flight: the deadline timer was armed, and no longer keeps the process alive.
  expect(armed).toHaveLength(1);
  expect(armed[0]?.hasRef()).toBe(false);
  // Let that command's deadline pass, so that the next command arms the timer afresh.
  await sleep(400);
  // The server answers nothing for 2.5 s: both commands below are written and never answered in time.
  await suite.clients.raw().client('PAUSE', 2_500, 'ALL');
  const order: string[] = [];
  const settled = (name: string, p: Promise<unknown>): Promise<unknown> =>
    p.then(
      () => order.push(`${name} answered`),
      (error: unknown) => {
        order.push(name);
        return error;
      },
    );
  // Deadline 150 ms + 2 000 ms (armed first), then one of 150 ms: the second must not wait for the first's.
  const late = settled('late', executor.run((r) => r.call('PING'), 2_000));
  const early = settled('early', executor.run((r) => r.call('PING')));
  const [lateError, earlyError] = await within(Promise.all([late, early]), 10_000, 'both commands to settle');
  expect(order).toEqual(['early', 'late']);
  expect(earlyError).toBeInstanceOf(RedisTimeoutError);
  expect(lateError).toBeInstanceOf(RedisTimeoutError);
  expect((lateError as Error).message).toContain('+ 2000 ms for WAIT');
  executor.dispose();
});
