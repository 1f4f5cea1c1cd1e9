/**
 * One subscriber connection per client, and one refcounted subscription per channel shared by every
 * local waiter on it (Redisson's `PublishSubscribe` + `RedissonLockEntry`).
 *
 * A waiter joins the channel's FIFO *before* it retries its acquire, so a release published between
 * that retry and the wait is banked on the waiter (`signaled`) instead of being lost.
 */
import type { Redis } from 'ioredis';
import { createEmitter } from '../emitter.js';
import pDefer from 'p-defer';
import { RedisTimeoutError, RedissonShutdownError } from '../errors.js';
import { closeConnection } from '../connection.js';

/** Redisson `LockPubSub.UNLOCK_MESSAGE`: wakes one waiter per process. */
export const UNLOCK_MESSAGE = 0;
/** Redisson `LockPubSub.READ_UNLOCK_MESSAGE`: wakes every waiter per process. */
export const READ_UNLOCK_MESSAGE = 1;

// setTimeout's ceiling; longer waits end early and the caller's loop simply retries.
const MAX_TIMER_MS = 2 ** 31 - 1;

interface WaiterState {
  signaled: boolean;
  wake: (() => void) | null;
}

/** How a channel's messages wake its waiters: `0` one (FIFO), `1` all, anything else nobody. */
export type WakePolicy = (message: string, entry: { wakeOne(): void; wakeAll(): void }) => void;

export const lockWakePolicy: WakePolicy = (message, entry) => {
  if (message === String(UNLOCK_MESSAGE)) entry.wakeOne();
  else if (message === String(READ_UNLOCK_MESSAGE)) entry.wakeAll();
};

class ChannelEntry {
  refs = 0;
  readonly waiters: WaiterState[] = [];
  constructor(
    readonly ready: Promise<unknown>,
    readonly policy: WakePolicy,
  ) {}

  wakeOne(): void {
    const next = this.waiters.find((w) => !w.signaled);
    if (next) signal(next);
  }

  wakeAll(): void {
    for (const w of this.waiters) signal(w);
  }
}

function signal(w: WaiterState): void {
  w.signaled = true;
  const wake = w.wake;
  if (wake) wake();
}

/** One local waiter's hold on a channel. Call {@link release} exactly once, whatever happens. */
export class Subscription {
  private released = false;

  constructor(
    private readonly entry: ChannelEntry,
    private readonly state: WaiterState,
    private readonly onRelease: () => void,
  ) {}

  /**
   * Resolves when a message wakes this waiter (or one was banked for it), or after `ms` (`-1`: no timeout).
   * Rejects with the signal's reason on abort. Leaves no timer or listener behind.
   */
  wait(ms: number, abort?: AbortSignal): Promise<void> {
    if (abort?.aborted) return Promise.reject(abort.reason as Error);
    if (this.state.signaled) {
      this.state.signaled = false;
      return Promise.resolve();
    }
    const d = pDefer<void>();
    const timer = ms >= 0 ? setTimeout(() => finish(), Math.min(ms, MAX_TIMER_MS)) : undefined;
    const onAbort = (): void => finish(abort?.reason);
    const finish = (error?: unknown): void => {
      if (timer !== undefined) clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
      this.state.wake = null;
      if (error === undefined) d.resolve();
      else d.reject(error);
    };
    this.state.wake = () => {
      this.state.signaled = false;
      finish();
    };
    abort?.addEventListener('abort', onAbort, { once: true });
    return d.promise;
  }

  /** Leaves the channel; a wake-up banked but not used is handed to the next waiter. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const i = this.entry.waiters.indexOf(this.state);
    if (i >= 0) this.entry.waiters.splice(i, 1);
    if (this.state.signaled) this.entry.wakeOne();
    this.onRelease();
  }
}

/** Subscriber-side machinery of one client. */
export class PublishSubscribe {
  private readonly entries = new Map<string, ChannelEntry>();
  private readonly messages = createEmitter<Record<string, string>>();
  private connectedOnce = false;
  private closed = false;

