/**
 * Strategies 8 and 9: this library's RedLock over five throwaway redis-servers (A–E) started for the run;
 * the stock stays on the demo's Redis. Both kill two lock servers (D, E) a fifth of the way in — sales go on
 * with 3 of 5 — and then, while a buyer holding A, B and C stalls inside its lease, crash C. Strategy 8
 * brings C (and D, E) straight back without persistence: empty, so a second buyer reaches its own
 * majority (C, D, E) and sells the units the stalled one is selling. Strategy 9 keeps every crashed server
 * down until a lease has passed since it went down, RedLock's mitigation, and nothing is sold twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisServerProcess } from '../RedisServerProcess.js';
import { NODE_TIMEOUT_MS } from './redlockBuyer.js';
import { nodeParticipants } from './runStrategy.js';
import { plural, WORK_MS, type Strategy, type StrategyResult } from './strategies.js';

const NODES = 5;
/** The buyers' RedLock lease, and how long strategy 9 keeps a crashed server down (plus a margin). */
const LEASE_MS = 1_000;
const REJOIN_MARGIN_MS = 100;
/** The stall of the buyer holding A, B, C: well inside its lease, so it still believes it holds the lock. */
const PAUSE_MS = 600;

/** Ids and row labels, known before anything runs. */
export const REDLOCK = { id: 'redlock', title: '8. RedLock, a node restarts empty' } as const;
export const REDLOCK_DELAYED = { id: 'redlock-delayed', title: '9. RedLock, restart after the lease' } as const;

function oversoldSentence(r: StrategyResult): string {
  return `${r.sold} purchases went through for ${r.stock} units: ${plural(r.oversold, 'sale')} of a unit that was already gone.`;
}

/** Strategy 8 (`delayedRestart` false) or 9 (true). */
function redlockStrategy(delayedRestart: boolean): Strategy {
  let servers: RedisServerProcess[] = [];
  const downSince = new Map<number, number>();
  let crash: Promise<void> = Promise.resolve();
  const kill = async (i: number): Promise<void> => {
    await servers[i]?.kill();
    downSince.set(i, performance.now());
  };
  // Without persistence a restarted server is empty; strategy 9 waits until that cannot matter.
  const rejoin = async (i: number): Promise<void> => {
    const since = downSince.get(i);
    if (since === undefined) return;
    if (delayedRestart) await sleep(Math.max(0, since + LEASE_MS + REJOIN_MARGIN_MS - performance.now()));
    await servers[i]?.restart();
    downSince.delete(i);
  };
  return {
    ...(delayedRestart ? REDLOCK_DELAYED : REDLOCK),
    buyer: 'redlock',
    expected: delayedRestart ? 'correct' : 'oversold',
    tuning: { workMs: WORK_MS, leaseMs: LEASE_MS, pauseMs: PAUSE_MS, watchdogMs: 0 },
    injections: [{ at: 0.4, injection: 'pause' }],
    actions: [{ at: 0.2, note: 'killed lock servers D and E', run: () => Promise.all([kill(3), kill(4)]).then(() => undefined) }],
    async participants(settings, spec, status) {
      status(`starting ${NODES} throwaway redis-servers for the lock…`);
      servers = await Promise.all(Array.from({ length: NODES }, () => RedisServerProcess.start()));
      return nodeParticipants(settings, { ...spec, nodeUrls: servers.map((s) => s.url) });
    },
    onInjected(injection) {
      if (injection !== 'pause') return Promise.resolve();
      // The stalled buyer holds A, B and C: D and E were down when it locked. Crash C under it.
      crash = kill(2).then(() => Promise.all([rejoin(2), rejoin(3), rejoin(4)]).then(() => undefined));
      return crash;
    },
    async teardown() {
      await crash.catch(() => undefined);
      await Promise.all(servers.map((s) => s.stop()));
      servers = [];
      downSince.clear();
    },
    explain(r) {
      const setting = `Five independent redis-servers (A–E) hold the lock and a buyer needs 3 of them; each purchase tries every server once with a ${LEASE_MS} ms lease and a ${NODE_TIMEOUT_MS} ms per-server timeout. A fifth of the way in, D and E were killed and sales went on with A, B and C. Then a buyer holding A, B and C stalled for ${r.paused ?? PAUSE_MS} ms, inside its lease, and C crashed under it.`;
      if (!delayedRestart) {
        return `${setting} C came straight back without persistence, empty, and so did D and E: other buyers took C, D and E, a majority of their own, while the stalled buyer still held A and B and still believed it held the lock. ${oversoldSentence(r)} This is RedLock's known weak spot: a server that forgets a lock lets two owners reach a majority at once.`;
      }
      return `${setting} This time every crashed server rejoined only once a lease had passed since it went down: while the stalled buyer held A and B, nobody could gather 3 of 5, and by the time C returned every lease granted before its crash had run out. ${r.sold} sold, none twice. The other mitigation is persistence: servers run with appendonly yes and appendfsync always come back still holding their locks.`;
    },
  };
}

/** Strategies 8 and 9, in order. */
export function redlockStrategies(): Strategy[] {
  return [redlockStrategy(false), redlockStrategy(true)];
}
