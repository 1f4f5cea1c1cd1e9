/**
 * One buyer process's side of the demo protocol, whatever runs it: the forked Node worker
 * (`buyerWorker.ts`) and the Java Redisson adapter (`javaBuyerProcess.ts`) both keep their buyers'
 * shared state here: the injection armed by the demo, a hold-off, and the stop signal.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { backoff, StoppedError, type Buyer, type BuyerImpl } from './buyers.js';
import type { BuyerSpec, FromBuyer, Injection, ToBuyer } from './protocol.js';

/** Reports a message to the demo (over IPC, or straight to its handlers). */
export type SendToDemo = (message: FromBuyer) => void;

export class BuyerProcessState {
  readonly stop = new AbortController();
  #armed: Injection | null = null;
  #holdOff: { promise: Promise<void>; release: () => void } | null = null;

  constructor(
    readonly spec: BuyerSpec,
    readonly redis: Redis,
    readonly impl: BuyerImpl,
    readonly send: SendToDemo,
  ) {
    // Every buyer waits on this one signal at once: more than the default 10 listeners is expected.
    setMaxListeners(Infinity, this.stop.signal);
  }

  /** Applies a message from the demo (`start` and `go` are the runner's business). */
  handle(message: ToBuyer): void {
    switch (message.type) {
      case 'arm':
        this.#armed = message.injection;
        break;
      case 'disarm':
        this.#armed = null;
        break;
      case 'holdOff':
        if (!this.#holdOff) {
          let release!: () => void;
          const promise = new Promise<void>((resolve) => (release = resolve));
          this.#holdOff = { promise, release };
        }
        break;
      case 'resume':
        this.#holdOff?.release();
        this.#holdOff = null;
        break;
      case 'stop':
        this.stop.abort();
        this.#holdOff?.release();
        break;
      default:
        break;
    }
  }

  /** Runs buyer number `index` (from 0) until sold out ('done') or stopped ('stuck'). */
  async runBuyer(index: number): Promise<'done' | 'stuck'> {
    const buyer: Buyer = {
      index,
      spec: this.spec,
      redis: this.redis,
      signal: this.stop.signal,
      work: () => this.#work(),
      lostLock: () => this.send({ type: 'lostLock' }),
      spin: async (attempt) => {
        for (;;) {
          if (this.stop.signal.aborted) throw new StoppedError('stopped');
          if (await attempt()) return;
          await backoff(this.stop.signal);
        }
      },
    };
    for (;;) {
      if (this.#holdOff) await this.#holdOff.promise;
      if (this.stop.signal.aborted) return 'stuck';
      const started = performance.now();
      let unit: number | null;
      try {
        unit = await this.impl.buyOnce(buyer);
      } catch (error) {
        if (error instanceof StoppedError || this.stop.signal.aborted) return 'stuck';
        throw error;
      }
      if (unit === null) return 'done';
      this.send({ type: 'sale', unit, ms: performance.now() - started, at: Date.now() });
    }
  }

  /** Runs all `spec.buyers` buyers; resolves with how many were stuck. */
  async runBuyers(): Promise<number> {
    const outcomes = await Promise.all(Array.from({ length: this.spec.buyers }, (_, i) => this.runBuyer(i)));
    return outcomes.filter((o) => o === 'stuck').length;
  }

  async #work(): Promise<void> {
    const injection = this.#armed;
    if (injection) {
      this.#armed = null;
      this.send({ type: 'injected', injection });
      // The crash: hang while holding the lock until the demo kills this process.
      if (injection === 'crash') await new Promise<never>(() => undefined);
      await sleep(this.spec.pauseMs);
    }
    await sleep(this.spec.workMs);
  }
}
