/**
 * One subscriber connection per client, and one refcounted subscription per channel shared by every
 * local waiter on it (Redisson's `PublishSubscribe` + `RedissonLockEntry`).
 *
 * A waiter joins the channel's FIFO *before* it retries its acquire, so a release published between
 * that retry and the wait is banked on the waiter (`signaled`) instead of being lost.
 *
 * This class, not the driver, owns what is subscribed on the server. ioredis writes a SUBSCRIBE as soon as
 * the socket is open — before its own ready check, whose `INFO` the server then refuses in subscriber
 * mode — and replays subscriptions on reconnect in an order we cannot see. So: nothing is written before
 * the connection is `ready`; on every `ready` each channel that has waiters is subscribed again (and its
 * waiters woken once the server confirms it, since messages may have been missed); an UNSUBSCRIBE is
 * only written for a SUBSCRIBE already on the same socket, so it can never overtake it.
 *
 * Patterns (the RObject listeners' keyspace notifications) follow the same rules: one PSUBSCRIBE per pattern
 * shared by its listeners, written only when ready, written again on every `ready`, and a PUNSUBSCRIBE only
 * after a PSUBSCRIBE on the same socket.
 */
import pDefer, { type DeferredPromise } from 'p-defer';
import { IllegalStateError, RedisTimeoutError, RedissonShutdownError } from '../errors.js';
import type { ChannelWaiters, WakePolicy } from './wakePolicies.js';
import { createEmitter } from '../emitter.js';
import { isServerRefusal } from '../connection/classify.js';
import type { SubscriberConnection } from '../connection/driver.js';
import { AbortScope, onAbort, type AbortSource } from '../wait/AbortScope.js';

// setTimeout's ceiling; a longer wait is re-armed until its deadline (Subscription.expired).
const MAX_TIMER_MS = 2 ** 31 - 1;


/**
 * Across every client in this process: the channel entries (one per client) that have waiters, by the
 * channel's name on the server. One release wakes a waiter in each of them, and the event loop sends their
 * retries in the order it reads the messages, which favours the same clients every time; so a client
 * defers its first attempt, and a woken waiter its retry, by one turn of the loop while another client here
 * has a waiter that has waited longer ({@link PublishSubscribe.othersWaiting}, {@link Subscription.outranked}).
 */
const entriesWaiting = new Map<string, Set<ChannelEntry>>();
/**
 * Across every client in this process: the clients that reach the same single server, database and key prefix
 * (their `handoffScope`), whose subscriptions a release's `PUBLISH` counts together. A release hands its lock to
 * the longest waiter among them when the count is exactly theirs ({@link PublishSubscribe.reserveHandoff}).
 */
const sameServer = new Map<string, Set<PublishSubscribe>>();
/**
 * After {@link HANDOFF_REFUSALS} releases in a row whose count showed a subscriber that is not this process's
 * (another process, a Java client, a replica), no handoff is tried on that channel for this long (ms): while
 * another process waits on a lock every release is refused, and the reservation (its pins, the messages held until
 * the reply) is work for nothing. One refusal alone may be a SUBSCRIBE or UNSUBSCRIBE of this process in flight.
 */
export const HANDOFF_BACKOFF_MS = 1_000;
/** Refusals in a row on a channel that start a {@link HANDOFF_BACKOFF_MS} pause of its handoffs. */
export const HANDOFF_REFUSALS = 3;
// Waiters' order of arrival on a channel, across the process's clients.
let nextTicket = 0;

function expire(w: Subscription): void {
  w.expired();
}

/** A pattern's listeners (RObject listeners on keyspace notifications), by id. */
interface PatternEntry {
  readonly listeners: Map<number, (channel: string, message: string) => void>;
  /** Settles when the server first confirms the pattern. */
  readonly ready: DeferredPromise<void>;
  confirmed: boolean;
}

/** A message of a subscribed pattern. */
interface PatternMessage {
  readonly channel: string;
  readonly message: string;
}

/** How a {@link Subscription.wait} ended. */
export type WaitOutcome = 'woken' | 'timeout';

/** Who a parked wait reports to ({@link Subscription.park}). */
export interface WaitListener {
  woke(outcome: WaitOutcome): void;
  failed(reason: Error): void;
  /**
   * A release is about to try handing the lock straight to this parked waiter (direct handoff, issue 29): the
   * terms of the grant, and the waiter is then *reserved* until {@link handedOff}; `null` when it cannot take
   * one (not a lock that grants this way, an unsettled earlier attempt, already reserved).
   */
  reserve?(): HandoffTerms | null;
  /**
   * The outcome of a reservation: `'granted'` (the script wrote this waiter's hold), `'refused'` (it did not),
   * `'unknown'` (no reply, or the grant cannot be trusted to have passed nobody: its hold, if it landed, must
   * be checked and undone before the waiter acts again).
   */
  handedOff?(outcome: HandoffOutcome): void;
}

