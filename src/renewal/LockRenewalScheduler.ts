/**
 * The watchdog: one scheduler per client renews every lock taken without a lease time, every
 * `lockWatchdogTimeout / 3`, in batches of `lockWatchdogBatchSize` locks per script call (Redisson
 * 3.44+ `LockRenewalScheduler` / `LockTask`). It only ever renews fields this client owns.
 *
 * It never throws from its timer: a renewal error is reported and retried on the next tick; a field
 * found gone ends renewal of that owner and is reported as a lost lock.
 */

/** Runs one renewal batch: `keys[i]` is renewed when it still has field `fields[i]`; 1/0 per key. */
export type RenewBatch = (keys: string[], fields: string[]) => Promise<number[]>;

export interface LostLock {
  /** Raw name of the lock (the Redis key). */
  readonly rawName: string;
  /** The owner field that was found gone, `<clientUUID>:<threadId>`. */
  readonly field: string;
  readonly threadId: number;
}

interface Holder {
  count: number;
  readonly threadId: number;
  // Bumped by every add(): a renewal result that predates an acquisition must not cancel it.
  epoch: number;
}

interface Sent {
  readonly key: string;
  readonly field: string;
  readonly epoch: number;
  readonly count: number;
}

export class LockRenewalScheduler {
  // rawName → owner field → holds. Map order is insertion order: the first owner is the one renewed.
  private readonly locks = new Map<string, Map<string, Holder>>();
  private readonly lost = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private epoch = 0;

  constructor(
    private readonly renew: RenewBatch,
    private readonly periodMs: number,
    private readonly batchSize: number,
    private readonly onLost: (lock: LostLock) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Number of lock names being renewed now. */
  get size(): number {
    return this.locks.size;
  }

  /** True while the watchdog renews `field` on `rawName`. */
  renews(rawName: string, field: string): boolean {
    return this.locks.get(rawName)?.has(field) ?? false;
  }

  /** Registers one more watchdog hold of `field` on `rawName` and starts the timer if needed. */
  add(rawName: string, field: string, threadId: number): void {
    if (this.stopped) return;
    this.clearLost(rawName, field);
    let owners = this.locks.get(rawName);
    if (!owners) this.locks.set(rawName, (owners = new Map<string, Holder>()));
    const holder = owners.get(field);
    if (holder) {
      holder.count++;
      holder.epoch = ++this.epoch;
    } else owners.set(field, { count: 1, threadId, epoch: ++this.epoch });
    this.schedule();
  }

  /** Removes one hold (any unlock outcome, as Redisson). Returns true when `field` was registered. */
  remove(rawName: string, field: string): boolean {
    const owners = this.locks.get(rawName);
    const holder = owners?.get(field);
    if (!owners || !holder) return false;
    if (--holder.count <= 0) owners.delete(field);
    if (owners.size === 0) this.locks.delete(rawName);
    return true;
  }

  /** Stops renewing every owner of `rawName` (forceUnlock) and forgets their lost flags. */
  removeAll(rawName: string): void {
    this.locks.delete(rawName);
    const prefix = lostKey(rawName, '');
    for (const key of this.lost) if (key.startsWith(prefix)) this.lost.delete(key);
  }

  /** Forgets a lost flag: the owner acquired the lock again (with or without a lease). */
  clearLost(rawName: string, field: string): void {
    if (this.lost.size > 0) this.lost.delete(lostKey(rawName, field));
  }

  /**
   * Records that `field` of `rawName` is gone: it is no longer renewed, and a later {@link takeLoss}
   * answers `'reported'`. Returns null when it was not registered (nothing to report).
   */
  markLost(rawName: string, field: string): LostLock | null {
    const lost = this.forget(rawName, field);
    if (lost) this.lost.add(lostKey(rawName, field));
    return lost;
  }

  /**
   * An unlock found `field` gone. `'reported'`: the watchdog had already reported the loss; a
   * {@link LostLock}: it was still being renewed, so this is the loss (not yet reported); null: it was
   * never a watchdog hold. The owner is forgotten either way.
   */
  takeLoss(rawName: string, field: string): LostLock | 'reported' | null {
    if (this.lost.delete(lostKey(rawName, field))) return 'reported';
    return this.forget(rawName, field);
  }

  private forget(rawName: string, field: string): LostLock | null {
    const owners = this.locks.get(rawName);
    const holder = owners?.get(field);
    if (!owners || !holder) return null;
    owners.delete(field);
    if (owners.size === 0) this.locks.delete(rawName);
    return { rawName, field, threadId: holder.threadId };
  }

  /** Stops the timer and forgets every lock. A batch in flight finishes (or fails) on its own. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.locks.clear();
    this.lost.clear();
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped || this.locks.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick()
        .catch((error: unknown) => this.report(this.onError, error))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.periodMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const names = [...this.locks.keys()];
    for (let i = 0; i < names.length && !this.stopped; i += this.batchSize) {
      const sent: Sent[] = [];
      for (const name of names.slice(i, i + this.batchSize)) {
        const first = this.locks.get(name)?.entries().next();
        if (!first || first.done) continue;
        const [field, holder] = first.value;
        sent.push({ key: name, field, epoch: holder.epoch, count: holder.count });
      }
      if (sent.length === 0) continue;
      let results: number[];
      try {
        results = await this.renew(
          sent.map((s) => s.key),
          sent.map((s) => s.field),
        );
      } catch (error) {
        this.report(this.onError, error);
        continue;
      }
      results.forEach((renewed, j) => {
        const s = sent[j];
        if (renewed === 0 && s) this.settleGone(s);
      });
    }
  }

  /** The field was gone when the batch ran: those holds are lost; holds taken since then are kept. */
  private settleGone(s: Sent): void {
    const holder = this.locks.get(s.key)?.get(s.field);
    if (!holder) return;
    if (holder.epoch === s.epoch) {
      const lost = this.markLost(s.key, s.field);
      if (lost) this.report(this.onLost, lost);
      return;
    }
    // Re-acquired after the batch was sent: report the old hold lost, keep renewing the new one.
    holder.count = Math.max(1, holder.count - s.count);
    this.report(this.onLost, { rawName: s.key, field: s.field, threadId: holder.threadId });
  }

  /** Calls a listener; a listener that throws must not stop the watchdog or crash the process. */
  private report<T>(listener: (value: T) => void, value: T): void {
    try {
      listener(value);
    } catch (error) {
      process.emitWarning(`redisson-ts: a watchdog listener threw: ${String(error)}`);
    }
  }
}

function lostKey(rawName: string, field: string): string {
  return `${rawName}\u0000${field}`;
}
