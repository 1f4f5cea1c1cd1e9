/**
 * The back-off policies of the spin lock, as Redisson's `LockOptions`: a {@link BackOff} is a reusable
 * setting, and each waiting call asks it for a fresh {@link BackOffPolicy}, the sequence of sleeps between
 * that call's attempts. The default is Redisson's `LockOptions.defaults()`: exponential, 1 ms doubling up
 * to 128 ms, with a little jitter on the way up.
 */
import { describeValue, MAX_TIMER_MS, requireInteger } from '../config.js';
import { InvalidArgumentError } from '../errors.js';

/** The sleeps of one waiting call (Redisson's `LockOptions.BackOffPolicy`). */
export interface BackOffPolicy {
  /** The next sleep before retrying, in ms (a non-negative finite number). */
  getNextSleepPeriod(): number;
}

/** Makes a {@link BackOffPolicy} per waiting call (Redisson's `LockOptions.BackOff`). */
export interface BackOff {
  /** A fresh policy for one waiting call. */
  create(): BackOffPolicy;
}

/**
 * Redisson's `LockOptions.ExponentialBackOff`: sleeps start at `initialDelay`, then each is the previous
 * one times `multiplier` plus a random integer in `[0, n)` at the n-th step, capped at `maxDelay`; once a
 * sleep is exactly `maxDelay` it stays there (no more jitter).
 * @example client.getSpinLock('job', new ExponentialBackOff().initialDelay(5).maxDelay(500).multiplier(3))
 */
export class ExponentialBackOff implements BackOff {
  #maxDelay = 128;
  #initialDelay = 1;
  #multiplier = 2;

  /**
   * Longest sleep in ms.
   * @default 128
   * @throws TypeError | RangeError unless a positive integer (at most 2^31 − 1).
   */
  maxDelay(maxDelay: number): this {
    this.#maxDelay = requireInteger(maxDelay, 'maxDelay', 1, MAX_TIMER_MS);
    return this;
  }

  /** The longest sleep between attempts (ms). */
  getMaxDelay(): number {
    return this.#maxDelay;
  }

  /**
   * First sleep in ms.
   * @default 1
   * @throws TypeError | RangeError unless a positive integer (at most 2^31 − 1).
   */
  initialDelay(initialDelay: number): this {
    this.#initialDelay = requireInteger(initialDelay, 'initialDelay', 1, MAX_TIMER_MS);
    return this;
  }

  /** The first sleep between attempts (ms). */
  getInitialDelay(): number {
    return this.#initialDelay;
  }

  /**
   * Growth factor of the sleeps.
   * @default 2
   * @throws TypeError | RangeError unless a positive integer (a Java `int`).
   */
  multiplier(multiplier: number): this {
    this.#multiplier = requireInteger(multiplier, 'multiplier', 1, 2 ** 31 - 1);
    return this;
  }

  /** Factor applied to the sleep after each attempt. */
  getMultiplier(): number {
    return this.#multiplier;
  }

  /** A fresh exponential policy for one waiting call. */
  create(): BackOffPolicy {
    return new ExponentialBackOffPolicy(this.#initialDelay, this.#maxDelay, this.#multiplier);
  }
}

/**
 * The sequence of {@link ExponentialBackOff}. `random` returns a number in `[0, 1)` (Math.random; a test
 * may pass its own to check the formula).
 */
export class ExponentialBackOffPolicy implements BackOffPolicy {
  #next: number;
  #fails = 0;

  /**
   * Starts the sequence at `initialDelay` ms; each next sleep is the previous one times `multiplier` plus a
   * jitter, at most `maxDelay` ms.
   */
  constructor(
    initialDelay: number,
    private readonly maxDelay: number,
    private readonly multiplier: number,
    private readonly random: () => number = Math.random,
  ) {
    this.#next = initialDelay;
  }

  getNextSleepPeriod(): number {
    if (this.#next === this.maxDelay) return this.maxDelay;
    const result = this.#next;
    // Java's ThreadLocalRandom.nextInt(++fails): an integer in [0, fails).
    const jitter = Math.floor(this.random() * ++this.#fails);
    this.#next = Math.min(this.maxDelay, this.#next * this.multiplier + jitter);
    return result;
  }
}

/**
 * Redisson's `LockOptions.ConstantBackOff`: the same sleep between every two attempts.
 * @example client.getSpinLock('job', new ConstantBackOff().delay(10))
 */
export class ConstantBackOff implements BackOff {
  #delay = 64;

  /**
   * The sleep in ms.
   * @default 64
   * @throws TypeError | RangeError unless a positive integer (at most 2^31 − 1).
   */
  delay(delay: number): this {
    this.#delay = requireInteger(delay, 'delay', 1, MAX_TIMER_MS);
    return this;
  }

  /** The sleep between attempts (ms). */
  getDelay(): number {
    return this.#delay;
  }

  /** A fresh constant policy for one waiting call. */
  create(): BackOffPolicy {
    const delay = this.#delay;
    return { getNextSleepPeriod: () => delay };
  }
}

/** Redisson's `LockOptions` factory: `LockOptions.defaults()` is a new default {@link ExponentialBackOff}. */
export const LockOptions = Object.freeze({
  /** A new default {@link ExponentialBackOff}. */
  defaults: (): BackOff => new ExponentialBackOff(),
});

/** Throws unless `backOff` looks like a {@link BackOff} (an object with a `create` method). */
export function requireBackOff(backOff: unknown): BackOff {
  if (typeof backOff !== 'object' || backOff === null || typeof (backOff as Partial<BackOff>).create !== 'function') {
    throw new InvalidArgumentError(`Expected \`backOff\` to be a BackOff (an object with a create() method, such as new ExponentialBackOff()), got ${describeValue(backOff)}`);
  }
  return backOff as BackOff;
}

/**
 * The sleeps of one waiting call, checked: a policy that returns anything but a non-negative finite number
 * fails that call with a TypeError (inside the call, never from a timer).
 */
export function backOffSleeps(backOff: BackOff): { next(): number } {
  const policy = backOff.create();
  if (typeof policy !== 'object' || policy === null || typeof (policy as Partial<BackOffPolicy>).getNextSleepPeriod !== 'function') {
    throw new InvalidArgumentError(`Expected BackOff.create() to return a BackOffPolicy (with getNextSleepPeriod()), got ${describeValue(policy)}`);
  }
  return {
    next: () => {
      const ms = policy.getNextSleepPeriod();
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
        throw new InvalidArgumentError(`Expected BackOffPolicy.getNextSleepPeriod() to return a non-negative finite number of ms, got ${describeValue(ms)}`);
      }
      return ms;
    },
  };
}
