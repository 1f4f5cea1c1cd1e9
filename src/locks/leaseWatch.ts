/**
 * When a leased hold is lost: once its lease has run out *in Redis*. The hold's timer is only the client's
 * estimate of the moment Redis expires the key — a Node timer may fire a little early (libuv schedules from
 * its cached loop time, in whole ms, while Redis compares against its own clock), and the lease may have
 * been extended since (a re-entry, `expire()`). So when the timer fires, Redis is asked: while the owner's
 * field is still there, the timer is set again for the key's remaining time to live; once it is gone, or
 * Redis cannot be asked (the lease is over by the client's clock), the hold is reported lost.
 */
import type { CommandExecutor } from '../connection/CommandExecutor.js';
import { recheckUntilLost } from '../wait/recheck.js';

/**
 * Calls `onLost` once owner `field` of hash `rawName` is gone, checking when `leaseMs` has passed and then
 * whenever the key's remaining time to live has. Returns the function that stops watching (no call after it).
 */
export function watchLease(executor: CommandExecutor, rawName: string, field: string, leaseMs: number, onLost: () => void): () => void {
  // No expiry on the key (PTTL -1: persisted by hand): look again after another lease.
  return recheckUntilLost(async () => {
    const ttl = await remaining(executor, rawName, field);
    return ttl === null ? 'lost' : ttl < 0 ? leaseMs : ttl;
  }, leaseMs, onLost);
}

/** The key's remaining time to live while `field` is in it (`-1`: no expiry), `null` once it is gone. */
async function remaining(executor: CommandExecutor, rawName: string, field: string): Promise<number | null> {
  if ((await executor.command('HEXISTS', rawName, field)) !== 1) return null;
  const ttl = (await executor.command('PTTL', rawName)) as number;
  return ttl === -2 ? null : ttl;
}