/** What a handed-off grant writes for its waiter: what the waiter's own acquire would have written. */
export interface HandoffTerms {
  /** The waiter's hash field, `<clientUUID>:<threadId>`. */
  readonly field: string;
  /** The lease (ms) its own attempt would send. */
  readonly leaseMs: number;
  /** `performance.now()` before the grant could be written: its lease runs from no earlier than this. */
  readonly since: number;
}

/** How a handoff attempt ended for its candidate (see {@link WaitListener.handedOff}). */
export type HandoffOutcome = 'granted' | 'refused' | 'unknown';

/** One subscription a {@link HandoffReservation} counted and keeps subscribed until it settles. */
interface Pin {
  readonly pubsub: PublishSubscribe;
  readonly entry: ChannelEntry;
  /** Its subscriber connection's epoch when pinned: a change means the subscription may have lapsed. */
  readonly epoch: number;
  /** The entry's messages received when pinned. */
  readonly received: number;
  /** Whether this pin holds the entry's next message until it settles (no other reservation did already). */
  readonly holds: boolean;
}

/**
 * A release in flight that may hand its lock to the longest waiter on the channel among this process's clients
 * that share the server ({@link PublishSubscribe.reserveHandoff}). While it exists every subscription it counted
 * (its {@link receivers}) has one more reference, so no UNSUBSCRIBE of it is written and the count the script
 * compares stays true; {@link settle} must be called exactly once.
 */
export class HandoffReservation {
  #settled = false;

  constructor(
    private readonly wire: string,
    private readonly pins: readonly Pin[],
    /** The client whose waiter is the candidate: its shutdown waits for this reservation to settle. */
    private readonly candidatePubsub: PublishSubscribe,
    private readonly candidate: WaitListener,
    readonly terms: HandoffTerms,
    /** The release message the script publishes. */
    private readonly message: string,
  ) {}

  /** How many subscriptions of this process to the channel the server confirmed and that stay until the reply. */
  get receivers(): number {
    return this.pins.length;
  }

  /**
   * The script's outcome: tells the candidate, then lets the channel go where nobody waits on it any more.
   * `outnumbered`: the lock was released but not granted — the publish reached a subscriber that is not ours, or
   * the master has a replica — so no handoff is tried on the channel for {@link HANDOFF_BACKOFF_MS}.
   */
  settle(outcome: HandoffOutcome, outnumbered = false): void {
    if (this.#settled) return;
    this.#settled = true;
    if (outnumbered) {
      const now = performance.now();
      for (const { entry } of this.pins) if (++entry.refusals >= HANDOFF_REFUSALS) entry.outnumberedAt = now;
    } else if (outcome === 'granted') {
      for (const { entry } of this.pins) entry.refusals = 0;
    }
    // A subscriber socket closed meanwhile: its subscription may have been gone when the script counted
    // receivers, so a grant may have passed someone. Treated as unknown: undone if it landed.
    let trusted = outcome;
    if (outcome === 'granted') for (const pin of this.pins) if (!pin.pubsub.sameEpoch(pin.epoch)) trusted = 'unknown';
    // Granted, on each socket where no message came meanwhile the next message is the script's own release (a
    // socket delivers in order; the script counted this subscription). It announces a lock that is already
    // taken: it wakes nobody (else a waiter there would retry for nothing).
    // A message held meanwhile (see ChannelEntry.receive) is that release when granted: it wakes nobody either.
    // The held messages to deliver stay in `held` (of the entries this reservation holds) until the candidate
    // knows the outcome; the others are cleared now.
    let delivering = false;
    for (const pin of this.pins) {
      const { entry } = pin;
      const held = pin.holds ? entry.held : null;
      if (pin.holds) entry.holding = false;
      if (held !== null) {
        if (trusted !== 'granted' || held !== this.message) delivering = true;
        else entry.held = null;
      } else if (trusted === 'granted' && entry.received === pin.received) {
        entry.absorbing = this.message;
      }
    }
    this.candidate.handedOff?.(trusted);
    // Not granted: the held messages wake as they would have, once the candidate is no longer reserved.
    if (delivering) {
      for (const { entry, holds } of this.pins) {
        const held = holds ? entry.held : null;
        if (held === null) continue;
        entry.held = null;
        entry.policy.onMessage(held, entry);
      }
    }
    for (const pin of this.pins) pin.pubsub.unref(this.wire, pin.entry, true);
    this.candidatePubsub.grantSettled();
  }
}

class ChannelEntry implements ChannelWaiters {
  refs = 0;
  readonly waiters: Subscription[] = [];
  /** Settles when the server first confirms the subscription. */
  readonly ready: DeferredPromise<void> = pDefer<void>();
  confirmed = false;
  /** Set while the entry has no waiters and lingers before its UNSUBSCRIBE. */
  linger: NodeJS.Timeout | null = null;
  /** Messages received on the current socket (see {@link HandoffReservation}). */
  received = 0;
  /** A message to drop when it is the next one: a handed-off release's own (see {@link HandoffReservation.settle}). */
  absorbing: string | null = null;
  /**
   * While a release that may hand off is in flight (a {@link HandoffReservation} pins this entry), the first
   * message is held, not acted on, until its reply: a granted release's own message must wake nobody, and it may
   * arrive before the reply (the script publishes before it answers).
   */
  holding = false;
  /** The message held while {@link holding}. */
  held: string | null = null;
  /** Releases in a row that could have handed off and found a subscriber not ours (see {@link HANDOFF_REFUSALS}). */
  refusals = 0;
  /** When (`performance.now()`) the last of {@link HANDOFF_REFUSALS} refusals in a row came (see {@link HANDOFF_BACKOFF_MS}). */
  outnumberedAt = Number.NEGATIVE_INFINITY;

