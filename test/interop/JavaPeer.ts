/**
 * Driver for the Java Redisson interop peer (test/interop/java).
 *
 * The peer is a JVM running real org.redisson:redisson (one pinned version per
 * build), spoken to over line-delimited JSON on stdin/stdout. See
 * java/src/main/java/dev/redissonts/Peer.java for the protocol.
 *
 * Node built-ins only; never leaves a JVM running (shutdown() kills after a
 * grace period, and a process 'exit' hook SIGKILLs leftovers; the peer also
 * exits by itself when its stdin closes).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Redisson versions the peer is pinned to (see java/pom.xml profiles). */
export const REDISSON_VERSIONS = ['4.7.0', '3.52.0', '3.17.7'] as const;
export type RedissonVersion = (typeof REDISSON_VERSIONS)[number];

const JAVA_DIR = fileURLToPath(new URL('./java/', import.meta.url));
const JAVA = process.env['JAVA_PEER_JAVA'] ?? 'java';
const MVN = process.env['JAVA_PEER_MVN'] ?? 'mvn';
/** JVM flags that shorten start-up; they do not change Redisson semantics. */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];
const MAIN_CLASS = 'dev.redissonts.Peer';
const BUILD_TIMEOUT_MS = 10 * 60_000;
const START_TIMEOUT_MS = 60_000;
const SHUTDOWN_GRACE_MS = 5_000;

// ------------------------------------------------------------------ availability

let availability: { ok: true } | { ok: false; reason: string } | undefined;

/** Whether `java` and `mvn` can be run here (cached). */
export function javaAvailable(): { ok: true } | { ok: false; reason: string } {
  if (availability) return availability;
  for (const [cmd, args] of [
    [JAVA, ['-version']],
    [MVN, ['-v']],
  ] as const) {
    const r = spawnSync(cmd, [...args], { encoding: 'utf8', timeout: 30_000 });
    if (r.error || r.status !== 0) {
      const why = r.error ? r.error.message : `exit ${String(r.status)}: ${(r.stderr || r.stdout).trim()}`;
      availability = { ok: false, reason: `${cmd} ${args.join(' ')} failed: ${why}` };
      return availability;
    }
  }
  availability = { ok: true };
  return availability;
}

// ------------------------------------------------------------------------ build

const builds = new Map<string, Promise<string[]>>();

function targetDir(version: string): string {
  return path.join(JAVA_DIR, 'target', version);
}

/** The command line that runs an already built peer of `version`. */
export function peerCommand(version: string): string[] {
  const dir = targetDir(version);
  const cp = [path.join(dir, 'classes'), path.join(dir, 'lib', '*')].join(path.delimiter);
  return [JAVA, ...JVM_FLAGS, '-cp', cp, MAIN_CLASS];
}

