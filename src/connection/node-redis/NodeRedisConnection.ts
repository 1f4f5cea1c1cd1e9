/**
 * The command connection on node-redis (a single server). Commands go out with `sendCommand`, only while the
 * client is ready: a command given to node-redis while it reconnects would wait in its offline queue and be
 * sent later behind the executor's back (the executor holds commands itself), so it is refused here instead.
 * node-redis never re-sends a command whose reply was lost (it rejects it with `SocketClosedUnexpectedlyError`).
 *
 * node-redis 6's `commandOptions.timeout` (5 s by default) only covers the wait before a command is written,
 * which never happens here; our `timeout` (the executor's) governs the reply. Each command is sent with
 * `rejectInFlight: false`, so that a client configured to time out written commands does not cut a `WAIT`
 * short, and with node-redis' default reply types (`typeMapping: {}`), whatever the client maps them to — when the
 * client's command defaults say otherwise; on node-redis' defaults, with no options (see {@link commandOptionsFor}).
 */
import type { LuaScriptId } from '../../generated/lua.js';
import type { CommandArg, CommandConnection, ConnectionEvents, ConnectionStatus, WireArg } from '../driver.js';
import { ClientState } from './ClientState.js';
import { NodeRedisNotReadyError } from './errors.js';
import { runScript, runScriptAndWait } from './scripts.js';
import type { NodeRedisClient, NodeRedisCommandOptions } from './types.js';

export const OPTIONS: NodeRedisCommandOptions = Object.freeze({ typeMapping: {}, rejectInFlight: false });

/** Per client: the options its commands are sent with (`undefined`: none). */
const OPTIONS_OF = new WeakMap<NodeRedisClient, NodeRedisCommandOptions | undefined>();

/**
 * The options our commands need on `client`: {@link OPTIONS} when its command defaults would change a reply's type
 * (a `typeMapping`) or cut a written command short (`rejectInFlight`), else none. Passing any options object costs
 * node-redis about 4 µs of CPU per command (it merges them into a new object for every command: issue 29), so a
 * client on node-redis' defaults, the common case, is sent none. Read from the client's `_commandOptions` (6.x: its
 * own, a `withTypeMapping()` proxy's included; 5.x: also its base client's); a client without one gets
 * {@link OPTIONS}.
 */
export function commandOptionsFor(client: NodeRedisClient): NodeRedisCommandOptions | undefined {
  if (OPTIONS_OF.has(client)) return OPTIONS_OF.get(client);
  const c = client as unknown as { _commandOptions?: unknown; _self?: { _commandOptions?: unknown } };
  const options = !('_commandOptions' in c) || overrides(c._commandOptions) || overrides(c._self?._commandOptions) ? OPTIONS : undefined;
  OPTIONS_OF.set(client, options);
  return options;
}

/** Whether command defaults `o` differ from node-redis' own in what {@link OPTIONS} sets. */
function overrides(o: unknown): boolean {
  if (o === undefined || o === null) return false;
  if (typeof o !== 'object') return true;
  const { typeMapping, rejectInFlight } = o as { typeMapping?: unknown; rejectInFlight?: unknown };
  if (rejectInFlight !== undefined && rejectInFlight !== false) return true;
  if (typeMapping === undefined || typeMapping === null) return false;
  if (typeof typeMapping !== 'object') return true;
  // Any mapping (inherited ones too: 5.x's proxies chain their options by prototype).
  for (const key in typeMapping) if ((typeMapping as Record<string, unknown>)[key] !== undefined) return true;
  return Object.getOwnPropertySymbols(typeMapping).length > 0;
}

/** `host:port` or the socket path of a client, from its options. */
export function addressOf(client: NodeRedisClient): string {
  const o = client.options ?? {};
  if (o.socket?.path !== undefined) return o.socket.path;
  let host = o.socket?.host;
  let port = o.socket?.port;
  if (o.url !== undefined && (host === undefined || port === undefined)) {
    try {
      const url = new URL(o.url);
      host ??= url.hostname === '' ? undefined : url.hostname;
      port ??= url.port === '' ? undefined : Number(url.port);
    } catch {
      // node-redis already refused a bad URL.
    }
  }
  return `${host ?? 'localhost'}:${port ?? 6379}`;
}

/** The database a client selects, from its options (`database`, or the URL's path). */
export function databaseOf(client: NodeRedisClient): number {
  const o = client.options ?? {};
  if (typeof o.database === 'number') return o.database;
  if (o.url !== undefined) {
    try {
      const db = Number(new URL(o.url).pathname.slice(1));
      return Number.isInteger(db) ? db : 0;
    } catch {
      return 0;
    }
  }
  return 0;
}

export class NodeRedisConnection implements CommandConnection {
  readonly clustered = false;
  readonly keyPrefix = '';
  readonly maxRetriesPerRequest = null;
  readonly #state: ClientState;
  readonly #options: NodeRedisCommandOptions | undefined;
  // Scripts sent on the current socket (by EVAL, or EVALSHA answered): forgotten on every reconnect.
  readonly #loaded = new Set<LuaScriptId>();

  /** @param client a single-server node-redis client (connected or connecting). */
  constructor(readonly client: NodeRedisClient) {
    this.#state = new ClientState(client, { before: () => this.#loaded.clear() });
    this.#options = commandOptionsFor(client);
  }

  get status(): ConnectionStatus {
    return this.#state.status;
  }

  /** Stops listening to the client (on shutdown; see `ClientState.detach`). */
  detach(): void {
    this.#state.detach();
  }

  get address(): string {
    return addressOf(this.client);
  }

  get database(): number {
    return databaseOf(this.client);
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#state.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#state.off(event, listener);
  }

  /** `args`, written now, or refused when the client is not ready (never queued). */
  #send(args: readonly (string | Buffer)[]): Promise<unknown> {
    if (!this.client.isReady) return Promise.reject(new NodeRedisNotReadyError());
    return this.client.sendCommand(args, this.#options);
  }

  evalScript(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown> {
    return runScript((argv) => this.#send(argv), this.#loaded, id, keys, args);
  }

  evalAndWait(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]> {
    return runScriptAndWait((argv) => this.#send(argv), this.#loaded, id, keys, args, replicas, timeoutMs);
  }

  call(name: string, ...args: CommandArg[]): Promise<unknown> {
    const argv: (string | Buffer)[] = [name];
    for (const a of args) argv.push(typeof a === 'number' ? String(a) : a);
    return this.#send(argv);
  }

  masterOf(): string {
    return '';
  }

  infoOf(): (section: string) => Promise<string> {
    return async (section) => String(await this.#send(['INFO', section]));
  }

  commandOn(): (name: string, ...args: CommandArg[]) => Promise<unknown> {
    return (name, ...args) => this.call(name, ...args);
  }

  refreshTopology(): Promise<void> {
    return Promise.resolve();
  }

  onTopologyChange(): () => void {
    return () => undefined;
  }
}