  constructor(readonly policy: WakePolicy) {
    // Holders may have left before it settles (abort, timeout): a rejection nobody awaits is not an error.
    this.ready.promise.catch(() => undefined);
  }

  /** A message of the channel: wakes waiters by the policy, unless it is the one to absorb. */
  receive(message: string): void {
    this.received++;
    const absorbing = this.absorbing;
    this.absorbing = null;
    if (absorbing === message) return;
    if (this.holding && this.held === null) {
      this.held = message;
      return;
    }
    this.policy.onMessage(message, this);
  }

  wakeOne(): void {
    const next = this.waiters.find((w) => !w.signaled);
    if (next) signal(next);
  }

  wakeAll(): void {
    for (const w of this.waiters) signal(w);
  }

  wakeN(n: number): void {
    let left = n;
    for (const w of this.waiters) {
      if (left <= 0) return;
      if (w.signaled) continue;
      signal(w);
      left--;
    }
  }
}

function signal(w: Subscription): void {
  w.wake();
}

/**
 * One local waiter's hold on a channel, and its parked wait if any. Call {@link release} exactly once, whatever
 * happens. A parked waiter is most of what a waiting client keeps (issue 29: 10 000 waiters), so the wait is
 * this object's own state — whom to report to, a timer that calls back with it, itself as the scope's abort
 * listener — rather than closures and a deferred per wait.
 */
export class Subscription {
  /** A wake-up banked for this waiter (a message came while it was not parked). */
  signaled = false;
  #released = false;
  #listener: WaitListener | null = null;
  #timer: NodeJS.Timeout | undefined = undefined;
  // When the parked wait's time runs out (performance.now()): a timer that fires before it is re-armed.
  #deadline = 0;
  #scope: AbortScope | undefined = undefined;
  #offSignal: (() => void) | undefined = undefined;

  /** @param ticket when it joined, in the process-wide order of arrival. */
  constructor(
    private readonly pubsub: PublishSubscribe,
    private readonly wire: string,
    private readonly entry: ChannelEntry,
    readonly ticket: number,
  ) {}

  /** @internal the client this waiter waits in. */
  get owner(): PublishSubscribe {
    return this.pubsub;
  }

  /**
   * Resolves `'woken'` when a message wakes this waiter (or one was banked for it), `'timeout'` after `ms`
   * (`-1`: no timeout). Rejects with the abort reason on abort. Leaves no timer or listener behind.
   */
  wait(ms: number, abort?: AbortSource): Promise<WaitOutcome> {
    if (abort?.aborted) return Promise.reject(abort.reason as Error);
    if (this.signaled) {
      this.signaled = false;
      return Promise.resolve('woken');
    }
    return new Promise<WaitOutcome>((resolve, reject) => this.#park(ms, abort, { woke: resolve, failed: reject }));
  }

  /**
   * As {@link wait}, but reports to `listener` (synchronously, from the message, the timer or the abort; at once
   * when already aborted or woken) instead of settling a promise: a waiter that parks this way keeps no promise
   * and no suspended async frame while it waits (the acquire loop, issue 29).
   */
  park(ms: number, abort: AbortSource | undefined, listener: WaitListener): void {
    if (abort?.aborted) {
      listener.failed(abort.reason as Error);
      return;
    }
    if (this.signaled) {
      this.signaled = false;
      listener.woke('woken');
      return;
    }
    this.#park(ms, abort, listener);
  }

  #park(ms: number, abort: AbortSource | undefined, listener: WaitListener): void {
    this.#listener = listener;
    if (ms >= 0) {
      this.#deadline = performance.now() + ms;
      this.#timer = setTimeout(expire, Math.min(ms, MAX_TIMER_MS), this);
    }
    if (abort instanceof AbortScope) {
      this.#scope = abort;
      abort.add(this);
    } else if (abort) {
      this.#offSignal = onAbort(abort, (reason) => this.aborted(reason));
    }
  }

