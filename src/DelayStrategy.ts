/**
 * Redisson's `retryDelay` strategies (`org.redisson.config.DelayStrategy` and its four implementations), in
 * milliseconds where Java takes a `Duration`. The client uses its `retryDelay` where Redisson does for what it
 * ports: between the tries of a write its replicas did not confirm (after undoing it; `checkLockSyncedSlaves`),
 * and in the TTL of an unlock latch, `(timeout + retryDelay.calcDelay(retryAttempts)) * retryAttempts`.
 */
import { ArgumentRangeError, InvalidArgumentError } from './errors.js';

/** How long (ms) to wait before retry number `attempt` (0 for the first retry). Redisson's `DelayStrategy`. */
export interface DelayStrategy {
  /** The delay (ms) before retry `attempt` (0-based). */
  calcDelay(attempt: number): number;
}

function requireMillis(value: unknown, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) throw new InvalidArgumentError(`Expected \`${what}\` to be a number of milliseconds, got ${String(value)}`);
  if (!Number.isSafeInteger(value) || value < 0) throw new ArgumentRangeError(`Expected \`${what}\` to be a non-negative integer (ms), got ${value}`);
  return value;
}

/** `base * 2^attempt`, at most `max` (Redisson's overflow-safe exponential). */
function exponential(base: number, max: number, attempt: number): number {
  if (attempt >= 63 || base >= max) return max;
  return Math.min(base * 2 ** attempt, max);
}

/** A random integer in `[0, bound]`. */
function upTo(bound: number): number {
  return Math.floor(Math.random() * (bound + 1));
}

/**
 * Exponential delay with equal jitter: half of `min(baseDelay * 2^attempt, maxDelay)`, plus a random part up to
 * the other half. Redisson's default `retryDelay`, with `baseDelay` 1000 and `maxDelay` 2000.
 * @example new EqualJitterDelay(1_000, 2_000)
 */
export class EqualJitterDelay implements DelayStrategy {
  /**
   * Redisson's `new EqualJitterDelay(baseDelay, maxDelay)`, in ms.
   * @param baseDelay ms, the delay of the first retry before jitter.
   * @param maxDelay ms, the largest delay before jitter.
   */
  constructor(
    readonly baseDelay: number,
    readonly maxDelay: number,
  ) {
    requireMillis(baseDelay, 'baseDelay');
    requireMillis(maxDelay, 'maxDelay');
  }

  /** Redisson's `EqualJitterDelay.calcDelay`. */
  calcDelay(attempt: number): number {
    const half = Math.floor(exponential(this.baseDelay, this.maxDelay, attempt) / 2);
    return half + upTo(half);
  }
}

/**
 * Exponential delay with full jitter: a random delay up to `min(baseDelay * 2^attempt, maxDelay)`.
 * @example new FullJitterDelay(100, 5_000)
 */
export class FullJitterDelay implements DelayStrategy {
  /**
   * Redisson's `new FullJitterDelay(baseDelay, maxDelay)`, in ms.
   * @param baseDelay ms, the first retry's largest delay.
   * @param maxDelay ms, the largest delay.
   */
  constructor(
    readonly baseDelay: number,
    readonly maxDelay: number,
  ) {
    requireMillis(baseDelay, 'baseDelay');
    requireMillis(maxDelay, 'maxDelay');
  }

  /** Redisson's `FullJitterDelay.calcDelay`. */
  calcDelay(attempt: number): number {
    const ceiling = this.baseDelay <= 0 ? this.maxDelay : Math.min(this.baseDelay * 2 ** Math.min(attempt, 62), this.maxDelay);
    return upTo(Math.max(ceiling, 1));
  }
}

/**
 * The same delay before every retry.
 * @example new ConstantDelay(500)
 */
export class ConstantDelay implements DelayStrategy {
  /**
   * Redisson's `new ConstantDelay(delay)`, in ms.
   * @param delay ms before every retry.
   */
  constructor(readonly delay: number) {
    requireMillis(delay, 'delay');
  }

  /** Redisson's `ConstantDelay.calcDelay`. */
  calcDelay(): number {
    return this.delay;
  }
}

/**
 * Decorrelated jitter: each delay is `minDelay` plus a random part below three times the previous delay, at
 * most `maxDelay`. Keeps state between calls, as Redisson's.
 * @example new DecorrelatedJitterDelay(100, 5_000)
 */
export class DecorrelatedJitterDelay implements DelayStrategy {
  #previous = 0;

  /**
   * Redisson's `new DecorrelatedJitterDelay(minDelay, maxDelay)`, in ms.
   * @param minDelay ms, the smallest delay.
   * @param maxDelay ms, the largest delay.
   */
  constructor(
    readonly minDelay: number,
    readonly maxDelay: number,
  ) {
    requireMillis(minDelay, 'minDelay');
    requireMillis(maxDelay, 'maxDelay');
  }

  /** Redisson's `DecorrelatedJitterDelay.calcDelay`. */
  calcDelay(): number {
    const previous = this.#previous === 0 ? this.minDelay : this.#previous;
    const range = previous * 3;
    const random = range === 0 ? 0 : Math.floor(Math.random() * range);
    this.#previous = Math.min(this.minDelay + random, this.maxDelay);
    return this.#previous;
  }
}

/** Redisson's default `retryDelay`: `EqualJitterDelay(1 s, 2 s)`. */
export const DEFAULT_RETRY_DELAY: DelayStrategy = Object.freeze(new EqualJitterDelay(1_000, 2_000));
