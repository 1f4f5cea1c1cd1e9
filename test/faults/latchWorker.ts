/**
 * The latch flows of a fault-suite worker (./historyWorker.ts). One flow of one process is the releaser:
 * round after round it sets latch `<name>:<r>` to 1 (`trySetCount`), logs `down` once its `countDown()`
 * returned, and publishes the next round number. Every other flow reads the round, logs `wait` (with `r`),
 * awaits latch `<name>:<r>` and logs `acq` when released. The checker (./rules/latch.ts) asks that every
 * awaiter of a round is released once the round was counted down, and never before it was.
 */
import type { Redis } from 'ioredis';
import type { Redisson } from '../../src/index.js';
import type { HistoryEvent } from './history.js';

const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface LatchFlow {
  readonly client: Redisson;
  readonly data: Redis;
  readonly name: string;
  readonly flow: number;
  readonly releaser: boolean;
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly thinkMs: number;
  readonly log: (event: HistoryEvent) => void;
  readonly errorLabel: (error: unknown) => string;
}

const ROUND_GAP_MS = 40;

export async function runLatch(o: LatchFlow): Promise<void> {
  const roundKey = `${o.name}:round`;
  const f = o.flow;
  if (o.releaser) {
    for (let r = Number((await o.data.get(roundKey).catch(() => null)) ?? 0); now() < o.deadline; r++) {
      const latch = o.client.getCountDownLatch(`${o.name}:${r}`);
      try {
        await latch.trySetCount(1);
        o.log({ k: 'set', t: now(), f, r });
        await o.data.set(roundKey, String(r));
        await sleep(ROUND_GAP_MS);
        // Logged as the count-down is sent: an awaiter may be released before the call returns here. A
        // count-down whose reply was lost is sent again (on a latch already at zero it changes nothing).
        o.log({ k: 'down', t: now(), f, r });
        for (let attempt = 0; attempt < 50; attempt++) {
          try {
            await latch.countDown();
            break;
          } catch (error) {
            o.log({ k: 'lockErr', t: now(), f, err: o.errorLabel(error) });
            await sleep(20);
          }
        }
      } catch (error) {
        o.log({ k: 'lockErr', t: now(), f, err: o.errorLabel(error) });
        await sleep(20);
      }
    }
    return;
  }
  let last = -1;
  while (now() < o.deadline) {
    let r: number;
    try {
      r = Number((await o.data.get(roundKey)) ?? -1);
    } catch {
      await sleep(20);
      continue;
    }
    if (r <= last) {
      await sleep(o.thinkMs);
      continue;
    }
    o.log({ k: 'wait', t: now(), f, r });
    try {
      await o.client.getCountDownLatch(`${o.name}:${r}`).await({ signal: o.signal });
    } catch (error) {
      if (o.signal.aborted) break;
      o.log({ k: 'lockErr', t: now(), f, err: o.errorLabel(error) });
      await sleep(20);
      continue;
    }
    o.log({ k: 'acq', t: now(), f, r });
    last = r;
  }
}
