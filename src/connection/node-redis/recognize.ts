/** Telling node-redis' clients apart by their members (a client from any copy of `redis` 5.x or 6.x). */
import type { NodeRedisClient, NodeRedisCluster, NodeRedisClusterConnectionOptions, NodeRedisConnectionOptions } from './types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Whether `value` is a node-redis client or Sentinel client (`isReady`, `isOpen`, `sendCommand`, no `defineCommand`). */
function isNodeRedisAny(value: unknown): value is Record<string, unknown> {
  return isObject(value) && 'isReady' in value && 'isOpen' in value && typeof value['sendCommand'] === 'function' && typeof value['defineCommand'] !== 'function';
}

/** Whether `value` is a node-redis `createCluster()` client (5.12's has no `isReady`). */
export function isNodeRedisCluster(value: unknown): value is NodeRedisCluster {
  return (
    isObject(value) &&
    'isOpen' in value &&
    typeof value['sendCommand'] === 'function' &&
    typeof value['getSlotMaster'] === 'function' &&
    typeof value['nodeClient'] === 'function' &&
    typeof value['defineCommand'] !== 'function'
  );
}

/** Whether `value` is a node-redis `createSentinel()` client. */
export function isNodeRedisSentinel(value: unknown): boolean {
  return isNodeRedisAny(value) && typeof value['getMasterNode'] === 'function';
}

/** Whether `value` is a single-server node-redis client (`createClient()`). */
export function isNodeRedisClient(value: unknown): value is NodeRedisClient {
  return isNodeRedisAny(value) && typeof value['duplicate'] === 'function' && !isNodeRedisCluster(value) && !isNodeRedisSentinel(value);
}

/** Whether `value` asks for node-redis by name (`{ driver: 'node-redis', url }` or `{ driver: 'node-redis', cluster }`). */
export function isNodeRedisOptions(value: unknown): value is NodeRedisConnectionOptions {
  return isObject(value) && value['driver'] === 'node-redis';
}

/** Whether `value` asks for a node-redis cluster by name (`{ driver: 'node-redis', cluster }`). */
export function isNodeRedisClusterOptions(value: unknown): value is NodeRedisClusterConnectionOptions {
  return isNodeRedisOptions(value) && 'cluster' in value;
}
