/**
 * The primitives a fault-suite worker (./historyWorker.ts) can loop on, each behind one shape: `take`
 * acquires (waiting as long as it takes, until `signal` aborts) and says what it got — a role (`r`/`w`),
 * a fencing token, an owner field, a permit id — and `give` releases exactly that. One object per
 * process, shared by all of the process's flows (the shared-object pattern README recommends).
 */
import type { Redisson } from '../../src/index.js';
import { TimeUnit } from '../../src/index.js';

export type Primitive = 'lock' | 'fairLock' | 'readWrite' | 'fencedLock' | 'semaphore' | 'pes' | 'redLock';

/** What one acquisition got. */
export interface Taken {
  /** `w` for exclusive holds (every lock, a write lock), `r` for shared ones (a read lock, a permit). */
  readonly role: 'r' | 'w';
  readonly token?: number;
  /** The owner's hash field (`clientId:threadId`) where the primitive has one and it is known. */
  readonly field?: string;
  readonly release: () => Promise<void>;
}

export interface Taker {
  /** The role the next `take` of this flow asks for (so the `wait` line can say it). */
  role(flow: number, cycle: number): 'r' | 'w';
  take(flow: number, cycle: number, signal: AbortSignal): Promise<Taken>;
}

export interface TakerOptions {
  readonly name: string;
  /** Lease of each acquisition; -1: the watchdog (locks) or no lease (permits). */
  readonly leaseMs: number;
  /** Permits of a semaphore (set with trySetPermits before each acquire, as an init-if-missing). */
  readonly permits: number;
  /** RedLock: one client per member server. */
  readonly members?: readonly Redisson[];
}

export function makeTaker(primitive: Primitive, client: Redisson, o: TakerOptions): Taker {
  const exclusive = { role: (): 'w' => 'w' };
  switch (primitive) {
    case 'lock':
    case 'redLock': {
      const lock = primitive === 'lock' ? client.getLock(o.name) : client.getRedLock(...(o.members ?? []).map((c) => c.getLock(o.name)));
      return {
        ...exclusive,
        take: async (_f, _c, signal) => {
          await (o.leaseMs < 0 ? lock.lock({ signal }) : lock.lock(o.leaseMs, { signal }));
          return { role: 'w', release: () => lock.unlock() };
        },
      };
    }
    case 'fairLock': {
      const lock = client.getFairLock(o.name);
      return {
        ...exclusive,
        take: async (_f, _c, signal) => {
          const hold = await lock.acquire({ signal, ...(o.leaseMs < 0 ? {} : { leaseTime: o.leaseMs }) });
          return { role: 'w', field: `${client.id}:${hold.threadId}`, release: () => hold.release() };
        },
      };
    }
    case 'fencedLock': {
      const lock = client.getFencedLock(o.name);
      return {
        ...exclusive,
        take: async (_f, _c, signal) => {
          const token = await (o.leaseMs < 0 ? lock.lockAndGetToken({ signal }) : lock.lockAndGetToken(o.leaseMs, { signal }));
          return { role: 'w', token, release: () => lock.unlock() };
        },
      };
    }
    case 'readWrite': {
      const rw = client.getReadWriteLock(o.name);
      const halves = { r: rw.readLock(), w: rw.writeLock() };
      // One writer turn in three, the flows out of step: readers overlap, writers interleave with them.
      const role = (flow: number, cycle: number): 'r' | 'w' => ((cycle + flow) % 3 === 0 ? 'w' : 'r');
      return {
        role,
        take: async (flow, cycle, signal) => {
          const r = role(flow, cycle);
          const half = halves[r];
          await (o.leaseMs < 0 ? half.lock({ signal }) : half.lock(o.leaseMs, { signal }));
          return { role: r, release: () => half.unlock() };
        },
      };
    }
    case 'semaphore': {
      const sem = client.getSemaphore(o.name);
      return {
        role: () => 'r',
        take: async (_f, _c, signal) => {
          await sem.trySetPermits(o.permits);
          await sem.acquire({ signal });
          return { role: 'r', release: () => sem.release() };
        },
      };
    }
    case 'pes': {
      const sem = client.getPermitExpirableSemaphore(o.name);
      return {
        role: () => 'r',
        take: async (_f, _c, signal) => {
          await sem.trySetPermits(o.permits);
          const id = await (o.leaseMs < 0 ? sem.acquire({ signal }) : sem.acquire(o.leaseMs, TimeUnit.MILLISECONDS, { signal }));
          return { role: 'r', release: () => sem.release(id) };
        },
      };
    }
  }
}
