/**
 * The watchdog: one scheduler per client renews every lock taken without a lease time, every
 * `lockWatchdogTimeout / 3`, in batches of `lockWatchdogBatchSize` locks per script call (Redisson
 * 3.44+ `LockRenewalScheduler` / `LockTask`). It only ever renews fields this client owns.
 *
 * It never throws from its timer: a renewal error is reported and retried on the next tick; a field
 * found gone ends renewal of that owner and is reported as a lost lock.
 */
import type { LuaScriptId } from '../generated/lua.js';
import { traceRenewal } from '../diagnostics.js';
import { KeptMap } from '../kept.js';

/** One lock the watchdog renews: the hash `rawName` while it still has owner field `field`. */
export interface RenewalEntry {
  readonly rawName: string;
  readonly field: string;
  /**
   * Every owner field this client renews on `rawName` under the entry's kind, `field` first. A kind that
   * renews all of them at once (a read lock, as Redisson's `ReadLockTask`) uses it; the answer is still `field`'s.
   */
  readonly owners?: readonly string[];
}

/**
 * A shape of renewal (Redisson's `LockTask`, `ReadLockTask`, …): its own script over a batch of entries.
 * Kinds are compared by `id`; a lock name renewed under two kinds (a write hold and a read hold of one
 * RW lock) is two registrations, and releasing one never cancels the other.
 */
export interface RenewalKind {
  readonly id: string;
  /** Re-expires each entry to `leaseMs` when its field still exists: 1 renewed, 0 gone, per entry. */
  renew(run: ScriptRunner, leaseMs: number, entries: readonly RenewalEntry[]): Promise<number[]>;
}

