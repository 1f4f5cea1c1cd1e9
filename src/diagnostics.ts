/**
 * Observability through `node:diagnostics_channel`, the way undici (`undici:request:*`) and ioredis
 * (`ioredis:command`) expose theirs: one tracing channel per operation, each with the five events
 * `start`, `end`, `asyncStart`, `asyncEnd`, `error` (Node's `TracingChannel.tracePromise`/`traceSync`).
 *
 * | channel | traces | context after `asyncEnd` |
 * |---|---|---|
 * | `redisson-ts:acquire` | one acquiring call (lock, tryLock, acquire, semaphore acquire, latch await) | `acquired`, `waitedMs` |
 * | `redisson-ts:wait` | one wait for a release message inside an acquire | `woken`, `waitedMs` |
 * | `redisson-ts:release` | one unlock / semaphore release | `released`, `heldMs` |
 * | `redisson-ts:renewal` | one watchdog renewal batch | `renewed`, `gone` |
 * | `redisson-ts:lost` | the client's handling of a lock found lost (signals, `lockLost` event) | `heldMs` |
 *
 * Nothing is built or published while a channel has no subscriber (`hasSubscribers` is checked first).
 * `NODE_DEBUG=redisson-ts` logs every event through `util.debuglog` (no dependency).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { debuglog } from 'node:util';

/** The object an event is about: every context carries these. */
export interface DiagnosticsTarget {
  /** The object's name as given to the client's `get…` method. */
  readonly name: string;
  /** The Redis key (the name mapped by the client's NameMapper). */
  readonly rawName: string;
  /** The primitive's class: `RLock`, `RedissonFairLock`, `RedissonReadLock`, `RSemaphore`, `RCountDownLatch`, … */
  readonly primitive: string;
  /** The client's id (UUID). */
  readonly clientId: string;
  /** The owner (thread id) of a lock acquisition or release; absent for semaphores and latches. */
  readonly owner?: number;
  /** Permits asked for or released (semaphores). */
  readonly permits?: number;
  /** Lease asked for in ms (`-1`: watchdog), for lock acquisitions. */
  readonly leaseMs?: number;
}

/**
 * A target, or a function that makes it: a hot caller passes the function, so that nothing is built while
 * nobody listens (one closure instead of the target's object per call).
 */
export type TraceTarget = DiagnosticsTarget | (() => DiagnosticsTarget) | TraceSource;

/** An object that makes its trace target when asked (a lock's per-call object: no closure per call). */
export interface TraceSource {
  traceTarget(): DiagnosticsTarget;
}

const targetOf = (target: TraceTarget): DiagnosticsTarget => (typeof target === 'function' ? target() : 'traceTarget' in target ? target.traceTarget() : target);

/** Context of `redisson-ts:acquire`. */
export interface AcquireContext extends DiagnosticsTarget {
  /** The call's wait: `0` a single attempt, `-1` unlimited, else ms. */
  readonly waitMs: number;
  /** Set at `asyncEnd`: whether the call acquired (false: its wait ran out; on `error` it threw). */
  acquired: boolean;
  /** Set at `asyncEnd`/`error`: ms from the call's start to its outcome. */
  waitedMs: number;
  /** Set by `tracePromise`: the outcome, or the error on `error`. */
  result?: unknown;
  /** Set by `tracePromise`/`traceSync` at `error`: what the call threw or rejected with. */
  error?: unknown;
}

/** Context of `redisson-ts:wait`: one wait for a message on `channel`, within an acquire. */
export interface WaitContext extends DiagnosticsTarget {
  /** The channel waited on (the lock's, or a fair-lock waiter's own). */
  readonly channel: string;
  /** Longest wait (ms) before retrying anyway (the holder's TTL); `-1`: only a message ends it. */
  readonly timeoutMs: number;
  /** Set at `asyncEnd`: true when a message woke the waiter, false when `timeoutMs` ran out. */
  woken: boolean;
  /** Set at `asyncEnd`/`error`: ms the wait lasted. */
  waitedMs: number;
  /** Set by `tracePromise`/`traceSync` at `asyncEnd`: the call's outcome. */
  result?: unknown;
  /** Set by `tracePromise`/`traceSync` at `error`: what the call threw or rejected with. */
  error?: unknown;
}

