/**
 * Java Redisson through the interop peer (test/interop/JavaPeer.ts): a JVM running real
 * org.redisson:redisson, one Java thread per owner, driven over line-delimited JSON on stdin/stdout.
 * Every lock call therefore includes one pipe hop each way; `transportPing` measures that hop.
 */
import { JavaPeer, javaAvailable } from '../../test/interop/JavaPeer.js';
import type { Implementation, LockClient } from './types.js';

/** The Redisson version driven (newest pinned in the peer's pom). */
export const JAVA_REDISSON_VERSION = '4.7.0';

/** Null when the Java rows can run here, else why not. */
export function javaUnavailableReason(): string | null {
  const java = javaAvailable();
  return java.ok ? null : java.reason;
}

export const javaRedisson: Implementation = {
  name: 'java-redisson',
  version: () => `org.redisson:redisson@${JAVA_REDISSON_VERSION} (interop peer)`,
  settings: 'defaults (lockWatchdogTimeout 30 s); RLock.lock() on one Java thread per owner',
  async open(options): Promise<LockClient> {
    const peer = await JavaPeer.start(JAVA_REDISSON_VERSION, {
      address: options.url,
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
    });
    let next = 0;
    return {
      handle(name, owner) {
        const thread = owner ?? `owner-${next++}`;
        return {
          acquire: async () => void (await peer.call('lock', name, 'lock', [], thread)),
          release: async () => void (await peer.call('lock', name, 'unlock', [], thread)),
        };
      },
      transportPing: async () => void (await peer.request('ping')),
      close: () => peer.shutdown(),
    };
  },
};
