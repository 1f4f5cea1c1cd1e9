/**
 * Java Redisson buyers (strategy 7): buyer threads of a JVM running real Redisson, behind the demo's
 * buyer protocol. Each buyer owns one named Java thread of the peer, and every purchase is
 * `RLock.lock()` on that thread, the shared critical section (`sellOne`, driven from here), then
 * `RLock.unlock()` on the same thread. Driving the section from Node is sound because the Java thread
 * holds the lock throughout; the lock's owner is that thread, exactly as in a Java application.
 */
import { Redis } from 'ioredis';
import { BuyerProcessState } from './buyerState.js';
import { sellOne, StoppedError, type BuyerImpl } from './buyers.js';
import type { Peer } from './javaPeer.js';
import type { BuyerProcess, BuyerSpec, FromBuyer, ToBuyer } from './protocol.js';

// After the run every Java lock is released: a short grace for Redisson's shutdown is plenty.
const SHUTDOWN_GRACE_MS = 1_000;

/** The peer's thread for buyer `index`. */
const threadOf = (index: number): string => `buyer-${index + 1}`;

/** Resolves `true` once `promise` does, or `false` as soon as `signal` aborts (rejects when `promise` rejects first). */
async function unlessAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.then(() => true), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Java Redisson's `IllegalMonitorStateException`, as the peer reports it: the lock was not held any more. */
function isNotOwner(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'type' in error && error.type === 'IllegalMonitorStateException';
}

/** Unlocks on `thread`; a thread that no longer held the lock is counted as a lost lock. */
async function unlock(peer: Peer, name: string, thread: string, onLostLock: () => void): Promise<void> {
  try {
    await peer.call('lock', name, 'unlock', [], thread);
  } catch (error) {
    if (!isNotOwner(error)) throw error;
    onLostLock();
  }
}

/** RLock.lock() / unlock() of Java Redisson, each buyer on its own peer thread. */
export function javaRLockBuyer(peer: Peer, onLostLock: () => void): BuyerImpl {
  return {
    async buyOnce(b) {
      const thread = threadOf(b.index);
      const locked = peer.call('lock', b.spec.lockKey, 'lock', [], thread);
      // lock() cannot be cancelled from here: when the demo gives up, leave it and release it if it comes.
      if (!(await unlessAborted(locked, b.signal))) {
        void locked.then(() => peer.call('lock', b.spec.lockKey, 'unlock', [], thread)).catch(() => undefined);
        throw new StoppedError('stopped while waiting for the lock');
      }
      try {
        return await sellOne(b);
      } finally {
        await unlock(peer, b.spec.lockKey, thread, onLostLock);
      }
    },
    close: () => peer.shutdown(SHUTDOWN_GRACE_MS),
  };
}

/**
 * A running Java peer seen as one buyer process of the demo. It lives in the demo's process: the
 * buyers' stock reads and writes go through its own Redis connection, their locks through the JVM.
 */
export class JavaBuyerProcess implements BuyerProcess {
  readonly exited: Promise<void>;
  readonly #peer: Peer;
  readonly #handlers: ((message: FromBuyer) => void)[] = [];
  #state: BuyerProcessState | null = null;
  #redis: Redis | null = null;
  #go!: () => void;
  readonly #goSignal = new Promise<void>((resolve) => (this.#go = resolve));
  #killed = false;
  #exit!: () => void;

  constructor(
    peer: Peer,
    readonly label: string,
  ) {
    this.#peer = peer;
    this.exited = new Promise<void>((resolve) => (this.#exit = resolve));
  }

  get pid(): number {
    return this.#peer.pid;
  }

  send(message: ToBuyer): void {
    if (this.#killed) return;
    if (message.type === 'start') this.#start(message.spec);
    else if (message.type === 'go') this.#go();
    else this.#state?.handle(message);
  }

  onMessage(handler: (message: FromBuyer) => void): void {
    this.#handlers.push(handler);
  }

  kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    this.#state?.stop.abort();
    this.#redis?.disconnect();
    void this.#peer.kill().then(this.#exit);
  }

  #emit(message: FromBuyer): void {
    // Like a killed process, a killed adapter says nothing more.
    if (!this.#killed) this.#handlers.forEach((handler) => handler(message));
  }

  #start(spec: BuyerSpec): void {
    const redis = new Redis(spec.redisUrl, { maxRetriesPerRequest: 1 });
    this.#redis = redis;
    const impl = javaRLockBuyer(this.#peer, () => this.#emit({ type: 'lostLock' }));
    const state = new BuyerProcessState(spec, redis, impl, (message) => this.#emit(message));
    this.#state = state;
    const run = async (): Promise<void> => {
      await redis.ping();
      this.#emit({ type: 'ready' });
      await this.#goSignal;
      const stuck = await state.runBuyers();
      this.#emit({ type: 'done', stuck });
      await impl.close?.();
      await redis.quit();
      this.#exit();
    };
    run().catch((error: unknown) => {
      // After a kill, failing calls (the JVM is gone) are the kill's doing.
      this.#emit({ type: 'error', message: error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error) });
      this.kill();
    });
  }
}
