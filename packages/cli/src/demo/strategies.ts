/**
 * The demo's strategies, parent side: what each one is called, how its buyers are tuned, which failure the
 * demo injects, and how its outcome is explained. The list is data: a strategy that needs other buyer
 * processes (Java Redisson on the same lock: `javaStrategy.ts`) supplies `participants`, and callers pass
 * their own list to `runDemo`.
 */
import type { BuyerProcess, BuyerSpec, Injection } from './protocol.js';

/** One buyer process and the spec it runs. */
export interface Participant {
  readonly process: BuyerProcess;
  readonly spec: BuyerSpec;
}

/** Settings shared by every strategy of one demo run. */
export interface DemoSettings {
  readonly stock: number;
  readonly buyers: number;
  /** OS processes the buyers are spread over (at least 2). */
  readonly processes: number;
  readonly redisUrl: string;
  /** A run with no sale for this long is stopped and its waiting buyers reported stuck. */
  readonly stuckAfterMs: number;
}

/** How the buyers of a strategy are tuned (ms). */
export type BuyerTuning = Pick<BuyerSpec, 'workMs' | 'leaseMs' | 'pauseMs' | 'watchdogMs'>;

/** A failure injected once `sold` reaches `at × stock`. */
export interface ScheduledInjection {
  readonly at: number;
  /**
   * `pause`: the next buyer (any process) to enter the critical section stalls for `pauseMs`.
   * `crash`: the first process's next buyer to enter it hangs and the process is SIGKILLed; the other
   * processes hold off meanwhile, so the kill always lands on a lock holder.
   */
  readonly injection: Injection;
}

/** Something the demo does itself once `sold` reaches `at × stock`; `note` is shown while it happens. */
export interface ScheduledAction {
  readonly at: number;
  readonly note: string;
  run(): Promise<void>;
}

/** What was measured in one run of one strategy. */
export interface StrategyResult {
  readonly strategy: Strategy;
  readonly tuning: BuyerTuning;
  readonly stock: number;
  readonly buyers: number;
  /** Purchases the buyers completed. */
  readonly sold: number;
  /** Purchases of a unit that had already been sold. */
  readonly oversold: number;
  /** Most purchases of a single unit. */
  readonly maxSalesOfOneUnit: number;
  /** Buyers still waiting when the run was stopped for lack of progress. */
  readonly stuck: number;
  readonly lostLocks: number;
  /** Stock value left in Redis at the end. */
  readonly stockLeft: number;
  readonly elapsedMs: number;
  readonly opsPerSec: number;
  readonly p99Ms: number;
  /** Purchases per buyer process, in the order of the participants. */
  readonly soldBy: readonly { readonly label: string; readonly buyers: number; readonly sold: number }[];
  /** The killed process, when a crash was injected. */
  readonly crash?: {
    readonly pid: number | undefined;
    readonly soldBefore: number;
    /** From the kill to the next sale; null when there was none. */
    readonly recoveredAfterMs: number | null;
    /** From the kill to the end of the run. */
    readonly runAfterMs: number;
  };
  /** Longest stall injected into a critical section, ms. */
  readonly paused?: number;
}

export type Verdict = 'oversold' | 'stuck' | 'incomplete' | 'correct';

/** The verdict of a result: what went wrong first, if anything. */
export function verdictOf(r: Pick<StrategyResult, 'oversold' | 'stuck' | 'sold' | 'stock'>): Verdict {
  if (r.oversold > 0) return 'oversold';
  if (r.stuck > 0) return 'stuck';
  if (r.sold !== r.stock) return 'incomplete';
  return 'correct';
}

export interface Strategy {
  /** Stable id, used by `--only` and in `--json`. */
  readonly id: string;
  /** Row label of the table. */
  readonly title: string;
  /** Buyer implementation (a key of `BUYERS` in buyers.ts) run by the default participants. */
  readonly buyer: string;
  /** What this strategy is there to show. */
  readonly expected: Verdict;
  readonly tuning: BuyerTuning;
  readonly injections: readonly ScheduledInjection[];
  /**
   * Starts this strategy's buyer processes, each with its own spec (`spec.buyers` is the total to share
   * out). Default: `settings.processes` forked Node workers (`nodeParticipants`). The first participant is
   * the one a `crash` kills. `status` shows what a slow start is doing (starting a JVM, say).
   */
  readonly participants?: (settings: DemoSettings, spec: BuyerSpec, status: (text: string) => void) => Participant[] | Promise<Participant[]>;
  /** What the demo itself does when `sold` reaches `at × stock` (kill a lock server, say), besides `injections`. */
  readonly actions?: readonly ScheduledAction[];
  /** Called when a buyer reports an injection: for a `pause`, one buyer is stalled inside the critical section. */
  onInjected?(injection: Injection): Promise<void>;
  /** Releases what `participants` set up (lock servers), after the run. */
  teardown?(): Promise<void>;
  /** One paragraph on what happened, from the measured numbers. */
  explain(r: StrategyResult): string;
}

