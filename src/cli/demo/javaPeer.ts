/**
 * The Java Redisson peer of strategy 7, loaded from the interop tests (`test/interop/JavaPeer.ts`) of a
 * source checkout. The peer is test code and is not published, so it is imported dynamically and only
 * when it is there; the demo shows strategy 7 as "not run" when it is not, or when `java`/`mvn` are missing.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What the demo uses of a running peer (a structural view of `JavaPeer` in test/interop/JavaPeer.ts). */
export interface Peer {
  readonly pid: number;
  readonly redissonVersion: string;
  call(primitive: string, name: string, method: string, args?: readonly unknown[], thread?: string): Promise<unknown>;
  /** SIGKILL; resolves once the JVM is gone. */
  kill(): Promise<void>;
  /** Redisson shutdown, then SIGKILL after `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
}

/** What the demo uses of test/interop/JavaPeer.ts. */
interface PeerModule {
  readonly REDISSON_VERSIONS: readonly string[];
  javaAvailable(): { ok: true } | { ok: false; reason: string };
  buildPeer(version: string): Promise<string[]>;
  readonly JavaPeer: { start(version: string, options: { address: string; lockWatchdogTimeout?: number }): Promise<Peer> };
}

/** A built peer, ready to start JVMs. */
export interface JavaSide {
  /** Redisson version the peer runs (the newest pinned one). */
  readonly version: string;
  /** Starts a JVM running Redisson connected to `address`; its RLocks use `lockWatchdogTimeout` (ms). */
  start(address: string, lockWatchdogTimeout: number): Promise<Peer>;
}

export type JavaAvailability = { readonly ok: true; readonly java: JavaSide } | { readonly ok: false; readonly reason: string };

/** test/interop/JavaPeer.ts of the checkout this CLI runs from (src/cli/demo or dist/cli/demo: three levels down). */
export function javaPeerFile(): string {
  return fileURLToPath(new URL('../../../test/interop/JavaPeer.ts', import.meta.url));
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/**
 * Loads the peer, checks that `java` and `mvn` run, and builds the peer for the newest pinned Redisson
 * (a few seconds the first time, nothing once built). Never throws: every obstacle becomes a `reason`.
 * @param status told what is going on, for the progress line
 */
export async function loadJava(status: (text: string) => void): Promise<JavaAvailability> {
  const file = javaPeerFile();
  if (!existsSync(file)) return { ok: false, reason: 'needs a source checkout of redisson-ts (test/interop/JavaPeer.ts)' };
  let peerModule: PeerModule;
  try {
    // A .ts module: loads under tsx (npm run demo), not from a plain-node dist/ build.
    peerModule = (await import(pathToFileURL(file).href)) as PeerModule;
  } catch (error) {
    return { ok: false, reason: `cannot load test/interop/JavaPeer.ts (run with tsx: npm run demo): ${firstLine(error)}` };
  }
  status('looking for java and mvn…');
  const available = peerModule.javaAvailable();
  if (!available.ok) return { ok: false, reason: available.reason.split('\n')[0] ?? available.reason };
  const version = peerModule.REDISSON_VERSIONS[0];
  if (version === undefined) return { ok: false, reason: 'JavaPeer.ts pins no Redisson version' };
  status(`building the Java Redisson ${version} peer (a few seconds the first time)…`);
  try {
    await peerModule.buildPeer(version);
  } catch (error) {
    return { ok: false, reason: `building the Java peer failed: ${firstLine(error)}` };
  }
  return {
    ok: true,
    java: { version, start: (address, lockWatchdogTimeout) => peerModule.JavaPeer.start(version, { address, lockWatchdogTimeout }) },
  };
}