/** Context of `redisson-ts:release`. */
export interface ReleaseContext extends DiagnosticsTarget {
  /**
   * Set at `asyncEnd`: true when the object was released — a lock's last hold of this owner: the key deleted
   * and waiters woken, or (a read lock) the owner's field removed while other owners keep the lock.
   */
  released: boolean;
  /** Set at `asyncEnd` of a lock's last release: ms since the owner's first acquisition (when it was traced). */
  heldMs?: number;
  /** Set by `tracePromise`/`traceSync` at `asyncEnd`: the call's outcome. */
  result?: unknown;
  /** Set by `tracePromise`/`traceSync` at `error`: what the call threw or rejected with. */
  error?: unknown;
}

/** Context of `redisson-ts:renewal`: one batch of the watchdog. */
export interface RenewalContext {
  /** The renewal kind (`lock`, `readLock`, …). */
  readonly kind: string;
  /** The locks of the batch: Redis key and owner field (`<clientId>:<threadId>`). */
  readonly locks: ReadonlyArray<{
    /** The lock's Redis key. */
    readonly rawName: string;
    /** The owner's hash field, `<clientId>:<threadId>`. */
    readonly field: string;
  }>;
  /** Set at `asyncEnd`: locks renewed, and locks found gone (reported on `redisson-ts:lost`). */
  renewed: number;
  /** Set at `asyncEnd`: locks of the batch found gone. */
  gone: number;
  /** Set by `tracePromise`/`traceSync` at `asyncEnd`: the call's outcome. */
  result?: unknown;
  /** Set by `tracePromise`/`traceSync` at `error`: what the call threw or rejected with. */
  error?: unknown;
}

/** Context of `redisson-ts:lost`. */
export interface LostContext {
  /** The lock's name as given to the client's `get…` method. */
  readonly name: string;
  /** The lock's Redis key (the name mapped by the client's NameMapper). */
  readonly rawName: string;
  /** The renewal kind that held it (`lock`, `readLock`, …). */
  readonly kind: string;
  /** The client's id (UUID). */
  readonly clientId: string;
  /** The owner (thread id) whose hold was lost. */
  readonly owner: number;
  /** Ms since the owner's first traced acquisition, when known. */
  readonly heldMs?: number;
  /** Set by `tracePromise`/`traceSync` at `asyncEnd`: the call's outcome. */
  result?: unknown;
  /** Set by `tracePromise`/`traceSync` at `error`: what the call threw or rejected with. */
  error?: unknown;
}

/** Names of the tracing channels. */
export const CHANNELS = Object.freeze({
  /** One acquiring call: lock, tryLock, acquire, semaphore acquire, latch await. */
  acquire: 'redisson-ts:acquire',
  /** One wait for a release message inside an acquire. */
  wait: 'redisson-ts:wait',
  /** One unlock or semaphore release. */
  release: 'redisson-ts:release',
  /** One watchdog renewal batch. */
  renewal: 'redisson-ts:renewal',
  /** The client's handling of a lock found lost. */
  lost: 'redisson-ts:lost',
} as const);

const acquireChannel = diagnosticsChannel.tracingChannel<unknown, AcquireContext>(CHANNELS.acquire);
const waitChannel = diagnosticsChannel.tracingChannel<unknown, WaitContext>(CHANNELS.wait);
const releaseChannel = diagnosticsChannel.tracingChannel<unknown, ReleaseContext>(CHANNELS.release);
const renewalChannel = diagnosticsChannel.tracingChannel<unknown, RenewalContext>(CHANNELS.renewal);
const lostChannel = diagnosticsChannel.tracingChannel<unknown, LostContext>(CHANNELS.lost);