function newestMtime(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function stampFile(version: string): string {
  return path.join(targetDir(version), 'peer.stamp');
}

function upToDate(version: string): boolean {
  const dir = targetDir(version);
  const stamp = stampFile(version);
  if (
    !existsSync(stamp) ||
    !existsSync(path.join(dir, 'classes', 'dev', 'redissonts', 'Peer.class')) ||
    !existsSync(path.join(dir, 'lib', `redisson-${version}.jar`))
  ) {
    return false;
  }
  const sources = Math.max(newestMtime(path.join(JAVA_DIR, 'pom.xml')), newestMtime(path.join(JAVA_DIR, 'src')));
  return statSync(stamp).mtimeMs >= sources;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Cross-process build lock (vitest may build from several workers at once). */
async function withBuildLock<T>(version: string, fn: () => Promise<T>): Promise<T> {
  const lockDir = path.join(JAVA_DIR, 'target', `.build-${version}.lock`);
  mkdirSync(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
      } catch {
        // pid not written yet, or lock just released
      }
      const age = (() => {
        try {
          return Date.now() - statSync(lockDir).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if ((Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) || age > BUILD_TIMEOUT_MS) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for build lock ${lockDir}`, { cause: e });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function runMaven(version: string): Promise<void> {
  const args = ['-q', '-B', '-Dstyle.color=never', `-Dredisson.version=${version}`, 'package'];
  return new Promise((resolve, reject) => {
    const child = spawn(MVN, args, { cwd: JAVA_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer): void => {
      output = (output + b.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${MVN}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(`mvn ${args.join(' ')} (in ${JAVA_DIR}) failed: ${signal ?? `exit ${String(code)}`}\n${output}`),
        );
    });
  });
}

/**
 * Builds the peer for `version` unless already up to date (stamp newer than
 * pom.xml and src/), then returns the command line that starts it.
 * Runs `mvn -q -B -Dredisson.version=<version> package` in test/interop/java.
 */
export function buildPeer(version: string): Promise<string[]> {
  let p = builds.get(version);
  if (!p) {
    p = (async () => {
      if (!upToDate(version)) {
        await withBuildLock(version, async () => {
          if (upToDate(version)) return; // another process built it meanwhile
          await runMaven(version);
          writeFileSync(stampFile(version), `${version}\n`);
        });
      }
      return peerCommand(version);
    })();
    p.catch(() => builds.delete(version)); // allow a retry after a failure
    builds.set(version, p);
  }
  return p;
}

// ------------------------------------------------------------------------- peer

/** A Java exception reported by the peer (`ok: false`). */
export class JavaPeerError extends Error {
  /** Simple class name, e.g. "IllegalMonitorStateException". */
  readonly type: string;
  /** Fully qualified class name. */
  readonly javaClass: string;
  readonly javaMessage: string | null;
  readonly ts: number | undefined;
  readonly threadId: number | undefined;

  constructor(reply: Reply) {
    const err = reply.error ?? {};
    const type = typeof err.type === 'string' ? err.type : 'UnknownError';
    const message = typeof err.message === 'string' ? err.message : null;
    super(`${type}: ${message ?? ''}`);
    this.name = 'JavaPeerError';
    this.type = type;
    this.javaClass = typeof err.class === 'string' ? err.class : type;
    this.javaMessage = message;
    this.ts = reply.ts;
    this.threadId = reply.threadId;
  }
}

/** One protocol reply line from the peer. */
export interface Reply {
  id?: number | null;
  event?: string;
  ok?: boolean;
  result?: unknown;
  error?: { type?: unknown; class?: unknown; message?: unknown };
  ts?: number;
  startTs?: number;
  threadId?: number;
}

export interface CallResult<T = unknown> {
  result: T;
  /** Peer clock (epoch ms) when the call returned. */
  ts: number;
  /** Peer clock (epoch ms) when the call started on its Java thread. */
  startTs: number;
  /** Java thread id the call ran on. */
  threadId: number;
}

export interface StartOptions {
  /** e.g. "redis://127.0.0.1:6379"; with `cluster` or `sentinel`, ignored by the peer. */
  address: string;
  /** Redis Cluster mode: Redisson's `useClusterServers()`. */
  cluster?: {
    nodeAddresses: string[];
    /** Redisson 3.29.0+ only (the peer refuses it on older versions). */
    shardedSubscriptionMode?: 'AUTO' | 'ON' | 'OFF';
  };
  /** Sentinel mode: Redisson's `useSentinelServers()`. */
  sentinel?: { masterName: string; sentinelAddresses: string[] };
  /** Config.setLockWatchdogTimeout, ms. */
  lockWatchdogTimeout?: number;
  /** A Redisson YAML file (`Config.fromYAML`): every setting from it; `address`, `cluster`, `sentinel` ignored. */
  configFile?: string;
  /** Forward the JVM's stderr to ours (also enabled by JAVA_PEER_DEBUG=1). */
  inheritStderr?: boolean;
  /**
   * JVM flags in place of the start-up ones (C1 only, serial GC), which suit short interop tests; the
   * benchmarks pass `[]` so Java runs with the JVM's defaults (C2, G1), as services do.
   */
  jvmFlags?: readonly string[];
  /**
   * slf4j-simple levels by logger name, over the peer's `warn` default (e.g. `{ 'org.redisson.pubsub': 'info' }`):
   * what Redisson logs then reaches {@link JavaPeer.stderr}.
   */
  logLevels?: Readonly<Record<string, 'trace' | 'debug' | 'info' | 'warn' | 'error'>>;
}

interface Pending {
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
}

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export class JavaPeer {
  readonly version: string;
  readonly pid: number;
  /** RedissonClient.getId(): the UUID prefix of lock-owner fields. */
  clientId = '';
  /** Redisson version reported by the running peer. */
  redissonVersion = '';

  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitPromise: Promise<void>;
  private readyResolve: (() => void) | undefined;

  private constructor(version: string, command: string[], inheritStderr: boolean) {
    this.version = version;
    const [cmd, ...args] = command;
    if (cmd === undefined) throw new Error('empty peer command');
    installExitHook();
    this.child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    if (this.child.pid === undefined) {
      // spawn failure is reported asynchronously via 'error'; pid is then undefined
      this.pid = -1;
    } else {
      this.pid = this.child.pid;
    }
    live.add(this.child);

    this.exitPromise = new Promise<void>((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exitInfo) return;
        this.exitInfo = { code, signal };
        live.delete(this.child);
        const why = new Error(
          `Java peer ${this.version} (pid ${this.pid}) exited (${signal ?? `code ${String(code)}`})` +
            (this.stderrTail ? `; stderr tail:\n${this.stderrTail}` : ''),
        );
        for (const p of this.pending.values()) p.reject(why);
        this.pending.clear();
        resolve();
      };
      this.child.on('exit', done);
      this.child.on('error', (e) => {
        this.stderrTail += `\nspawn error: ${e.message}`;
        done(null, null);
      });
    });

    this.child.stdin.on('error', () => {
      // EPIPE after the peer died; the exit handler reports it
    });
    this.child.stderr.on('data', (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-8_000);
      if (inheritStderr) process.stderr.write(b);
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
  }

  /** Builds (if needed) and starts a peer, waits for it and connects it. */
  static async start(version: string, options: StartOptions): Promise<JavaPeer> {
    const built = await buildPeer(version);
    const levels = Object.entries(options.logLevels ?? {}).map(([logger, level]) => `-Dorg.slf4j.simpleLogger.log.${logger}=${level}`);
    const flags = [...(options.jvmFlags ?? JVM_FLAGS), ...levels];
    const command = [built[0] as string, ...flags, ...built.slice(1 + JVM_FLAGS.length)];
    const inherit = options.inheritStderr ?? Boolean(process.env['JAVA_PEER_DEBUG']);
    const peer = new JavaPeer(version, command, inherit);
    try {
      await peer.waitReady(START_TIMEOUT_MS);
      const fields: Record<string, unknown> = { address: options.address };
      if (options.lockWatchdogTimeout !== undefined) fields['lockWatchdogTimeout'] = options.lockWatchdogTimeout;
      if (options.cluster) fields['cluster'] = options.cluster;
      if (options.sentinel) fields['sentinel'] = options.sentinel;
      if (options.configFile !== undefined) fields['configFile'] = options.configFile;
      const reply = await peer.request('connect', fields);
      const result = reply.result as { clientId?: string; version?: string } | null;
      peer.clientId = result?.clientId ?? '';
      peer.redissonVersion = result?.version ?? '';
      return peer;
    } catch (e) {
      await peer.kill();
      throw e;
    }
  }

  /**
   * Runs `method` of Redisson primitive `primitive` named `name` on the Java
   * thread named `thread` (created on first use). Rejects with a
   * JavaPeerError when the Java side threw.
   */
  async call<T = unknown>(
    primitive: string,
    name: string,
    method: string,
    args: readonly unknown[] = [],
    thread = 'default',
  ): Promise<CallResult<T>> {
    const reply = await this.request('call', { primitive, name, method, args, thread });
    return {
      result: reply.result as T,
      ts: reply.ts ?? NaN,
      startTs: reply.startTs ?? NaN,
      threadId: reply.threadId ?? NaN,
    };
  }

  /** Java thread id of the named peer thread (creates the thread). */
  async threadId(thread: string): Promise<number> {
    const reply = await this.request('threadId', { thread });
    return Number(reply.result);
  }

  /**
   * Whether the peer's `thread` is parked on its lock entry's latch (a blocking lock() waiting for a message or
   * its TTL). Redisson's message `1` wakes only the threads already queued there (`release(getQueueLength())`).
   */
  async latchWaiting(thread: string): Promise<boolean> {
    const reply = await this.request('latchWaiting', { thread });
    return reply.result === true;
  }

  /** Owner field Redisson writes into a lock hash for `threadId`. */
  lockOwner(threadId: number): string {
    return `${this.clientId}:${threadId}`;
  }

  /** Whether the JVM has exited. */
  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Last bytes the JVM wrote to stderr (for diagnostics). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Sends a raw request; resolves with the ok reply, rejects on ok:false. */
  request(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    if (this.exitInfo) return Promise.reject(new Error(`Java peer ${this.version} has exited`));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ ...fields, id, op })}\n`);
    });
  }

  /** Kills the JVM (default SIGKILL: a crash, no Redisson shutdown); resolves once it is gone. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.exitInfo) {
      try {
        this.child.kill(signal);
      } catch {
        // already gone
      }
    }
    return this.exitPromise;
  }

  /** Graceful Redisson shutdown, then SIGKILL if not gone within the grace period. */
  async shutdown(graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
    if (this.exitInfo) return;
    this.request('shutdown').catch(() => {
      // the exit races the reply; either is fine
    });
    this.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.exitPromise.then(() => false),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) await this.kill('SIGKILL');
  }

  // ---------------------------------------------------------------- internals

  private waitReady(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Java peer ${this.version} not ready after ${timeoutMs} ms; stderr:\n${this.stderrTail}`));
      }, timeoutMs);
      this.readyResolve = () => {
        clearTimeout(timer);
        resolve();
      };
      void this.exitPromise.then(() => {
        clearTimeout(timer);
        reject(new Error(`Java peer ${this.version} exited before ready; stderr:\n${this.stderrTail}`));
      });
    });
  }

  private onLine(line: string): void {
    let msg: Reply;
    try {
      msg = JSON.parse(line) as Reply;
    } catch {
      this.stderrTail = (this.stderrTail + `\n[stdout] ${line}`).slice(-8_000);
      return;
    }
    if (msg.event === 'ready') {
      this.readyResolve?.();
      return;
    }
    if (typeof msg.id !== 'number') {
      // unsolicited error (e.g. unparsable request): surface it in diagnostics
      this.stderrTail = (this.stderrTail + `\n[stdout] ${line}`).slice(-8_000);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg);
    else p.reject(new JavaPeerError(msg));
  }
}
