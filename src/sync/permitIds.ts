/**
 * What a PermitExpirableSemaphore's permits are, apart from the class, so that its holds (`SemaphoreHold.ts`) and
 * their watch (`permitWatch.ts`) need not import the class that imports them (no import cycle).
 */

/** Redisson's score of a permit without a lease (`nonExpirableTimeout`). */
export const NON_EXPIRABLE_SCORE = 922_337_203_685_477;

/** A permit id as Redisson hands it out: 32 lowercase hex digits (16 random bytes). */
export type PermitId = string;
