/**
 * Runs the demo's strategies one after the other on one Redis and collects their results.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ProgressLine } from '../progress.js';
import { runStrategy, type RunHooks } from './runStrategy.js';
import type { DemoSettings, Strategy, StrategyResult } from './strategies.js';

export interface RunDemoOptions {
  readonly settings: DemoSettings;
  /** Admin connection to the same Redis as `settings.redisUrl`. */
  readonly redis: Redis;
  readonly strategies: readonly Strategy[];
  readonly progress: ProgressLine;
  readonly onInterrupt?: RunHooks['onInterrupt'];
}

/** Runs each strategy in turn; keys live under `redisson-ts:demo:<random>` and are deleted afterwards. */
export async function runDemo(options: RunDemoOptions): Promise<StrategyResult[]> {
  const { settings, redis, strategies, progress } = options;
  const namespace = `redisson-ts:demo:${randomUUID().slice(0, 8)}`;
  const results: StrategyResult[] = [];
  for (const [i, strategy] of strategies.entries()) {
    const label = `[${i + 1}/${strategies.length}] ${strategy.title.replace(/^\d+\.\s*/, '')}`;
    let lastNote = '';
    const result = await runStrategy(strategy, settings, redis, namespace, {
      onProgress: (p) => {
        if (p.note && p.note !== lastNote) progress.note(`  ${label}: ${p.note}`);
        lastNote = p.note;
        const oversold = p.oversold > 0 ? `  oversold ${p.oversold}` : '';
        progress.update(`${label}  sold ${p.sold}/${settings.stock}${oversold}  ${(p.elapsedMs / 1000).toFixed(1)} s`);
      },
      onStatus: (text) => progress.update(`${label}: ${text}`),
      ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
    });
    progress.clear();
    progress.note(`  ${label}: done in ${(result.elapsedMs / 1000).toFixed(1)} s, sold ${result.sold}, oversold ${result.oversold}, stuck ${result.stuck}`);
    results.push(result);
  }
  return results;
}
