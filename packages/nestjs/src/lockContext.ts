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

/** @internal one `@WithLock` call's hold, and the one it runs inside (nested calls). */
export interface LockFrame extends CurrentLock {
  readonly parent: LockFrame | undefined;
  /** Which client and primitive: a nested call of the same re-enters this hold instead of waiting for itself. */
  readonly key: string;
  /** Takes this hold again as its owner (lock kinds; null for a semaphore). */
  readonly reenter: ((leaseTime: number | undefined) => Promise<unknown>) | null;
}

export const lockContext = new AsyncLocalStorage<LockFrame>();

/** @internal the innermost running hold of `key`. */
export function frameOf(key: string): LockFrame | undefined {
  for (let frame = lockContext.getStore(); frame; frame = frame.parent) if (frame.key === key) return frame;
  return undefined;
}

/** The innermost hold of the running `@WithLock` method, or `undefined` outside one. */
export function currentLock(): CurrentLock | undefined {
  const frame = lockContext.getStore();
  return frame && { name: frame.name, signal: frame.signal, token: frame.token };
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
