/**
 * A throwaway `redis-server` on a free loopback port: used by the demo and benchmarks when `REDIS_URL`
 * is not set, and by the test harness. No persistence; the process is killed when this one exits.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** The hint printed when `redis-server` is missing. */
export const INSTALL_HINT = 'redis-server not found: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL';

/** True when a `redis-server` binary is on PATH. */
export function hasRedisServerBinary(binary = 'redis-server'): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A port the OS reports free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RedisServerOptions {
  /** Port to use; a free one by default. */
  port?: number;
  /** Extra `redis-server` arguments, e.g. `['--notify-keyspace-events', 'Egx']`. */
  args?: string[];
  binary?: string;
  /**
   * Run as a Sentinel with this configuration (its `sentinel monitor …` lines): written to a file in the
   * server's directory, since a Sentinel rewrites its configuration. Ready once it monitors its master.
   */
  sentinelConfig?: string;
}

export class RedisServerProcess {
  #child: ChildProcess | null = null;
  readonly #dir: string;

  private constructor(
    readonly port: number,
    private readonly options: RedisServerOptions,
  ) {
    this.#dir = mkdtempSync(join(tmpdir(), 'redisson-ts-redis-'));
  }

  /** Starts a server and resolves once it accepts connections. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
    for (let attempt = 0; ; attempt++) {
      const server = new RedisServerProcess(options.port ?? (await freePort()), options);
      try {
        await server.#spawn();
        return server;
      } catch (error) {
        server.#cleanupDir();
        // A port taken between freePort() and bind: try another one.
        if (options.port !== undefined || attempt >= 4) throw error;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** PID of the running server process, if any. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.#child !== null;
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  async stop(): Promise<void> {
    await this.#terminate('SIGTERM');
    this.#cleanupDir();
  }

  /** Kills the server at once (SIGKILL): its data is lost, clients see the connection drop. */
  async kill(): Promise<void> {
    await this.#terminate('SIGKILL');
  }

  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered — a paused server. */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  /** Lets a {@link pause}d process run again (SIGCONT). */
  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** Starts the server again on the same port (after `kill()`), with an empty data set. */
  async restart(): Promise<void> {
    if (this.#child) await this.#terminate('SIGKILL');
    await this.#spawn();
  }

  #spawn(): Promise<void> {
    installExitHook();
    const sentinel = this.options.sentinelConfig;
    if (sentinel !== undefined && !existsSync(join(this.#dir, 'sentinel.conf'))) writeFileSync(join(this.#dir, 'sentinel.conf'), sentinel);
    const args = [
      ...(sentinel === undefined ? [] : [join(this.#dir, 'sentinel.conf'), '--sentinel']),
      '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', this.#dir, '--protected-mode', 'no', '--loglevel', 'notice', ...(this.options.args ?? []),
    ];
    const ready = sentinel === undefined ? 'Ready to accept connections' : '+monitor master';
    const child = spawn(this.options.binary ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes(ready)) {
          child.stdout?.off('data', onData);
          child.stdout?.resume();
          this.#child = child;
          live.add(child);
          child.once('exit', () => {
            live.delete(child);
            if (this.#child === child) this.#child = null;
          });
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', (error) => reject(new Error(`${INSTALL_HINT} (${error.message})`)));
      child.once('exit', (code) => {
        if (this.#child !== child) reject(new Error(`redis-server exited with code ${code} before it was ready: ${output.trim().split('\n').slice(-3).join(' | ')}`));
      });
    });
  }

  async #terminate(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT'); // a paused server would not act on SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  #cleanupDir(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}
