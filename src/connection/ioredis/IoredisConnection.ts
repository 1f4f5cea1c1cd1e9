/** The command connection on ioredis: a standalone or Sentinel `Redis`, or a `Cluster`. */
import type { Redis } from 'ioredis';
import type { CommandArg, CommandConnection, ConnectionEvents, ConnectionStatus, WireArg } from '../driver.js';
import type { LuaScriptId } from '../../generated/lua.js';
import { keySlot } from '../slots.js';
import { isClusterInstance } from './recognize.js';
import { defineScripts, evalScript } from './scripts.js';
import type { RedisConnection } from './types.js';

/** `host:port` of a cluster node, as ioredis' slot map names it. */
export function nodeKey(node: Redis): string {
  return `${node.options.host ?? ''}:${node.options.port ?? ''}`;
}

export class IoredisConnection implements CommandConnection {
  readonly clustered: boolean;

  /** @param redis a connection made with `autoResendUnfulfilledCommands: false`; its scripts are defined here. */
  constructor(readonly redis: RedisConnection) {
    this.clustered = isClusterInstance(redis);
    defineScripts(redis);
  }

  get status(): ConnectionStatus {
    return this.redis.status;
  }

  get address(): string {
    if (isClusterInstance(this.redis)) {
      const nodes = (this.redis as unknown as { startupNodes?: { host?: string; port?: number }[] }).startupNodes ?? [];
      return `cluster ${nodes.map((n) => `${n.host ?? '127.0.0.1'}:${n.port ?? 6379}`).join(',')}`;
    }
    const o = this.redis.options as { host?: string; port?: number; path?: string };
    return o.path ?? `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
  }

  get keyPrefix(): string {
    return this.redis.options.keyPrefix ?? '';
  }

  get database(): number {
    return isClusterInstance(this.redis) ? 0 : (this.redis.options.db ?? 0);
  }

  get maxRetriesPerRequest(): number | null {
    const max = (this.redis.options as { maxRetriesPerRequest?: number | null }).maxRetriesPerRequest;
    return typeof max === 'number' ? max : null;
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.redis.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.redis.off(event, listener);
  }

  evalScript(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown> {
    return evalScript(this.redis, id, keys, args);
  }

  async evalAndWait(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]> {
    const pipeline = (this.redis as Redis).pipeline();
    void evalScript(pipeline, id, keys, args);
    pipeline.call('WAIT', String(replicas), String(timeoutMs));
    const results = (await pipeline.exec()) ?? [];
    const [script, wait] = [results[0] ?? [null, null], results[1] ?? [null, 0]];
    if (script[0] instanceof Error) throw script[0];
    if (wait[0] instanceof Error) throw wait[0];
    return [script[1], Number(wait[1])] as const;
  }

  call(name: string, ...args: CommandArg[]): Promise<unknown> {
    // Lower case: iovalkey finds a command's keys (to put its `keyPrefix` on them) by a case-sensitive lookup
    // of the lower-case name; ioredis accepts either case.
    return this.redis.call(name.toLowerCase(), ...args);
  }

  masterOf(key: string): string | undefined {
    // In a cluster, the master that owns the key's slot (ioredis' slot map names it); else the one master.
    if (!isClusterInstance(this.redis)) return '';
    return this.redis.slots[keySlot(this.keyPrefix + key)]?.[0];
  }

  infoOf(master: string): ((section: string) => Promise<string>) | undefined {
    const node = isClusterInstance(this.redis) ? this.redis.nodes('master').find((n) => nodeKey(n) === master) : this.redis;
    return node === undefined ? undefined : (section) => node.info(section);
  }

  commandOn(master: string): ((name: string, ...args: CommandArg[]) => Promise<unknown>) | undefined {
    const node = isClusterInstance(this.redis) ? this.redis.nodes('master').find((n) => nodeKey(n) === master) : this.redis;
    return node === undefined ? undefined : (name, ...args) => node.call(name.toLowerCase(), ...args);
  }

  refreshTopology(): Promise<void> {
    const redis = this.redis;
    if (!isClusterInstance(redis)) return Promise.resolve();
    return new Promise<void>((resolve) => redis.refreshSlotsCache(() => resolve()));
  }

  onTopologyChange(listener: () => void): () => void {
    const redis = this.redis;
    if (!isClusterInstance(redis)) return () => undefined;
    redis.on('refresh', listener);
    return () => redis.off('refresh', listener);
  }
}
