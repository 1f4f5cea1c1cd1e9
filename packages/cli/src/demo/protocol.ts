/**
 * Messages between the demo (parent) and its buyer processes (`buyerWorker.ts`), over the IPC channel of
 * `child_process.fork`. Any other kind of buyer process (a Java Redisson peer, later) speaks the same
 * protocol through an adapter implementing {@link BuyerProcess}.
 */

/** What one buyer process needs to run one strategy. */
export interface BuyerSpec {
  /** Id of a buyer implementation in `buyers.ts`. */
  readonly strategy: string;
  readonly redisUrl: string;
  readonly stockKey: string;
  readonly lockKey: string;
  /** Concurrent buyers in this process. */
  readonly buyers: number;
  /** Work (ms) done inside the critical section on every purchase. */
  readonly workMs: number;
  /** Lease (ms) of strategies that set one. */
  readonly leaseMs: number;
  /** Length (ms) of the one-off stall an armed `pause` injects. */
  readonly pauseMs: number;
  /** `lockWatchdogTimeout` of the RLock strategy. */
  readonly watchdogMs: number;
  /** The RedLock strategies' lock servers (the stock stays on `redisUrl`). */
  readonly nodeUrls?: readonly string[];
}

/** An event the demo injects into the next critical section of a process. */
export type Injection = 'pause' | 'crash';

export type ToBuyer =
  | { readonly type: 'start'; readonly spec: BuyerSpec }
  | { readonly type: 'go' }
  /** The next buyer of this process to enter the critical section stalls (`pause`) or hangs until killed (`crash`). */
  | { readonly type: 'arm'; readonly injection: Injection }
  | { readonly type: 'disarm' }
  /** Finish the current purchase, then start no new one until `resume`. */
  | { readonly type: 'holdOff' }
  | { readonly type: 'resume' }
  /** Give up: buyers still trying report themselves stuck. */
  | { readonly type: 'stop' };

export type FromBuyer =
  | { readonly type: 'ready' }
  /**
   * A buyer sold unit `unit` (the stock value it read) in `ms` from first attempt to release, which
   * completed at `at` (epoch ms: buyer processes run on the demo's machine, so clocks agree).
   */
  | { readonly type: 'sale'; readonly unit: number; readonly ms: number; readonly at: number }
  | { readonly type: 'injected'; readonly injection: Injection }
  /** A buyer found its lock gone or taken over (lease expired, lock deleted by someone else). */
  | { readonly type: 'lostLock' }
  | { readonly type: 'done'; readonly stuck: number }
  | { readonly type: 'error'; readonly message: string };

/** One buyer process as the demo sees it: a forked Node worker, or an adapter around another runtime. */
export interface BuyerProcess {
  readonly pid: number | undefined;
  /** A human label, e.g. `node #1`. */
  readonly label: string;
  send(message: ToBuyer): void;
  onMessage(handler: (message: FromBuyer) => void): void;
  /** Resolves when the process has exited (for any reason). */
  readonly exited: Promise<void>;
  /** SIGKILL: the crash of the demo, and the cleanup of stragglers. */
  kill(): void;
}
