/**
 * `@WithLock(name, options?)`: the method runs inside a distributed lock (or semaphore permit) whose name is
 * built from its arguments; the hold is released when the method's promise settles. The Nest counterpart of a
 * Spring `@Lock` aspect over Redisson.
 */
import 'reflect-metadata';
import type { LockHold, Redisson } from 'redisson-ts';
import { DEFAULT_CLIENT_NAME } from './tokens.js';
import { hostOf, noteClientUse } from './bindings.js';
import { LockWaitTimeoutError, RedissonClientNotBoundError } from './errors.js';
import { checkTemplate, lockNameOf, type LockNameSource } from './lockName.js';
import { frameOf, lockContext } from './lockContext.js';
import type { RedissonHost } from './RedissonHost.js';

/** Which primitive guards the method. */
export type LockKind = 'lock' | 'fair' | 'read' | 'write' | 'fenced' | 'semaphore';

export interface WithLockOptions {
  /** `lock` (RLock, default), `fair`, `read` / `write` (halves of one ReadWriteLock), `fenced`, `semaphore` (permits of an RSemaphore). */
  readonly kind?: LockKind;
  /** The `RedissonModule` client's name; default the default client. */
  readonly client?: string;
  /** How long to wait, ms; omitted: as long as it takes. On timeout see `onTimeout`. */
  readonly waitTime?: number;
  /** Lease, ms; omitted or `-1`: the watchdog renews it while the method runs. Not for `semaphore`. */
  readonly leaseTime?: number;
  /** Permits a `semaphore` method takes (default 1). */
  readonly permits?: number;
  /**
   * When `waitTime` runs out: `'throw'` (default) a `LockWaitTimeoutError` (`LockWaitTimeoutFilter` maps it to
   * HTTP 409), or `{ return: value }` to resolve with `value` without running the method.
   */
  readonly onTimeout?: 'throw' | { readonly return: unknown };
}

const KINDS: readonly LockKind[] = ['lock', 'fair', 'read', 'write', 'fenced', 'semaphore'];

interface Held {
  readonly release: () => Promise<void>;
  readonly signal: AbortSignal | null;
  readonly token: number | undefined;
  readonly reenter: ((leaseTime: number | undefined) => Promise<Held>) | null;
}

function heldOf(hold: LockHold<unknown>, fenced: boolean): Held {
  return {
    release: () => hold.release(),
    signal: hold.signal,
    token: fenced ? (hold.value as number) : undefined,
    reenter: async (leaseTime) => heldOf(await hold.reenter(leaseTime === undefined ? {} : { leaseTime }), fenced),
  };
}

type HoldSource = { acquire(o: object): Promise<LockHold<unknown>>; tryAcquire(o: object): Promise<LockHold<unknown> | null> };

function lockOf(client: Redisson, kind: Exclude<LockKind, 'semaphore'>, name: string): HoldSource {
  switch (kind) {
    case 'lock':
      return client.getLock(name);
    case 'fair':
      return client.getFairLock(name);
    case 'read':
      return client.getReadWriteLock(name).readLock();
    case 'write':
      return client.getReadWriteLock(name).writeLock();
    case 'fenced':
      return client.getFencedLock(name);
  }
}

/** Takes the hold; null when `waitTime` ran out. */
async function take(host: RedissonHost, name: string, options: WithLockOptions): Promise<Held | null> {
  const signal = host.closingSignal;
  const kind = options.kind ?? 'lock';
  if (kind === 'semaphore') {
    const semaphore = host.client.getSemaphore(name);
    const permits = options.permits ?? 1;
    if (options.waitTime === undefined) await semaphore.acquire(permits, { signal });
    else if (!(await semaphore.tryAcquire(permits, options.waitTime, { signal }))) return null;
    let released: Promise<void> | null = null;
    return { release: () => (released ??= semaphore.release(permits)), signal: null, token: undefined, reenter: null };
  }
  const lock = lockOf(host.client, kind, name);
  const lease = options.leaseTime === undefined ? {} : { leaseTime: options.leaseTime };
  const hold = options.waitTime === undefined ? await lock.acquire({ ...lease, signal }) : await lock.tryAcquire({ ...lease, waitTime: options.waitTime, signal });
  return hold && heldOf(hold, kind === 'fenced');
}

/**
 * One signal aborted by whichever of `sources` aborts first; `unlink()` removes its listeners. Not
 * `AbortSignal.any`: the application's closing signal lives as long as the application, and every call's
 * listener on it must go when the call ends.
 */