  /** @internal reserves this waiter for a handoff when it is parked by a listener that takes one. */
  reserve(): { readonly listener: WaitListener; readonly terms: HandoffTerms } | null {
    const listener = this.#listener;
    if (!listener?.reserve || this.signaled) return null;
    const terms = listener.reserve();
    return terms ? { listener, terms } : null;
  }

  /** Ends the parked wait of `listener` without telling it (it decided to go on by itself); false when not parked by it. */
  unparkFor(listener: WaitListener): boolean {
    if (this.#listener !== listener) return false;
    this.#unpark();
    return true;
  }

  /** @internal a message (or a passed-on wake-up) for this waiter: ends its parked wait, else it is banked. */
  wake(): void {
    this.signaled = true;
    const listener = this.#listener;
    if (!listener) return;
    this.signaled = false;
    this.#unpark();
    listener.woke('woken');
  }

  /**
   * @internal the parked wait's timer fired. Node's timers count from the event loop's cached clock and can
   * fire up to a millisecond before `ms` has passed by `performance.now()`, the clock the caller measures its
   * wait with; a wait reported over early would leave the caller with time for one more attempt it never
   * asked for (a retry after the wait, which a paused server then holds past the command timeout). The rest
   * is waited for first; a wait longer than setTimeout's ceiling is re-armed the same way.
   */
  expired(): void {
    const early = this.#deadline - performance.now();
    if (early > 0) {
      this.#timer = setTimeout(expire, Math.min(Math.ceil(early), MAX_TIMER_MS), this);
      return;
    }
    const listener = this.#listener;
    this.#timer = undefined;
    this.#unpark();
    listener?.woke('timeout');
  }

  /** @internal the parked wait's scope or signal aborted. */
  aborted(reason: Error): void {
    const listener = this.#listener;
    this.#scope = undefined;
    this.#unpark();
    listener?.failed(reason);
  }

  #unpark(): void {
    this.#listener = null;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#scope?.remove(this);
    this.#scope = undefined;
    this.#offSignal?.();
    this.#offSignal = undefined;
  }

  /**
   * Whether another client in this process has a waiter on this channel that joined before this one. The
   * same release wakes that one too; its retry should go first.
   */
  outranked(): boolean {
    for (const other of entriesWaiting.get(this.wire) ?? []) {
      if (other !== this.entry && (other.waiters[0]?.ticket ?? Infinity) < this.ticket) return true;
    }
    return false;
  }

  /**
   * Hands a wake-up this waiter took but could not use to the next waiter queued behind it that is not
   * already woken (a semaphore waiter asking for more permits than a release freed). Only ever backwards
   * in the queue, so one message's wake-up visits each waiter at most once.
   */
  passOn(): void {
    const i = this.entry.waiters.indexOf(this);
    if (i < 0) return;
    const next = this.entry.waiters.slice(i + 1).find((w) => !w.signaled);
    if (next) signal(next);
  }

  /**
   * Leaves the channel. A wake-up banked but not used is handed to the next waiter, and so is one this
   * waiter consumed without acting on it (`handOn`: it gave up or was aborted before retrying).
   * `linger`: the waiter got what it waited for, so the channel, if this was its last waiter, stays
   * subscribed for the client's `subscriptionLinger` in case the next waiter comes soon.
   */
  release(handOn = false, linger = false): void {
    if (this.#released) return;
    this.#released = true;
    const i = this.entry.waiters.indexOf(this);
    if (i >= 0) this.entry.waiters.splice(i, 1);
    if (handOn || this.signaled) this.entry.wakeOne();
    this.pubsub.unref(this.wire, this.entry, linger);
  }
}

/** Subscriber-side machinery of one client. */
export class PublishSubscribe {
  private readonly entries = new Map<string, ChannelEntry>();
  // Per-channel wake-ups: each channel's entry listens for its own messages.
  private readonly messages = createEmitter<Record<string, string>>();
  // Channels whose SUBSCRIBE was written on the current socket (and not unsubscribed since).
  private readonly onServer = new Set<string>();
  // Channels whose SUBSCRIBE the server confirmed on the current socket (and not unsubscribed since).
  private readonly confirmedHere = new Set<string>();
  // Pattern subscriptions (keyspace notifications: RObject listeners), by pattern; never prefixed.
  private readonly patterns = new Map<string, PatternEntry>();
  private readonly patternMessages = createEmitter<Record<string, PatternMessage>>();
  // Patterns whose PSUBSCRIBE was written on the current socket (and not punsubscribed since).
  private readonly patternsOnServer = new Set<string>();
  private nextListenerId = 1;
  // Bumped on every close and ready: a reply from an older socket is ignored.
  private epoch = 0;
  // Releases in flight that reserved one of this client's waiters (see grantsSettled).
  #grantsInFlight = 0;
  #grantsDrained: DeferredPromise<void> | null = null;
  private live = false;
  private closed = false;

