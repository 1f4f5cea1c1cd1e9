/**
 * The faults the suite injects while the workers run, each recorded with its instants for the checker.
 * Offsets are ms after the workers were started; every loop is bounded in count or time.
 */
import type { HistoryWorkerProcess } from './workers.js';
import { now } from './workers.js';
import type { FaultContext } from './scenario.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls Redis (for at most 3 s) until some running worker holds the lock. */
async function awaitHolder(ctx: FaultContext): Promise<HistoryWorkerProcess | undefined> {
  const until = now() + 3_000;
  while (now() < until) {
    const w = await ctx.holder();
    if (w) return w;
    await sleep(5);
  }
  return undefined;
}

/** `kill -9` of the worker holding the lock at each offset; a fresh worker replaces it at once. */
export function kill9Holders(offsets: readonly number[]) {
  return async (ctx: FaultContext): Promise<void> => {
    for (const offset of offsets) {
      await ctx.at(offset);
      const victim = await awaitHolder(ctx);
      if (!victim) continue;
      const t0 = now();
      const t = await ctx.killAndReplace(victim);
      // Recovery counts from the kill: the lease the dead holder left is part of it.
      ctx.record({ kind: 'kill -9', t: t0, until: t, recoverFrom: t0, target: victim.id });
    }
  };
}

/**
 * `CLIENT KILL TYPE <type>` from `fromMs` to `toMs`, at most every `gapMs`. After killing the command
 * connections (`normal`) it also waits (≤ 2 s) until as many are connected again as before the first
 * kill: on a machine too busy to reconnect within `gapMs`, a fixed rate would keep every client offline
 * and starve the watchdog for a whole lease — a livelock the suite would blame on the lock.
 */
export function clientKill(type: 'normal' | 'pubsub', fromMs: number, toMs: number, gapMs: number) {
  return async (ctx: FaultContext): Promise<void> => {
    const connected = async (): Promise<number> => String(await ctx.raw.call('CLIENT', 'LIST', 'TYPE', type)).split('\n').filter((l) => l.trim() !== '').length;
    await ctx.at(fromMs);
    const before = await connected();
    const end = now() - fromMs + toMs;
    for (let kills = 0; kills < 100 && now() < end; kills++) {
      const t = now();
      await ctx.raw.client('KILL', 'TYPE', type);
      ctx.record({ kind: `CLIENT KILL TYPE ${type}`, t, until: t });
      const back = now() + 2_000;
      while (type === 'normal' && now() < back && (await connected()) < before) await sleep(10);
      await sleep(Math.max(0, t + gapMs - now()));
    }
  };
}

/** SIGKILL of redis-server and a restart on the same port with an empty data set (no persistence). */
export function restartRedis(offsets: readonly number[]) {
  return async (ctx: FaultContext): Promise<void> => {
    const server = ctx.server;
    if (!server) throw new Error('the restart scenario needs a redis-server process of its own');
    for (const offset of offsets) {
      await ctx.at(offset);
      const t = now();
      await server.kill();
      await server.restart();
      ctx.record({ kind: 'restart', t, until: now(), blackout: true, dataLoss: true });
    }
  };
}

/**
 * `CLIENT PAUSE <pauseMs> ALL` while a worker holds the lock. The holder is read under WATCH and the pause
 * sent in a MULTI that fails if the lock changed meanwhile (released, re-taken, renewed), so the holder
 * at the instant the pause began is known exactly; a failed attempt is retried (bounded). Key expiry is
 * paused with the clients; when the pause ends, a lease shorter than it has run out.
 */
export function clientPause(offsets: readonly number[], pauseMs: number) {
  return async (ctx: FaultContext): Promise<void> => {
    const conn = ctx.raw.duplicate(); // WATCH is per connection: not on the one the sampler shares
    conn.on('error', () => undefined);
    try {
      for (const offset of offsets) {
        await ctx.at(offset);
        if (!ctx.hashed) {
          // No hash of holders to watch: the holder by the workers' logs (recorded, not confirmed in Redis).
          const target = await awaitHolder(ctx);
          const t = now();
          await conn.client('PAUSE', pauseMs, 'ALL');
          const until = now() + pauseMs;
          await sleep(Math.max(0, until - now()));
          ctx.record({ kind: 'CLIENT PAUSE', t, until, blackout: true, ...(target ? { target: target.id } : {}) });
          continue;
        }
        for (let attempt = 0; attempt < 200; attempt++) {
          await conn.watch(ctx.name);
          const target = (await conn.hkeys(ctx.name)).map((f) => ctx.byField(f)).find((w) => w !== undefined);
          if (!target) {
            await conn.unwatch();
            await sleep(2);
            continue;
          }
          const t = now();
          if ((await conn.multi().client('PAUSE', pauseMs, 'ALL').exec()) === null) continue; // the lock changed
          const until = now() + pauseMs;
          await sleep(Math.max(0, until - now()));
          ctx.record({ kind: 'CLIENT PAUSE', t, until, blackout: true, target: target.id });
          break;
        }
      }
    } finally {
      conn.disconnect();
    }
  };
}

/**
 * SIGSTOP of the holder for `stopMs`, then SIGCONT. The holder is confirmed in Redis after it stopped
 * (an unlock it had already written would have run by then); if it is not, it is continued at once and
 * another holder is tried (bounded).
 */
export function stopHolder(offsets: readonly number[], stopMs: number) {
  return async (ctx: FaultContext): Promise<void> => {
    for (const offset of offsets) {
      await ctx.at(offset);
      for (let attempt = 0; attempt < 50; attempt++) {
        const w = await awaitHolder(ctx);
        if (!w) break;
        const t = now();
        w.signal('SIGSTOP');
        await sleep(30);
        if ((await ctx.holder()) !== w) {
          w.signal('SIGCONT');
          continue;
        }
        await sleep(Math.max(0, t + stopMs - now()));
        w.signal('SIGCONT');
        ctx.record({ kind: 'SIGSTOP', t, until: now(), recoverFrom: t, target: w.id });
        break;
      }
    }
  };
}
