/**
 * `redisson-ts demo --only fenced`: strategy 10 (FencedLock + a stock that checks tokens) sells exactly the
 * stock through the stalled holder that makes strategy 4 oversell, counts that holder's lost lock, and
 * leaves no key behind (the fence and the token counter included).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRow } from '../../packages/cli/src/demo/report.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { runCli } from './cliHarness.js';

const STOCK = 20;
const BUYERS = 6;

describe('demo --only fenced', () => {
  let redis: TestRedis;
  let rows: ResultRow[];

  beforeAll(async () => {
    redis = await startRedis();
    const run = await runCli(['demo', '--only', 'fenced', '--stock', String(STOCK), '--buyers', String(BUYERS), '--json', '--redis', redis.url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    rows = JSON.parse(run.stdout) as ResultRow[];
  }, 60_000);
  afterAll(async () => {
    await redis.stop();
  });

  it('is one row, strategy 10', () => {
    expect(rows.map((r) => [r.id, r.strategy])).toEqual([['fenced', 'FencedLock + fenced writes']]);
  });

  it('sells exactly the stock, nothing twice, with the stalled holder\'s lost lock counted', () => {
    const r = rows.find((row) => row.id === 'fenced');
    expect(r).toMatchObject({ verdict: 'correct', sold: STOCK, oversold: 0, stuck: 0 });
    // The holder stalls 60 ms on a 30 ms lease: its unlock, or its refused write, always notices.
    expect(r?.lostLocks).toBeGreaterThan(0);
  });

  it('leaves no key behind: stock, lock, fence and token counter are deleted', async () => {
    const conn = new Redis(redis.url);
    try {
      expect(await conn.keys('*')).toEqual([]);
    } finally {
      conn.disconnect();
    }
  });
});