  /**
   * @param subscriber a connection used only for (un)subscribing (classic or sharded, as the deployment needs);
   *   owned by this object, which re-subscribes itself, in order (the driver neither queues nor replays).
   * @param keyPrefix the ioredis `keyPrefix` of the command connection: a channel passed in KEYS gets it,
   *   a SUBSCRIBE does not, so it is added here.
   * @param closeTimeoutMs how long `close()` waits for a clean QUIT (the client's `timeout`).
   */
  constructor(
    private readonly subscriber: SubscriberConnection,
    private readonly keyPrefix: string,
    private readonly closeTimeoutMs = 3_000,
    /**
     * How long (ms) a channel whose last waiter left with what it waited for stays subscribed, for the next
     * waiter to join at once ({@link join}); `0` unsubscribes at once. Waiters that gave up, were aborted
     * or failed always unsubscribe at once.
     */
    private readonly lingerMs = 0,
    /**
     * What this client shares with other clients of the process whose subscriptions a release's PUBLISH counts
     * with its own — the single server, database and key prefix — or `null` (a cluster, a Sentinel, or direct
     * handoff off): a release then hands off only to this client's own waiters ({@link reserveHandoff}).
     */
    private readonly handoffScope: string | null = null,
  ) {
    if (handoffScope !== null) {
      let peers = sameServer.get(handoffScope);
      if (!peers) sameServer.set(handoffScope, (peers = new Set()));
      peers.add(this);
    }
    subscriber.onMessage((channel, message) => this.messages.emit(channel, message));
    subscriber.onPatternMessage((pattern, channel, message) => this.patternMessages.emit(pattern, { channel, message }));

    subscriber.on('ready', () => {
      this.epoch++;
      this.live = true;
      this.onServer.clear();
      this.confirmedHere.clear();
      this.patternsOnServer.clear();
      this.reconcile();
    });
    subscriber.on('close', () => {
      this.epoch++;
      this.live = false;
      this.onServer.clear();
      this.confirmedHere.clear();
      this.patternsOnServer.clear();
      // A lingering channel has nobody to re-subscribe for. A message to absorb will not come on a new socket.
      for (const [wire, entry] of this.entries) {
        entry.absorbing = null;
        if (entry.linger) this.drop(wire, entry);
      }
    });
  }

  // When waiters woken after a re-subscription may retry (a cluster: once its masters answer); at once by default.
  private wakeGate: (wake: () => void) => void = (wake) => wake();

  /**
   * Sets when waiters woken after a re-subscription (a release may have been missed) may retry: a cluster
   * client holds them until the slot map's masters answer, so no retry goes to a node that died.
   */
  setWakeGate(gate: (wake: () => void) => void): void {
    this.wakeGate = gate;
  }

  /**
   * Wakes every waiter once (each retries, then waits again): for a subscription that may have missed a
   * message — a cluster's sharded subscriptions moved with their slot after a failover or migration.
   */
  wakeAll(): void {
    if (this.closed) return;
    for (const entry of this.entries.values()) if (entry.confirmed) entry.wakeAll();
  }

  /** Number of channels this client is subscribed to (or subscribing to, or lingering on) now. */
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
   * Whether another client in this process has waiters on `channel`: a release of its lock wakes them, and
   * their retries come a message later than an attempt this client makes at once.
   */
  othersWaiting(channel: string): boolean {
    const wire = this.keyPrefix + channel;
    const mine = this.entries.get(wire);
    for (const entry of entriesWaiting.get(wire) ?? []) if (entry !== mine) return true;
    return false;
  }

