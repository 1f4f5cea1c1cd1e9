/**
 * Java's `java.util.concurrent.TimeUnit`, for code ported from Redisson. Values are strings so that
 * `tryLock(wait, TimeUnit.SECONDS)` and `tryLock(wait, lease)` can be told apart at run time.
 */
export const TimeUnit = Object.freeze({
  /** Nanoseconds; converted to milliseconds by truncation, as Java does. */
  NANOSECONDS: 'NANOSECONDS',
  /** Microseconds; converted to milliseconds by truncation, as Java does. */
  MICROSECONDS: 'MICROSECONDS',
  /** Milliseconds: the unit of every time given without one. */
  MILLISECONDS: 'MILLISECONDS',
  /** Seconds. */
  SECONDS: 'SECONDS',
  /** Minutes. */
  MINUTES: 'MINUTES',
  /** Hours. */
  HOURS: 'HOURS',
  /** Days. */
  DAYS: 'DAYS',
} as const);

export type TimeUnit = (typeof TimeUnit)[keyof typeof TimeUnit];

// Milliseconds per unit, or units per millisecond for the sub-millisecond ones (Java truncates).
const MS_PER_UNIT: Record<TimeUnit, number> = {
  NANOSECONDS: 1 / 1_000_000,
  MICROSECONDS: 1 / 1_000,
  MILLISECONDS: 1,
  SECONDS: 1_000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
};

/** True when `value` is one of the {@link TimeUnit} names. */
export function isTimeUnit(value: unknown): value is TimeUnit {
  return typeof value === 'string' && Object.hasOwn(MS_PER_UNIT, value);
}

/** Java's `unit.toMillis(value)`: converts and truncates toward zero. `value` must be an integer. */
export function toMillis(value: number, unit: TimeUnit): number {
  return Math.trunc(value * MS_PER_UNIT[unit]);
}
