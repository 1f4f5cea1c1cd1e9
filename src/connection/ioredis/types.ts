/**
 * The ioredis types the rest of the library names (the `redis` option, the client's `redis`/`connection`
 * getters, Redisson-config translation): imported here only, so that the client library is named in one folder.
 */
import type { Cluster, Redis } from 'ioredis';

export type { ChainableCommander, Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/** A command connection as ioredis makes it: a standalone (or Sentinel) `Redis`, or a `Cluster`. */
export type RedisConnection = Redis | Cluster;

/**
 * An ioredis-shaped `Redis` from another package — iovalkey, or another copy of ioredis — declared by the members
 * we use, since TypeScript does not take a fork's classes for ioredis' (protected members, newer methods).
 */
export interface IoredisLikeRedis {
  /** Its ioredis options (host, port, db, keyPrefix, Sentinel fields…). */
  readonly options: object;
  /** Its connection status (`'ready'`, `'reconnecting'`…). */
  readonly status: string;
  /** Makes the subscriber connection. */
  duplicate(...args: never[]): unknown;
  /** Defines our scripts (EVALSHA with NOSCRIPT fallback). */
  defineCommand(...args: never[]): unknown;
  /** Sends a command. */
  sendCommand(...args: never[]): unknown;
}

/** An ioredis-shaped `Cluster` from another package (iovalkey, another copy of ioredis), declared the same way. */
export interface IoredisLikeCluster {
  /** Its ioredis `Cluster` options. */
  readonly options: object;
  /** Its connection status. */
  readonly status: string;
  /** Its node connections (whose addresses Redisson connects to). */
  nodes(...args: never[]): unknown;
  /** Makes a second cluster connection. */
  duplicate(...args: never[]): unknown;
  /** Defines our scripts. */
  defineCommand(...args: never[]): unknown;
}

/** ioredis options as a fork declares them too: its `Connector` class is not ioredis' to TypeScript. */
export type IoredisLikeOptions = Omit<import('ioredis').RedisOptions, 'Connector'> & {
  /** The fork's own connector class, if any. */
  readonly Connector?: unknown;
};