// Start of each traced owner's hold, for `heldMs`: `rawName \0 clientId:owner`. Written only while someone
// listens; bounded (a forceUnlock'ed or expired hold is never released by its owner).
const heldSince = new Map<string, number>();
const MAX_TRACKED_HOLDS = 10_000;
const holdKey = (rawName: string, clientId: string, owner: number | undefined): string => `${rawName}\u0000${clientId}:${owner ?? ''}`;

/** Traces one acquiring call; `run` resolves with the acquisition or `null` when the wait ran out. */
export function traceAcquire<R>(traced: TraceTarget | undefined, waitMs: number, run: () => Promise<R | null>): Promise<R | null> {
  if (traced === undefined || !acquireChannel.hasSubscribers) return run();
  const target = targetOf(traced);
  const context: AcquireContext = { ...target, waitMs, acquired: false, waitedMs: 0 };
  const started = performance.now();
  return acquireChannel.tracePromise(async () => {
    try {
      const result = await run();
      context.acquired = result !== null;
      if (context.acquired && target.owner !== undefined) {
        const key = holdKey(target.rawName, target.clientId, target.owner);
        if (!heldSince.has(key)) {
          if (heldSince.size >= MAX_TRACKED_HOLDS) heldSince.delete(heldSince.keys().next().value as string);
          heldSince.set(key, performance.now());
        }
      }
      return result;
    } finally {
      context.waitedMs = performance.now() - started;
    }
  }, context);
}

/** Whether {@link traceWait} would trace a wait of `traced` now (a listener on `redisson-ts:wait`). */
export function waitTraced(traced: TraceTarget | undefined): traced is TraceTarget {
  return traced !== undefined && waitChannel.hasSubscribers;
}

/** Traces one wait for a message: `waiter.wait(timeoutMs, scope)`, which resolves `'woken'` or `'timeout'`. */
export function traceWait<R, S>(traced: TraceTarget | undefined, channel: string, timeoutMs: number, waiter: { wait(ms: number, scope: S): Promise<R> }, scope: S): Promise<R> {
  // No closure for the wait: a parked waiter would keep it (and its context) while nobody traces (issue 29).
  if (traced === undefined || !waitChannel.hasSubscribers) return waiter.wait(timeoutMs, scope);
  const context: WaitContext = { ...targetOf(traced), channel, timeoutMs, woken: false, waitedMs: 0 };
  const started = performance.now();
  return waitChannel.tracePromise(async () => {
    try {
      const outcome = await waiter.wait(timeoutMs, scope);
      context.woken = outcome === 'woken';
      return outcome;
    } finally {
      context.waitedMs = performance.now() - started;
    }
  }, context);
}

/**
 * Traces one release; `released(result)` says whether `run`'s result released the object (a lock's last
 * hold). Ends the hold-time record of a lock owner whatever the outcome, except a decremented reentrant hold.
 */
export function traceRelease<R>(traced: TraceTarget, released: (result: R) => boolean, run: () => Promise<R>): Promise<R> {
  if (!releaseChannel.hasSubscribers) {
    if (heldSince.size === 0) return run();
    const target = targetOf(traced);
    if (target.owner !== undefined) {
      return run().then(
        (result) => (released(result) && heldSince.delete(holdKey(target.rawName, target.clientId, target.owner)), result),
        (error: unknown) => {
          heldSince.delete(holdKey(target.rawName, target.clientId, target.owner));
          throw error;
        },
      );
    }
    return run();
  }
  const target = targetOf(traced);
  const context: ReleaseContext = { ...target, released: false };
  const key = target.owner === undefined ? undefined : holdKey(target.rawName, target.clientId, target.owner);
  return releaseChannel.tracePromise(async () => {
    let last = true;
    try {
      const result = await run();
      last = context.released = released(result);
      return result;
    } finally {
      const since = key === undefined ? undefined : heldSince.get(key);
      if (key !== undefined && last) heldSince.delete(key);
      if (since !== undefined && last) context.heldMs = performance.now() - since;
    }
  }, context);
}

