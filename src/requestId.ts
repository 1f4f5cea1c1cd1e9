/**
 * Request ids as Redisson's `ServiceManager.generateId()` makes them: 16 random bytes as 32 lower-case hex digits
 * (the unlock latch's suffix). Read from a pool refilled 256 ids at a time: one `randomFillSync` per 256 ids, and
 * each id is one string made by `Buffer#toString('hex')` — `randomUUID().replaceAll('-', '')` made a UUID string
 * of 36 characters by concatenation, then a second one without its dashes, on every unlock (issue 29).
 */
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
const POOL_IDS = 256;
const pool = Buffer.alloc(ID_BYTES * POOL_IDS);
let next = POOL_IDS;

/** 32 random lower-case hex digits. */
export function newRequestId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const start = next++ * ID_BYTES;
  return pool.toString('hex', start, start + ID_BYTES);
}