function linked(sources: readonly AbortSignal[]): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const already = sources.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  const listeners = sources.map((source) => {
    const onAbort = (): void => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    return () => source.removeEventListener('abort', onAbort);
  });
  return { signal: controller.signal, unlink: () => listeners.forEach((remove) => remove()) };
}

function checkOptions(options: WithLockOptions, where: string): void {
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: options must be an object`);
  const known = new Set(['kind', 'client', 'waitTime', 'leaseTime', 'permits', 'onTimeout']);
  for (const key of Object.keys(options)) if (!known.has(key)) throw new TypeError(`${where}: unknown option "${key}"`);
  if (options.kind !== undefined && !KINDS.includes(options.kind)) throw new TypeError(`${where}: kind must be one of ${KINDS.join(', ')}`);
  if (options.kind === 'semaphore' && options.leaseTime !== undefined) throw new TypeError(`${where}: a semaphore permit has no leaseTime`);
  if (options.kind !== 'semaphore' && options.permits !== undefined) throw new TypeError(`${where}: permits is an option of kind 'semaphore'`);
  const onTimeout = options.onTimeout;
  if (onTimeout !== undefined && onTimeout !== 'throw' && (onTimeout === null || typeof onTimeout !== 'object' || !('return' in onTimeout))) {
    throw new TypeError(`${where}: onTimeout must be 'throw' or { return: value }`);
  }
}

/**
 * Runs the decorated method inside a lock named from its arguments: `'order:{0.id}'` (argument 0's `id`) or
 * `(args) => string`. The method becomes async; `currentLockSignal()` inside it is the hold's AbortSignal.
 *
 * @example
 * ```ts
 * @Post(':id/pay')
 * @WithLock('order:{0}', { waitTime: 2_000 })
 * async pay(@Param('id') id: string) { … }
 * ```
 */
export function WithLock(name: LockNameSource, options: WithLockOptions = {}): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const className = typeof target === 'function' ? target.name : target.constructor.name;
    const where = `@WithLock on ${className}.${String(propertyKey)}`;
    if (typeof target === 'function') throw new TypeError(`${where}: static methods are not supported`);
    checkTemplate(name, where);
    checkOptions(options, where);
    const original: unknown = descriptor.value;
    if (typeof original !== 'function') throw new TypeError(`${where}: not a method`);
    const clientName = options.client ?? DEFAULT_CLIENT_NAME;
    noteClientUse(target, clientName);
    const wrapped = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const host = hostOf(this, clientName);
      if (!host) throw new RedissonClientNotBoundError(className, String(propertyKey), clientName);
      const lockName = lockNameOf(name, args, where);
      const kind = options.kind ?? 'lock';
      const key = `${clientName}\u0000${kind}\u0000${lockName}`;
      // Called inside a hold of the same lock (a nested @WithLock, as a Java thread re-entering its RLock):
      // re-enter it as its owner instead of waiting for ourselves.
      const outer = frameOf(key);
      const held = outer?.reenter ? ((await outer.reenter(options.leaseTime)) as Held) : await take(host, lockName, options);
      if (!held) {
        const onTimeout = options.onTimeout ?? 'throw';
        if (onTimeout === 'throw') throw new LockWaitTimeoutError(lockName, options.waitTime ?? 0);
        return onTimeout.return;
      }
      const untrack = host.track(held.release);
      const { signal, unlink } = linked(held.signal ? [held.signal, host.closingSignal] : [host.closingSignal]);
      let result: unknown;
      try {
        const frame = { name: lockName, signal, token: held.token, parent: lockContext.getStore(), key, reenter: held.reenter };
        result = await lockContext.run(frame, () => (original as (...a: unknown[]) => unknown).apply(this, args));
      } catch (error) {
        untrack();
        unlink();
        await held.release().catch(() => undefined);
        throw error;
      }
      untrack();
      unlink();
      // Released by the shutdown already: its outcome is the shutdown's business. Otherwise a failed release
      // (LockLostError: the hold was lost while the method ran) is the caller's to know.
      if (host.closingSignal.aborted) await held.release().catch(() => undefined);
      else await held.release();
      return result;
    };
    Object.defineProperty(wrapped, 'name', { value: (original as { name: string }).name });
    // Nest's route and parameter metadata sit on the original function: the wrapper carries them over.
    for (const key of Reflect.getMetadataKeys(original)) Reflect.defineMetadata(key, Reflect.getMetadata(key, original), wrapped);
    return { ...descriptor, value: wrapped } as typeof descriptor;
  };
}