/**
 * Traces one watchdog batch; `run` resolves with 1 (renewed) or 0 (gone) per lock. Returns `run()`'s own
 * promise: the events are published from a reaction registered on it before the caller's, so they precede
 * the scheduler's handling of the result (as with `tracePromise`) without the three promise hops
 * `tracePromise` and an async wrapper would add — observing a batch must not delay what it reports.
 */
export function traceRenewal(
  kind: string,
  locks: ReadonlyArray<{ readonly rawName: string; readonly field: string }>,
  run: () => Promise<number[]>,
): Promise<number[]> {
  if (!renewalChannel.hasSubscribers) return run();
  const context: RenewalContext = { kind, locks: locks.map((l) => ({ rawName: l.rawName, field: l.field })), renewed: 0, gone: 0 };
  const { start, end, asyncStart, asyncEnd, error } = renewalChannel;
  const settled = (): void => {
    asyncStart.publish(context);
    asyncEnd.publish(context);
  };
  // What `tracePromise` does (stores bound on `start`, `end` after the call, `error` then async events on
  // rejection), on the caller's promise instead of a derived one.
  return start.runStores(context, () => {
    let promise: Promise<number[]>;
    try {
      promise = run();
    } catch (thrown) {
      context.error = thrown;
      error.publish(context);
      throw thrown;
    } finally {
      end.publish(context);
    }
    promise.then(
      (results) => {
        for (const r of results) if (r === 1) context.renewed++;
        else context.gone++;
        context.result = results;
        settled();
      },
      (failure: unknown) => {
        context.error = failure;
        error.publish(context);
        settled();
      },
    );
    return promise;
  });
}

/** Traces the client's handling of a lost lock (`report`: abort the holds' signals, emit `lockLost`). */
export function traceLost(lost: Omit<LostContext, 'heldMs'>, report: () => void): void {
  const key = holdKey(lost.rawName, lost.clientId, lost.owner);
  const since = heldSince.get(key);
  if (since !== undefined) heldSince.delete(key);
  if (!lostChannel.hasSubscribers) return report();
  const context: LostContext = since === undefined ? { ...lost } : { ...lost, heldMs: performance.now() - since };
  lostChannel.traceSync(report, context);
}

// ---- NODE_DEBUG=redisson-ts ----------------------------------------------------------------------------

const log = debuglog('redisson-ts');

/** Context fields set when an operation ends. */
const OUTCOME_FIELDS = ['acquired', 'waitedMs', 'woken', 'released', 'heldMs', 'renewed', 'gone'];

/** One log line for an event of a channel (exported for tests). */
export function describeEvent(channel: string, event: string, context: object): string {
  const c = context as Record<string, unknown>;
  // At `start` the outcome fields still hold their initial values: leave them out.
  const skip = event === 'start' ? ['result', 'locks', 'clientId', ...OUTCOME_FIELDS] : ['result', 'locks', 'clientId'];
  const fields = Object.entries(c)
    .filter(([k, v]) => v !== undefined && !skip.includes(k))
    .map(([k, v]) => `${k}=${k === 'error' ? String(v) : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : JSON.stringify(v)}`);
  if (Array.isArray(c['locks'])) fields.push(`locks=${c['locks'].length}`);
  return `${channel.slice('redisson-ts:'.length)} ${event} ${fields.join(' ')}`;
}

if (log.enabled) {
  for (const [, name] of Object.entries(CHANNELS)) {
    const on = (event: string) => (context: object) => log('%s', describeEvent(name, event, context));
    const none = (): void => undefined;
    diagnosticsChannel.tracingChannel(name).subscribe({ start: on('start'), end: none, asyncStart: none, asyncEnd: on('asyncEnd'), error: on('error') });
  }
}
