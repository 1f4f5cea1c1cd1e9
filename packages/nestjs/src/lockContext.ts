/** What a `@WithLock` method can ask about the hold it runs in (AsyncLocalStorage, no parameter needed). */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CurrentLock {
  /** The lock (or semaphore) name the template produced. */
  readonly name: string;
  /** Aborted when the hold is lost (the watchdog found it gone, its lease ran out) or the application shuts down. */
  readonly signal: AbortSignal;
  /** The fencing token of a `kind: 'fenced'` hold; `undefined` for other kinds. */
  readonly token: number | undefined;
}

export const lockContext = new AsyncLocalStorage<CurrentLock>();

/** The innermost hold of the running `@WithLock` method, or `undefined` outside one. */
export function currentLock(): CurrentLock | undefined {
  return lockContext.getStore();
}

/**
 * The `AbortSignal` of the running `@WithLock` method's hold: pass it to the work the lock guards.
 * @throws Error outside a `@WithLock` method.
 */
export function currentLockSignal(): AbortSignal {
  const current = lockContext.getStore();
  if (!current) throw new Error('currentLockSignal() was called outside a @WithLock method');
  return current.signal;
}
