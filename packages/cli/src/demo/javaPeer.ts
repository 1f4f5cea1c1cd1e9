/**
 * The Java Redisson peer of strategy 7: the interop tests' launcher (`test/interop/JavaPeer.ts`) and its
 * Maven project (`test/interop/java`). A source checkout loads them from there (under tsx); the built CLI
 * carries a compiled copy of both in `dist/java/` (scripts/build-cli.mjs), so an installed CLI runs strategy 7
 * too. They are imported dynamically, and the demo shows strategy 7 as "not run" when `java`/`mvn` are
 * missing or the peer does not build (the first build fetches Redisson from Maven Central).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkoutRoot } from '../checkout.js';

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

/** The built CLI's own copy (`dist/java/JavaPeer.js`), else test/interop/JavaPeer.ts of the checkout, if any. */
export function javaPeerFile(): string | undefined {
  const shipped = fileURLToPath(new URL('../java/JavaPeer.js', import.meta.url));
  if (existsSync(shipped)) return shipped;
  const root = checkoutRoot();
  return root === undefined ? undefined : join(root, 'test', 'interop', 'JavaPeer.ts');
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
  if (file === undefined || !existsSync(file)) return { ok: false, reason: 'the Java peer is missing: neither dist/java of a built CLI nor test/interop of a checkout' };
  let peerModule: PeerModule;
  try {
    // The checkout's .ts loads under tsx (npm run demo); the built copy is plain JavaScript.
    peerModule = (await import(pathToFileURL(file).href)) as PeerModule;
  } catch (error) {
    return { ok: false, reason: `cannot load ${file}: ${firstLine(error)}` };
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