  /**
   * @param subscriber a connection used only for (un)subscribing; owned by this object.
   * @param keyPrefix the ioredis `keyPrefix` of the command connection: a channel passed in KEYS gets it,
   *   a SUBSCRIBE does not, so it is added here.
   */
  constructor(
    private readonly subscriber: Redis,
    private readonly keyPrefix: string,
    private readonly closeTimeoutMs = 3_000,
  ) {
    subscriber.on('message', (channel: string, message: string) => this.messages.emit(channel, message));
    subscriber.on('ready', () => this.onReady());
  }

  /** Publish command matching the subscriptions (sharded pub/sub will return `SPUBLISH`). */
  get publishCommand(): 'PUBLISH' | 'SPUBLISH' {
    return 'PUBLISH';
  }

  /** Number of channels this client is subscribed to now. */
  get channelCount(): number {
    return this.entries.size;
  }

  /** Total local waiters across all channels. */
  get waiterCount(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.waiters.length;
    return n;
  }

  /**
   * Joins `channel` (unprefixed name, as passed in KEYS), subscribing on first use. Rejects with
   * `RedisTimeoutError` after `timeoutMs`, or with the signal's reason on abort; the hold is then undone.
   */
  async subscribe(channel: string, timeoutMs: number, abort?: AbortSignal, policy: WakePolicy = lockWakePolicy): Promise<Subscription> {
    if (this.closed) throw new RedissonShutdownError();
    const wire = this.keyPrefix + channel;
    let entry = this.entries.get(wire);
    if (!entry) {
      const ready = this.subscriber.subscribe(wire);
      entry = new ChannelEntry(ready, policy);
      const created = entry;
      this.messages.on(wire, (message) => created.policy(message ?? '', created));
      this.entries.set(wire, entry);
      // A failed SUBSCRIBE must not poison later subscribers: forget the entry, its holders just leave.
      ready.catch(() => {
        if (this.entries.get(wire) !== created) return;
        this.entries.delete(wire);
        this.messages.all.delete(wire);
      });
    }
    entry.refs++;
    const state: WaiterState = { signaled: false, wake: null };
    entry.waiters.push(state);
    const held = entry;
    const sub = new Subscription(entry, state, () => this.unref(wire, held));
    try {
      await withTimeout(entry.ready, timeoutMs, abort, `Subscription to ${wire} timed out after ${timeoutMs} ms`);
    } catch (error) {
      sub.release();
      throw error;
    }
    return sub;
  }

  /** Wakes every waiter on every channel (after a reconnect, when messages may have been missed). */
  wakeAll(): void {
    for (const e of this.entries.values()) e.wakeAll();
  }

  /** Closes the subscriber connection; waiters must have been rejected by the caller first. */
  async close(): Promise<void> {
    this.closed = true;
    this.messages.all.clear();
    this.entries.clear();
    await closeConnection(this.subscriber, this.closeTimeoutMs);
  }

  private unref(wire: string, entry: ChannelEntry): void {
    entry.refs--;
    if (entry.refs > 0 || this.entries.get(wire) !== entry) return;
    this.entries.delete(wire);
    this.messages.all.delete(wire);
    if (!this.closed) this.subscriber.unsubscribe(wire).catch(() => undefined);
  }

  private onReady(): void {
    if (!this.connectedOnce) {
      this.connectedOnce = true;
      return;
    }
    // ioredis re-subscribes on reconnect before 'ready'. A PING queued behind those SUBSCRIBEs returns once
    // they are in place; only then are waiters woken to retry, so a release after their retry is not lost.
    this.subscriber
      .ping()
      .catch(() => undefined)
      .finally(() => this.wakeAll());
  }
}

function withTimeout(promise: Promise<unknown>, ms: number, abort: AbortSignal | undefined, message: string): Promise<void> {
  if (abort?.aborted) return Promise.reject(abort.reason as Error);
  const d = pDefer<void>();
  const timer = setTimeout(() => d.reject(new RedisTimeoutError(message)), Math.min(Math.max(ms, 0), MAX_TIMER_MS));
  const onAbort = (): void => d.reject(abort?.reason as Error);
  abort?.addEventListener('abort', onAbort, { once: true });
  promise.then(
    () => d.resolve(),
    (error: unknown) => d.reject(error as Error),
  );
  return d.promise.finally(() => {
    clearTimeout(timer);
    abort?.removeEventListener('abort', onAbort);
  });
}
