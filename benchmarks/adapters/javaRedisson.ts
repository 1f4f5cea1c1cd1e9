/**
 * Java Redisson through the interop peer (test/interop/JavaPeer.ts): a JVM running real
 * org.redisson:redisson, one Java thread per owner, driven over line-delimited JSON on stdin/stdout.
 * Every lock call therefore includes one pipe hop each way; `transportPing` measures that hop.
 */
import { JavaPeer, javaAvailable } from '../../test/interop/JavaPeer.js';
import type { Implementation, Kind, LockClient, LockHandle } from './types.js';

/** The Redisson version driven (newest pinned in the peer's pom). */
export const JAVA_REDISSON_VERSION = '4.7.0';

/**
 * The JVM's own defaults (C2 compiler, G1), as a service runs Java — not the interop tests' start-up flags
 * (C1 only, serial GC), which would handicap Java's row.
 */
export const BENCH_JVM_FLAGS: readonly string[] = [];

/** The peer's primitive for each lock-shaped kind. */
const LOCK_PRIMITIVE = { lock: 'lock', fair: 'fairLock', read: 'readLock', write: 'writeLock' } as const;

/** Null when the Java rows can run here, else why not. */
export function javaUnavailableReason(): string | null {
  const java = javaAvailable();
  return java.ok ? null : java.reason;
}

export const javaRedisson: Implementation = {
  name: 'java-redisson',
  version: () => `org.redisson:redisson@${JAVA_REDISSON_VERSION} (interop peer)`,
  settings: 'defaults (lockWatchdogTimeout 30 s); RLock.lock() on one Java thread per owner; the JVM with its default flags (C2, G1)',
  kinds: ['lock', 'fair', 'read', 'write', 'semaphore', 'latch'],
  async open(options): Promise<LockClient> {
    const peer = await JavaPeer.start(JAVA_REDISSON_VERSION, {
      address: options.url,
      jvmFlags: BENCH_JVM_FLAGS,
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
    });
    let next = 0;
    const ready = new Map<string, Promise<unknown>>();
    return {
      handle(name, owner, kind: Kind = 'lock'): LockHandle {
        const thread = owner ?? `owner-${next++}`;
        const call = async (primitive: string, method: string, args: unknown[] = []): Promise<unknown> => (await peer.call(primitive, name, method, args, thread)).result;
        switch (kind) {
          case 'semaphore':
            return {
              acquire: async () => {
                // One permit, set once per name (trySetPermits is a no-op when the semaphore exists).
                await (ready.get(name) ?? ready.set(name, call('semaphore', 'trySetPermits', [1])).get(name));
                await call('semaphore', 'acquire');
              },
              release: async () => void (await call('semaphore', 'release')),
            };
          case 'latch':
            return {
              acquire: async () => {
                if (!(await call('countDownLatch', 'trySetCount', [1]))) await call('countDownLatch', 'await');
              },
              release: async () => void (await call('countDownLatch', 'countDown')),
            };
          default:
            return {
              acquire: async () => void (await call(LOCK_PRIMITIVE[kind], 'lock')),
              release: async () => void (await call(LOCK_PRIMITIVE[kind], 'unlock')),
            };
        }
      },
      transportPing: async () => void (await peer.request('ping')),
      close: () => peer.shutdown(),
    };
  },
};