export const WORK_MS = 3;
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function oversoldSentence(r: StrategyResult): string {
  return `${r.sold} purchases went through for ${r.stock} units: ${plural(r.oversold, 'sale')} of a unit that was already gone, one unit sold ${r.maxSalesOfOneUnit} times.`;
}

/** The six strategies every run shows, in order (strategy 7, with Java Redisson, is in javaStrategy.ts). */
export const DEFAULT_STRATEGIES: readonly Strategy[] = [
  {
    id: 'naive',
    title: '1. GET then SET',
    buyer: 'naive',
    expected: 'oversold',
    tuning: { workMs: WORK_MS, leaseMs: 0, pauseMs: 0, watchdogMs: 0 },
    injections: [],
    explain: (r) =>
      `Every buyer reads the stock, works ${r.tuning.workMs} ms, then writes stock − 1. Buyers in different processes read the same value before any of them writes it back, and each believes it sold that unit. ${oversoldSentence(r)} A read-modify-write over the network needs a lock or an atomic operation.`,
  },
  {
    id: 'setnx',
    title: '2. SETNX lock',
    buyer: 'setnx',
    expected: 'stuck',
    tuning: { workMs: WORK_MS, leaseMs: 0, pauseMs: 0, watchdogMs: 0 },
    injections: [{ at: 0.25, injection: 'crash' }],
    explain: (r) =>
      `SETNX makes buyers take turns, but the lock never expires. After ${r.crash?.soldBefore ?? '?'} sales, process ${r.crash?.pid ?? '?'} was killed (SIGKILL) while one of its buyers held the lock; nobody was left to DEL it. The other ${plural(r.stuck, 'buyer')} kept retrying for ${seconds(r.crash?.runAfterMs ?? r.elapsedMs)} until the demo gave up, and ${plural(r.stockLeft, 'unit')} stayed unsold. In production the shop stays closed until someone deletes the key by hand.`,
  },
  {
    id: 'setnx-px',
    title: '3. SET NX PX, fixed value',
    buyer: 'setnx-px',
    expected: 'oversold',
    tuning: { workMs: 30, leaseMs: 20, pauseMs: 0, watchdogMs: 0 },
    injections: [],
    explain: (r) =>
      `The lease (${r.tuning.leaseMs} ms) now ends a crashed holder's lock, but the work (${r.tuning.workMs} ms) outlasts it: ${plural(r.lostLocks, 'lock')} expired while their holder was still working. The next buyer took the lock and read the same stock, and when the first one finished, its DEL removed the newcomer's lock, since a fixed value cannot tell one holder from another. ${oversoldSentence(r)}`,
  },
  {
    id: 'owner-checked',
    title: '4. owner-checked release',
    buyer: 'owner-checked',
    expected: 'oversold',
    tuning: { workMs: WORK_MS, leaseMs: 30, pauseMs: 60, watchdogMs: 0 },
    injections: [{ at: 0.25, injection: 'pause' }],
    explain: (r) =>
      `A unique value per holder and a compare-and-delete script mean nobody deletes someone else's lock, and this is safe while the work fits in the ${r.tuning.leaseMs} ms lease. Then one holder stalled for ${r.paused ?? 0} ms (a GC pause, a slow downstream call): its lease expired and other buyers took the lock and went on selling; when it woke up it wrote back the stock it had read before the stall, so units already sold went on sale again. The release check noticed (${plural(r.lostLocks, 'lost lock')}), but only after the damage. ${oversoldSentence(r)}`,
  },
  {
    id: 'rlock',
    title: '5. RLock + watchdog',
    buyer: 'rlock',
    expected: 'correct',
    tuning: { workMs: WORK_MS, leaseMs: 0, pauseMs: 1_500, watchdogMs: 1_000 },
    injections: [
      { at: 0.25, injection: 'pause' },
      { at: 0.5, injection: 'crash' },
    ],
    explain: (r) => {
      const recovered = r.crash?.recoveredAfterMs;
      return `A holder stalled for ${r.paused ?? 0} ms, longer than the ${r.tuning.watchdogMs} ms lockWatchdogTimeout, and kept the lock: the watchdog renewed it every ${Math.trunc(r.tuning.watchdogMs / 3)} ms. Then process ${r.crash?.pid ?? '?'} was killed while holding it; its renewals stopped with it and the lock expired${recovered == null ? '' : `, so the others continued ${recovered} ms later`}. Waiters are woken by the unlock message, or wait out the holder's TTL when none comes. The stall and that wait are in its ops/s and p99.`;
    },
  },
  {
    id: 'lua',
    title: '6. Lua check-and-decrement',
    buyer: 'lua',
    expected: 'correct',
    tuning: { workMs: WORK_MS, leaseMs: 0, pauseMs: 0, watchdogMs: 0 },
    injections: [],
    explain: () =>
      'One EVAL reads and decrements the stock atomically: nothing to hold, expire or crash, and the work runs outside it. When the critical section is a single key, a script beats any lock; a lock is for work that spans several keys or systems.',
  },
];
