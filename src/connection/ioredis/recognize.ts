/** Telling ioredis' clients apart by their methods (also ones from another copy of ioredis, where `instanceof` fails). */
import type { Cluster, Redis } from 'ioredis';

/** Whether `value` is an ioredis `Cluster`. */
export function isClusterInstance(value: unknown): value is Cluster {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['nodes'] === 'function' && typeof r['duplicate'] === 'function' && typeof r['defineCommand'] === 'function';
}

/** Whether `value` is an ioredis `Redis` instance (standalone or Sentinel). */
export function isRedisInstance(value: unknown): value is Redis {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['duplicate'] === 'function' && typeof r['defineCommand'] === 'function' && typeof r['sendCommand'] === 'function' && !('nodes' in r && typeof r['nodes'] === 'function');
}

/** Whether `redis` is an ioredis connection in Sentinel mode (it has `sentinels` and a master `name`). */
export function isSentinelMode(redis: Redis): boolean {
  const o = redis.options as { sentinels?: unknown[] | null; name?: string | null };
  return Array.isArray(o.sentinels) && o.sentinels.length > 0 && typeof o.name === 'string' && o.name !== '';
}

/** Whether `redis` is a Sentinel-mode connection to the master (not `role: 'slave'`): the one a switch moves. */
export function followsMaster(redis: Redis): boolean {
  return isSentinelMode(redis) && (redis.options as { role?: string }).role !== 'slave';
}