  /**
   * Reserves the longest parked waiter on `channel` among this client and the other clients of this process that
   * share its server ({@link handoffScope}; this client alone without one), for a release that may hand it the
   * lock (direct handoff, issue 29); `null` when there is none that takes grants (then nothing changes). Every
   * subscription of those clients to the channel that the server confirmed on the current socket is counted and
   * kept subscribed until the reservation settles: the script grants only when its PUBLISH reached exactly those.
   */
  reserveHandoff(channel: string, message: string): HandoffReservation | null {
    if (this.closed) return null;
    const wire = this.keyPrefix + channel;
    // Nobody in this process waits on the channel (the uncontended unlock): no candidate.
    const waiting = entriesWaiting.get(wire);
    if (waiting === undefined) return null;
    const scope = this.handoffScope;
    // Without a scope another client of this process that waits makes the count larger: no grant can happen.
    if (scope === null && waiting.size > 1) return null;
    let first: Subscription | undefined;
    let counted = 0;
    let now = 0;
    for (const peer of scope === null ? [this] : (sameServer.get(scope) ?? [])) {
      const entry = peer.#counted(wire);
      if (entry === undefined) continue;
      if (entry.outnumberedAt > 0) {
        if ((now ||= performance.now()) - entry.outnumberedAt < HANDOFF_BACKOFF_MS) return null;
        // The pause is over: one more refusal starts the next.
        entry.outnumberedAt = Number.NEGATIVE_INFINITY;
        entry.refusals = HANDOFF_REFUSALS - 1;
      }
      counted++;
      const longest = entry.waiters[0];
      if (longest !== undefined && (first === undefined || longest.ticket < first.ticket)) first = longest;
    }
    if (counted === 0 || first === undefined) return null;
    const reserved = first.reserve();
    if (!reserved) return null;
    // The same walk again (no array kept by the first one: most releases reserve nothing).
    const pins: Pin[] = [];
    for (const peer of scope === null ? [this] : (sameServer.get(scope) ?? [])) {
      const entry = peer.#counted(wire);
      if (entry === undefined) continue;
      peer.#ref(wire, entry);
      const holds = !entry.holding;
      entry.holding = true;
      pins.push({ pubsub: peer, entry, epoch: peer.epoch, received: entry.received, holds });
    }
    const owner = first.owner;
    owner.#grantsInFlight++;
    return new HandoffReservation(wire, pins, owner, reserved.listener, reserved.terms, message);
  }

  /** @internal a reservation of one of this client's waiters settled ({@link HandoffReservation.settle}). */
  grantSettled(): void {
    if (--this.#grantsInFlight > 0 || this.#grantsDrained === null) return;
    this.#grantsDrained.resolve();
    this.#grantsDrained = null;
  }

  /**
   * Settles once no release (of this client or of another client of the process) has one of this client's
   * waiters reserved: `shutdown()` waits for it after aborting its waiters, so that a grant landing for a waiter it
   * aborted is undone by this client's own connection before it closes.
   */
  grantsSettled(): Promise<void> {
    if (this.#grantsInFlight === 0) return Promise.resolve();
    this.#grantsDrained ??= pDefer<void>();
    return this.#grantsDrained.promise;
  }

  /** This client's entry of `wire` when the server confirmed its subscription on the current socket. */
  #counted(wire: string): ChannelEntry | undefined {
    if (this.closed || !this.live || !this.confirmedHere.has(wire)) return undefined;
    return this.entries.get(wire);
  }

  /** @internal whether the subscriber connection is still the socket of `epoch` (no close, no reconnect since). */
  sameEpoch(epoch: number): boolean {
    return this.live && this.epoch === epoch;
  }

  /**
   * Joins `channel` at once when this client's subscription to it is already confirmed (other local
   * waiters, or lingering), else `null` (then {@link subscribe}). A waiter that joins *before* its first
   * attempt needs no second attempt after subscribing: a release published after that attempt ran reaches
   * this client's subscriber and wakes a local waiter, or, if the subscriber connection dropped meanwhile,
   * every waiter is woken once the channel is subscribed again.
   */
  join(channel: string, policy: WakePolicy): Subscription | null {
    if (this.closed) return null;
    const wire = this.keyPrefix + channel;
    const entry = this.entries.get(wire);
    if (!entry?.confirmed || entry.policy !== policy) return null;
    return this.#enter(wire, entry);
  }

  /**
   * Joins `channel` (unprefixed name, as passed in KEYS), subscribing on first use; its messages wake waiters
   * by `policy`. Rejects with `RedisTimeoutError` after `timeoutMs`, or with the signal's reason on abort
   * (the hold is then undone), or with `IllegalStateError` when the channel is in use with another policy.
   */
  async subscribe(channel: string, policy: WakePolicy, timeoutMs: number, abort?: AbortSource): Promise<Subscription> {
    if (this.closed) throw new RedissonShutdownError();
    const wire = this.keyPrefix + channel;
    let entry = this.entries.get(wire);
    // Nobody waits on a lingering channel: another primitive's waiter takes it over, as before the linger.
    if (entry && entry.policy !== policy && entry.refs === 0) {
      this.drop(wire, entry);
      entry = undefined;
    }
    if (entry && entry.policy !== policy) {
      throw new IllegalStateError(`channel ${wire} is already waited on with the '${entry.policy.name}' wake policy, not '${policy.name}': two primitive types share one name`);
    }
    // A cluster that probes whether it shards (AUTO) answers once, before its first subscription.
    const pending = entry ? null : this.subscriber.prepare();
    if (pending !== null) {
      await withTimeout(pending, timeoutMs, abort, 'Sharded pub/sub probe');
      return this.subscribe(channel, policy, timeoutMs, abort);
    }
    if (!entry) {
      entry = new ChannelEntry(policy);
      const created = entry;
      this.messages.on(wire, (message) => created.receive(message));
      this.entries.set(wire, entry);
      if (this.subscriber.status === 'wait') this.subscriber.connect().catch(() => undefined);
      this.reconcile();
    }
    const sub = this.#enter(wire, entry);
    try {
      await withTimeout(entry.ready.promise, timeoutMs, abort, `Subscription to ${wire}`);
    } catch (error) {
      sub.release();
      throw error;
    }
    return sub;
  }

  /** Adds a waiter to `entry` (ending its linger). */
  #enter(wire: string, entry: ChannelEntry): Subscription {
    this.#ref(wire, entry);
    const sub = new Subscription(this, wire, entry, nextTicket++);
    entry.waiters.push(sub);
    return sub;
  }

