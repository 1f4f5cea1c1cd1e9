/**
 * The ioredis types the rest of the library names (the `redis` option, the client's `redis`/`connection`
 * getters, Redisson-config translation): imported here only, so that the client library is named in one folder.
 */
import type { Cluster, Redis } from 'ioredis';

export type { ChainableCommander, Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/** A command connection as ioredis makes it: a standalone (or Sentinel) `Redis`, or a `Cluster`. */
export type RedisConnection = Redis | Cluster;
