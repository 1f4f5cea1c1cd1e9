/**
 * A buyer process of the demo, started with `child_process.fork` (so it runs under tsx or from dist/
 * alike). It runs `spec.buyers` concurrent buyers of one strategy and reports every sale to the parent;
 * see `protocol.ts` for the conversation.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { backoff, BUYERS, StoppedError, type Buyer, type BuyerImpl } from './buyers.js';
import type { BuyerSpec, FromBuyer, Injection, ToBuyer } from './protocol.js';

function send(message: FromBuyer, then?: () => void): void {
  // The parent may be gone already (it killed us, or was interrupted): nothing left to tell.
  if (!process.connected) return then?.();
  process.send?.(message, undefined, {}, () => then?.());
}

class BuyerProcessState {
  readonly stop = new AbortController();
  #armed: Injection | null = null;
  #holdOff: { promise: Promise<void>; release: () => void } | null = null;

  constructor(
    readonly spec: BuyerSpec,
    readonly redis: Redis,
    readonly impl: BuyerImpl,
  ) {
    // Every buyer waits on this one signal at once: more than the default 10 listeners is expected.
    setMaxListeners(Infinity, this.stop.signal);
  }

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

  /** Runs one buyer until sold out ('done') or stopped ('stuck'). */
  async runBuyer(): Promise<'done' | 'stuck'> {
    const buyer: Buyer = {
      spec: this.spec,
      redis: this.redis,
      signal: this.stop.signal,
      work: () => this.#work(),
      lostLock: () => send({ type: 'lostLock' }),
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
      send({ type: 'sale', unit, ms: performance.now() - started, at: Date.now() });
    }
  }

  async #work(): Promise<void> {
    const injection = this.#armed;
    if (injection) {
      this.#armed = null;
      send({ type: 'injected', injection });
      // The crash: hang while holding the lock until the parent SIGKILLs this process.
      if (injection === 'crash') await new Promise<never>(() => undefined);
      await sleep(this.spec.pauseMs);
    }
    await sleep(this.spec.workMs);
  }
}

async function run(spec: BuyerSpec): Promise<void> {
  const factory = BUYERS[spec.strategy];
  if (!factory) throw new Error(`unknown strategy ${spec.strategy}`);
  const redis = new Redis(spec.redisUrl, { maxRetriesPerRequest: 1 });
  const impl = factory(spec, () => send({ type: 'lostLock' }));
  const state = new BuyerProcessState(spec, redis, impl);
  const go = new Promise<void>((resolve) => {
    process.on('message', (message: ToBuyer) => {
      if (message.type === 'go') resolve();
      else state.handle(message);
    });
  });
  await redis.ping();
  send({ type: 'ready' });
  await go;
  const outcomes = await Promise.all(Array.from({ length: spec.buyers }, () => state.runBuyer()));
  // Report first: closing connections is not part of the measured run.
  send({ type: 'done', stuck: outcomes.filter((o) => o === 'stuck').length });
  await impl.close?.();
  await redis.quit();
  process.exit(0);
}

if (!process.send) {
  console.error('buyerWorker: this module is started by `redisson-ts demo`, not directly');
  process.exit(2);
}
// Orphaned (the demo exited or was killed): stop at once.
process.on('disconnect', () => process.exit(0));
process.once('message', (message: ToBuyer) => {
  if (message.type !== 'start') return;
  run(message.spec).catch((error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) }, () => process.exit(1));
  });
});