  /** One more reference on `entry` (ending its linger): a waiter, or a handoff's pin; {@link unref} ends it. */
  #ref(wire: string, entry: ChannelEntry): void {
    if (entry.linger) {
      clearTimeout(entry.linger);
      entry.linger = null;
    }
    if (entry.refs++ === 0) {
      let entries = entriesWaiting.get(wire);
      if (!entries) entriesWaiting.set(wire, (entries = new Set()));
      entries.add(entry);
    }
  }

  /**
   * Closes the subscriber connection, waiting at most `timeoutMs` for a clean QUIT; waiters must have been
   * rejected by the caller first.
   */
  async close(timeoutMs = this.closeTimeoutMs): Promise<void> {
    this.closed = true;
    if (this.handoffScope !== null) {
      const peers = sameServer.get(this.handoffScope);
      peers?.delete(this);
      if (peers?.size === 0) sameServer.delete(this.handoffScope);
    }
    for (const entry of this.entries.values()) {
      if (entry.linger) clearTimeout(entry.linger);
      entry.ready.reject(new RedissonShutdownError());
    }
    this.entries.clear();
    this.messages.all.clear();
    this.onServer.clear();
    this.confirmedHere.clear();
    for (const entry of this.patterns.values()) entry.ready.reject(new RedissonShutdownError());
    this.patterns.clear();
    this.patternMessages.all.clear();
    this.patternsOnServer.clear();
    await this.subscriber.close(timeoutMs);
  }

  /** Number of patterns this client is subscribed to (or subscribing to) now: one per listened-to event kind. */
  get patternCount(): number {
    return this.patterns.size;
  }

  /**
   * Calls `listener` for every message of a channel matching `pattern` (PSUBSCRIBE, never prefixed: keyspace
   * notifications), subscribing the pattern on its first listener; resolves with the listener's id once the
   * server confirmed the pattern, or rejects with `RedisTimeoutError` after `timeoutMs` (the listener is then
   * removed). Redisson's `RedissonPatternTopic.addListener`. The pattern is subscribed again on every reconnect.
   */
  async addPatternListener(pattern: string, listener: (channel: string, message: string) => void, timeoutMs: number): Promise<number> {
    if (this.closed) throw new RedissonShutdownError();
    const id = this.nextListenerId++;
    let entry = this.patterns.get(pattern);
    if (!entry) {
      entry = { listeners: new Map(), ready: pDefer<void>(), confirmed: false };
      entry.ready.promise.catch(() => undefined);
      const created = entry;
      this.patternMessages.on(pattern, ({ channel, message }) => {
        for (const l of [...created.listeners.values()]) l(channel, message);
      });
      this.patterns.set(pattern, entry);
      if (this.subscriber.status === 'wait') this.subscriber.connect().catch(() => undefined);
      this.reconcile();
    }
    entry.listeners.set(id, listener);
    try {
      await withTimeout(entry.ready.promise, timeoutMs, undefined, `Pattern subscription to ${pattern}`);
    } catch (error) {
      await this.removePatternListener(pattern, id);
      throw error;
    }
    return id;
  }

  /**
   * Removes listener `id` of `pattern` (nothing when it has none); the last one's removal PUNSUBSCRIBEs the
   * pattern, and resolves once the server confirmed it (a socket that closed meanwhile dropped it anyway).
   */
  async removePatternListener(pattern: string, id: number): Promise<void> {
    const entry = this.patterns.get(pattern);
    if (!entry?.listeners.delete(id) || entry.listeners.size > 0) return;
    this.patterns.delete(pattern);
    this.patternMessages.all.delete(pattern);
    entry.ready.reject(new RedissonShutdownError('subscription released'));
    if (this.live && !this.closed && this.patternsOnServer.delete(pattern)) {
      await this.subscriber.punsubscribe(pattern).catch(() => undefined);
    }
  }

