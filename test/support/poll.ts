/**
 * Polling until a condition holds, without vitest: the deployment harnesses (Sentinel, Cluster) also serve the
 * benchmarks, which run outside the test runner.
 */

/** Resolves when `predicate()` is true, checking every 10 ms up to `ms`; a predicate that throws counts as false. */
export async function eventually(predicate: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await Promise.resolve()
      .then(predicate)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `promise`, or a rejection after `ms` naming `what` (a hang guard, not an assertion on time). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
