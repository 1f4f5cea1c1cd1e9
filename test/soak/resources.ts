/**
 * What the leak soak measures besides Redis: the process's active resources, timers the library left
 * pending (also unref'd ones, which `process.getActiveResourcesInfo()` does not list), and a heap figure
 * after a forced GC.
 */
import { createHook } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** Handle and timer types worth tracking; promises and one-shot requests are left out (cost, noise). */
const TRACKED = new Set(['Timeout', 'Immediate', 'TCPWRAP', 'PIPEWRAP', 'TIMERWRAP']);

/** Counts of `process.getActiveResourcesInfo()` by type. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Types of which there are more now than in `baseline`, with the excess. */
export function resourcesAbove(baseline: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, n] of activeResources()) if (n > (baseline.get(type) ?? 0)) out[type] = n - (baseline.get(type) ?? 0);
  return out;
}

/**
 * Tracks timers, immediates and sockets created from now on whose creation stack passes through the
 * library (`src/`) or ioredis, until they fire, are cleared or close. Unref'd timers included. The
 * creation stack is captured as an Error and only formatted for what is left at the end.
 */
export class LibraryResourceTracker {
  readonly #live = new Map<number, { type: string; origin: Error }>();
  readonly #hook = createHook({
    init: (asyncId, type) => {
      if (!TRACKED.has(type)) return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      const origin = new Error(type);
      Error.stackTraceLimit = limit;
      this.#live.set(asyncId, { type, origin });
    },
    destroy: (asyncId) => {
      this.#live.delete(asyncId);
    },
  });

  start(): this {
    this.#hook.enable();
    return this;
  }

  stop(): void {
    this.#hook.disable();
  }

  /**
   * Resources still alive that the library or ioredis created (only of `types`, when given), grouped by
   * type and the first frames of the creation stack, with their number.
   */
  leftByLibrary(types?: readonly string[]): string[] {
    const counts = new Map<string, number>();
    for (const { type, origin } of this.#live.values()) {
      if (types && !types.includes(type)) continue;
      const frames = (origin.stack ?? '').split('\n').slice(1);
      if (!frames.some((f) => f.includes(SRC) || f.includes('node_modules/ioredis'))) continue;
      const where = frames.filter((f) => !f.includes('node:internal') && !f.includes('resources.ts')).slice(0, 4);
      const key = `${type} ${where.map((f) => f.trim()).join(' < ')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, n]) => `${n}× ${key}`);
  }
}

let gc: (() => void) | undefined;

/**
 * `global.gc`, made available for this process without a CLI flag (vitest's fork pool has no per-file
 * `--expose-gc`): the V8 flag is set at run time and a new context exposes the function.
 */
export function forceGc(): () => void {
  if (gc) return gc;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return (gc = existing);
  setFlagsFromString('--expose-gc');
  return (gc = runInNewContext('gc') as () => void);
}

/** `heapUsed` after full collections (twice: a first pass can leave finalizable objects behind). */
export async function settledHeap(): Promise<number> {
  const collect = forceGc();
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  return process.memoryUsage().heapUsed;
}