  /**
   * Writes a PSUBSCRIBE for every pattern with listeners and a SUBSCRIBE for every channel with waiters that the
   * current socket lacks. Only when ready.
   */
  private reconcile(): void {
    if (!this.live || this.closed) return;
    for (const [pattern, entry] of this.patterns) {
      if (this.patternsOnServer.has(pattern)) continue;
      this.patternsOnServer.add(pattern);
      const epoch = this.epoch;
      this.subscriber.psubscribe(pattern).then(
        () => {
          if (epoch !== this.epoch || this.patterns.get(pattern) !== entry) return;
          entry.confirmed = true;
          entry.ready.resolve();
        },
        (error: unknown) => {
          if (epoch !== this.epoch || this.patterns.get(pattern) !== entry) return;
          this.patternsOnServer.delete(pattern);
          if (!isServerRefusal(error)) return;
          if (!entry.confirmed) {
            this.patterns.delete(pattern);
            this.patternMessages.all.delete(pattern);
            entry.ready.reject(error);
          }
        },
      );
    }
    for (const [wire, entry] of this.entries) {
      if (this.onServer.has(wire)) continue;
      this.onServer.add(wire);
      const epoch = this.epoch;
      this.subscriber.subscribe(wire).then(
        () => {
          if (epoch !== this.epoch || this.entries.get(wire) !== entry) return;
          const again = entry.confirmed;
          entry.confirmed = true;
          this.confirmedHere.add(wire);
          entry.ready.resolve();
          // Re-subscribed after a reconnect: a release may have been published meanwhile.
          if (again) this.wakeGate(() => entry.wakeAll());
        },
        (error: unknown) => {
          if (epoch !== this.epoch || this.entries.get(wire) !== entry) return;
          this.onServer.delete(wire);
          this.confirmedHere.delete(wire);
          // The socket went away under it (not writable, closed): the next `ready` subscribes again.
          if (!isServerRefusal(error)) return;
          // Refused by the server (ACL, …): fail its waiters rather than let them wait out their timeout.
          if (!entry.confirmed) {
            this.entries.delete(wire);
            this.messages.all.delete(wire);
            entry.ready.reject(error);
          }
        },
      );
    }
  }

  /** @internal a waiter of `entry` left ({@link Subscription.release}). */
  unref(wire: string, entry: ChannelEntry, linger: boolean): void {
    if (--entry.refs === 0) {
      const entries = entriesWaiting.get(wire);
      entries?.delete(entry);
      if (entries?.size === 0) entriesWaiting.delete(wire);
    }
    if (entry.refs > 0 || this.entries.get(wire) !== entry) return;
    if (linger && this.lingerMs > 0 && entry.confirmed && this.live && !this.closed && this.onServer.has(wire)) {
      entry.linger = setTimeout(() => {
        entry.linger = null;
        if (entry.refs === 0 && this.entries.get(wire) === entry) this.drop(wire, entry);
      }, this.lingerMs);
      entry.linger.unref();
      return;
    }
    this.drop(wire, entry);
  }

  /** Forgets a channel without waiters, unsubscribing it when this socket subscribed it. */
  private drop(wire: string, entry: ChannelEntry): void {
    if (entry.linger) {
      clearTimeout(entry.linger);
      entry.linger = null;
    }
    this.entries.delete(wire);
    this.messages.all.delete(wire);
    entry.ready.reject(new RedissonShutdownError('subscription released'));
    // Only a SUBSCRIBE written on this socket needs undoing; the UNSUBSCRIBE follows it on the same socket.
    this.confirmedHere.delete(wire);
    if (this.live && !this.closed && this.onServer.delete(wire)) {
      this.subscriber.unsubscribe(wire).catch(() => undefined);
    }
  }
}

/** `promise`, or a `RedisTimeoutError` naming `what`, the time waited and the limit, after `ms`. */
function withTimeout(promise: Promise<unknown>, ms: number, abort: AbortSource | undefined, what: string): Promise<void> {
  if (abort?.aborted) return Promise.reject(abort.reason as Error);
  const d = pDefer<void>();
  const started = performance.now();
  const expire = (): void => d.reject(new RedisTimeoutError(`${what} timed out: gave up after ${Math.round(performance.now() - started)} ms (limit ${ms} ms)`));
  const timer = setTimeout(expire, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
  const off = abort ? onAbort(abort, (reason) => d.reject(reason)) : undefined;
  promise.then(
    () => d.resolve(),
    (error: unknown) => d.reject(error as Error),
  );
  return d.promise.finally(() => {
    clearTimeout(timer);
    off?.();
  });
}

