/**
 * Baseline: raw `PING` and raw `EVALSHA` of `return 1` on a plain ioredis connection in a worker, the
 * floor every lock call is compared with. Run in batches between the lock batches (see uncontended.ts)
 * so that drift of the machine hits both alike.
 */
import type { BenchContext } from '../context.js';

export interface BaselineBatch {
  readonly ping: number[];
  readonly evalsha: number[];
}

export function baselineBatch(ctx: BenchContext, n: number): Promise<BaselineBatch> {
  return ctx.workers[0].call<BaselineBatch>('baseline', { url: ctx.url, n });
}
