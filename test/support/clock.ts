/**
 * Milliseconds on CLOCK_MONOTONIC (`process.hrtime`): one clock for every process on the host, with no per-process
 * origin. (`performance.timeOrigin + performance.now()` has one: the wall clock read once at each process's start.)
 * For histories that several processes write and one test compares.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
