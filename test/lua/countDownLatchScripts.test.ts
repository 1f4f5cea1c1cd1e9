/**
 * The RCountDownLatch scripts called directly on a real server, with assertions on the resulting data and
 * on every message published (PROTOCOL.md §7.2, §15): Redisson's keys and messages (`1` new count or
 * deleted, `0` reached zero) on the always-braced channel `redisson_countdownlatch__channel__{N}`.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import type { LuaScriptId } from '../../src/generated/lua.js';
import { countDownLatchChannelName } from '../../src/keys.js';
import { NEW_COUNT_MESSAGE, ZERO_COUNT_MESSAGE } from '../../src/pubsub/wakePolicies.js';
import { uniqueName } from '../support/redis.js';
import { useScriptSuite } from '../support/scriptSuite.js';

const suite = useScriptSuite('redisson_countdownlatch__channel__*', 'redisson_countdownlatch__channel__mark');
let redis: Redis;
beforeAll(() => {
  redis = suite.redis;
});
const mark = (): Promise<number> => suite.mark();
const messagesSince = (from: number): Promise<string[]> => suite.messagesSince(from);

const run = (id: LuaScriptId, name: string, args: (string | number)[]): Promise<unknown> => evalScript(redis, id, [name, countDownLatchChannelName(name)], args);
const trySetCount = (name: string, count: number) => run('countdownlatch/trySetCount', name, [NEW_COUNT_MESSAGE, count, 'PUBLISH']);
const countDown = (name: string) => run('countdownlatch/countDown', name, [ZERO_COUNT_MESSAGE, 'PUBLISH']);
const del = (name: string) => run('countdownlatch/delete', name, [NEW_COUNT_MESSAGE, 'PUBLISH']);

describe('countdownlatch/trySetCount', () => {
  it('arms a missing latch (no TTL) and publishes 1; an armed one is left alone', async () => {
    const name = uniqueName('latch');
    const from = await mark();
    expect(await trySetCount(name, 2)).toBe(1);
    expect(await trySetCount(name, 5)).toBe(0);
    expect(await redis.get(name)).toBe('2');
    expect(await redis.pttl(name)).toBe(-1);
    expect(await messagesSince(from)).toEqual([`redisson_countdownlatch__channel__{${name}} 1`]);
  });
});

describe('countdownlatch/countDown', () => {
  it('2 → 1 silently, 1 → 0 deletes the key and publishes 0, further countDowns change nothing', async () => {
    const name = uniqueName('latch');
    await trySetCount(name, 2);
    const from = await mark();
    expect(await countDown(name)).toBe(1);
    expect(await redis.get(name)).toBe('1');
    expect(await messagesSince(from)).toEqual([]);
    expect(await countDown(name)).toBe(0);
    expect(await redis.exists(name)).toBe(0);
    expect(await countDown(name)).toBe(-1);
    expect(await redis.exists(name)).toBe(0);
    expect(await messagesSince(from)).toEqual([`redisson_countdownlatch__channel__{${name}} 0`]);
  });

  it('a latch armed again after reaching zero counts down again', async () => {
    const name = uniqueName('latch');
    await trySetCount(name, 1);
    await countDown(name);
    expect(await trySetCount(name, 1)).toBe(1);
    const from = await mark();
    expect(await countDown(name)).toBe(0);
    expect(await messagesSince(from)).toEqual([`redisson_countdownlatch__channel__{${name}} 0`]);
  });
});

describe('countdownlatch/delete', () => {
  it('deletes an armed latch and publishes 1; a missing one answers 0 and publishes nothing', async () => {
    const name = uniqueName('latch');
    await trySetCount(name, 3);
    const from = await mark();
    expect(await del(name)).toBe(1);
    expect(await redis.exists(name)).toBe(0);
    expect(await del(name)).toBe(0);
    expect(await messagesSince(from)).toEqual([`redisson_countdownlatch__channel__{${name}} 1`]);
  });
});

describe('the channel', () => {
  it('always wraps the raw name in braces, even one that holds a brace', async () => {
    expect(countDownLatchChannelName('a')).toBe('redisson_countdownlatch__channel__{a}');
    expect(countDownLatchChannelName('{t}a')).toBe('redisson_countdownlatch__channel__{{t}a}');
    const name = `{${uniqueName('tag')}}latch`;
    await trySetCount(name, 1);
    const from = await mark();
    await countDown(name);
    expect(await messagesSince(from)).toEqual([`redisson_countdownlatch__channel__{${name}} 0`]);
  });
});