/** Runs a script (the client's executor, narrowed to what a renewal kind needs). */
export type ScriptRunner = (id: LuaScriptId, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

/** The RLock family's renewal: `PEXPIRE` each hash that still has its owner field. */
export const lockRenewal: RenewalKind = Object.freeze({
  id: 'lock',
  async renew(run: ScriptRunner, leaseMs: number, entries: readonly RenewalEntry[]): Promise<number[]> {
    return (await run(
      'lock/renewExpiration',
      entries.map((e) => e.rawName),
      [leaseMs, ...entries.map((e) => e.field)],
    )) as number[];
  },
});

/** Runs one renewal batch of `kind`. */
export type RenewBatch = (kind: RenewalKind, entries: readonly RenewalEntry[]) => Promise<number[]>;

export interface LostLock {
  /** The renewal kind's id (`lock`, `readLock`, …). */
  readonly kind: string;
  /** Raw name of the lock (the Redis key). */
  readonly rawName: string;
  /** The owner field that was found gone, `<clientUUID>:<threadId>`. */
  readonly field: string;
  readonly threadId: number;
}

/**
 * One registration: an owner field's watchdog holds, from its first add() until its owner released them all
 * (or it was found lost). A batch result names the Holder object it was sent for, so a result about a
 * registration that has ended is never applied to the one that replaced it.
 */
interface Holder {
  count: number;
  readonly threadId: number;
  // Bumped by every add(): a renewal result that predates an acquisition must not cancel it.
  epoch: number;
  // Unlocks of this owner sent and not yet settled (remove/takeLoss): one of them may be what removed the field.
  releasing: number;
  // A "gone" that arrived while an unlock was in flight: decided once the unlocks have settled.
  goneMeanwhile: Sent | null;
}

interface Renewed {
  readonly kind: RenewalKind;
  readonly rawName: string;
  // owner field → holds. Map order is insertion order: the first owner is the one renewed.
  readonly owners: Map<string, Holder>;
}

interface Sent {
  readonly kindId: string;
  readonly rawName: string;
  readonly field: string;
  // The registration the entry was about, and its state when the batch was sent.
  readonly holder: Holder;
  readonly epoch: number;
  readonly count: number;
}

export class LockRenewalScheduler {
  // kind id → rawName → the owners renewed there. Two levels, not one composite key: every lock() and unlock()
  // looks its pair up, and a key string built per call would be flattened and hashed per call (issue 29).
  // A kind's level is kept once made (there are a few kinds), and kept maps do not reallocate their table each time
  // their last lock leaves; an owners map is not emptied when its last owner leaves — the pair is forgotten
  // instead (see KeptMap: a Map emptied by a delete allocates a new table, issue 29).
  private readonly locks = new Map<string, KeptMap<string, Renewed>>();
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
    /**
     * Which locks may share one script call: in a cluster, those of one hash slot (a script's keys must be
     * in one slot). Outside a cluster every lock of a kind may share one.
     */
    private readonly groupOf: (rawName: string) => number = () => 0,
  ) {}

  /** Number of (kind, lock name) pairs being renewed now. */
  get size(): number {
    let size = 0;
    for (const byName of this.locks.values()) size += byName.size;
    return size;
  }

  /** Owner `field` has no watchdog hold left on `renewed`: it leaves, and the pair is forgotten with its last owner. */
  private leave(renewed: Renewed, field: string): void {
    if (renewed.owners.size === 1 && renewed.owners.has(field)) this.drop(renewed);
    else renewed.owners.delete(field);
  }

  /** True while the watchdog renews `field` on `rawName` under `kind`. */
  renews(kind: RenewalKind, rawName: string, field: string): boolean {
    return this.renewed(kind.id, rawName)?.owners.has(field) ?? false;
  }

  private renewed(kindId: string, rawName: string): Renewed | undefined {
    return this.locks.get(kindId)?.get(rawName);
  }

  /** Forgets the pair `renewed` stands for (its last owner left). */
  private drop(renewed: Renewed): void {
    const byName = this.locks.get(renewed.kind.id);
    if (byName?.get(renewed.rawName) !== renewed) return;
    byName.delete(renewed.rawName);
  }

  /** Registers one more watchdog hold of `field` on `rawName` and starts the timer if needed. */
  add(kind: RenewalKind, rawName: string, field: string, threadId: number): void {
    if (this.stopped) return;
    this.clearLost(kind, rawName, field);
    let byName = this.locks.get(kind.id);
    if (!byName) this.locks.set(kind.id, (byName = new KeptMap<string, Renewed>()));
    let renewed = byName.get(rawName);
    if (!renewed) byName.set(rawName, (renewed = { kind, rawName, owners: new Map<string, Holder>() }));
    const holder = renewed.owners.get(field);
    if (holder) {
      holder.count++;
      holder.epoch = ++this.epoch;
    } else renewed.owners.set(field, { count: 1, threadId, epoch: ++this.epoch, releasing: 0, goneMeanwhile: null });
    this.schedule();
  }

  /**
   * An unlock of `field` is about to be sent. Until its outcome reaches {@link remove} or {@link takeLoss}, a
   * batch that finds the field gone may be seeing that very unlock, so its verdict waits for the outcome.
   */
  releasing(kind: RenewalKind, rawName: string, field: string): void {
    const holder = this.renewed(kind.id, rawName)?.owners.get(field);
    if (holder) holder.releasing++;
  }

  /** Removes one hold (any unlock outcome, as Redisson). Returns true when `field` was registered. */
  remove(kind: RenewalKind, rawName: string, field: string): boolean {
    const renewed = this.renewed(kind.id, rawName);
    const holder = renewed?.owners.get(field);
    if (!renewed || !holder) return false;
    holder.releasing = Math.max(0, holder.releasing - 1);
    if (--holder.count <= 0) this.leave(renewed, field);
    else if (holder.count > 0 && holder.releasing === 0 && holder.goneMeanwhile) {
      // The unlock left holds behind (the field was there when it ran): the batch that found it gone ran
      // after it, so the loss is real.
      const gone = holder.goneMeanwhile;
      holder.goneMeanwhile = null;
      this.settleGone(gone);
    }
    return true;
  }

  /** Stops renewing every owner of `rawName`, of every kind (forceUnlock), and forgets their lost flags. */
  removeAll(rawName: string): void {
    for (const byName of this.locks.values()) byName.delete(rawName);
    for (const key of this.lost) if (key.split('\u0000')[1] === rawName) this.lost.delete(key);
  }

  /** Forgets a lost flag: the owner acquired the lock again (with or without a lease). */
  clearLost(kind: RenewalKind, rawName: string, field: string): void {
    if (this.lost.size > 0) this.lost.delete(lostKey(kind.id, rawName, field));
  }

  /**
   * An unlock found `field` gone. `'reported'`: the watchdog had already reported the loss; a
   * {@link LostLock}: it was still being renewed, so this is the loss (not yet reported); null: it was
   * never a watchdog hold. The owner is forgotten either way.
   */
  takeLoss(kind: RenewalKind, rawName: string, field: string): LostLock | 'reported' | null {
    if (this.lost.delete(lostKey(kind.id, rawName, field))) return 'reported';
    return this.forget(kind.id, rawName, field);
  }

  /** Stops the timer and forgets every lock. A batch in flight finishes (or fails) on its own. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.locks.clear();
    this.lost.clear();
  }

  private forget(kindId: string, rawName: string, field: string): LostLock | null {
    const renewed = this.renewed(kindId, rawName);
    const holder = renewed?.owners.get(field);
    if (!renewed || !holder) return null;
    this.leave(renewed, field);
    return { kind: renewed.kind.id, rawName: renewed.rawName, field, threadId: holder.threadId };
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped || this.size === 0) return;
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
    // One batch holds locks of one kind (each kind has its own script) and, in a cluster, of one hash slot.
    const byKind = new Map<string, { kind: RenewalKind; names: string[] }>();
    for (const byName of this.locks.values()) {
      for (const renewed of byName.values()) {
        const group = `${renewed.kind.id}\u0000${this.groupOf(renewed.rawName)}`;
        const batch = byKind.get(group);
        if (batch) batch.names.push(renewed.rawName);
        else byKind.set(group, { kind: renewed.kind, names: [renewed.rawName] });
      }
    }
    for (const { kind, names } of byKind.values()) {
      for (let i = 0; i < names.length && !this.stopped; i += this.batchSize) {
        const sent: Sent[] = [];
        const entries: RenewalEntry[] = [];
        for (const rawName of names.slice(i, i + this.batchSize)) {
          const renewed = this.renewed(kind.id, rawName);
          const first = renewed?.owners.entries().next();
          if (!renewed || !first || first.done) continue;
          const [field, holder] = first.value;
          sent.push({ kindId: kind.id, rawName, field, holder, epoch: holder.epoch, count: holder.count });
          entries.push({ rawName: renewed.rawName, field, owners: [...renewed.owners.keys()] });
        }
        if (sent.length === 0) continue;
        let results: number[];
        try {
          results = await traceRenewal(kind.id, entries, () => this.renew(kind, entries));
        } catch (error) {
          this.report(this.onError, error);
          continue;
        }
        results.forEach((renewedOk, j) => {
          const s = sent[j];
          if (renewedOk === 0 && s) this.settleGone(s);
        });
      }
    }
  }

  /** The field was gone when the batch ran: those holds are lost; holds taken since then are kept. */
  private settleGone(s: Sent): void {
    const renewed = this.renewed(s.kindId, s.rawName);
    const holder = renewed?.owners.get(s.field);
    // The registration the batch was about has ended — its owner released it (and may hold the lock again
    // under a new registration, which the next tick checks): the field was gone because of that unlock.
    if (!renewed || holder !== s.holder) return;
    if (holder.releasing > 0) {
      // An unlock in flight may have removed the field: its outcome decides (nil: takeLoss reports the
      // loss; released: nothing was lost; holds left: remove() settles this then).
      holder.goneMeanwhile ??= s;
      return;
    }
    if (holder.epoch === s.epoch) {
      const lost = this.forget(s.kindId, s.rawName, s.field);
      if (lost) {
        this.lost.add(lostKey(lost.kind, lost.rawName, lost.field));
        this.report(this.onLost, lost);
      }
      return;
    }
    // Re-acquired after the batch was sent: report the old hold lost, keep renewing the new one.
    holder.count = Math.max(1, holder.count - s.count);
    this.report(this.onLost, { kind: renewed.kind.id, rawName: renewed.rawName, field: s.field, threadId: holder.threadId });
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

function lostKey(kind: string, rawName: string, field: string): string {
  return `${kind}\u0000${rawName}\u0000${field}`;
}
