/**
 * The extension point of the interop suite: every primitive's Java interop scenarios run inside the one
 * suite per Redisson version (one redis-server, one JVM per version serving every primitive), so CI does
 * not start a JVM per primitive. A primitive adds a module exporting an {@link InteropScenarios} and lists
 * it in ./primitives.ts.
 */
import type { Redis } from 'ioredis';
import type { Clients, TestRedis } from '../../support/redis.js';
import type { JavaPeer } from '../JavaPeer.js';
import type { Direction, ResultsRecorder } from './results.js';

export interface InteropContext {
  /** The pinned Redisson version of this run (`4.7.0`, `3.52.0`, `3.17.7`). */
  readonly version: string;
  /** The Java peer (default `lockWatchdogTimeout`), connected to {@link redis}. */
  readonly peer: JavaPeer;
  /**
   * The Java peer of the wire-state recordings (default `lockWatchdogTimeout`): nothing on it holds a lock without a
   * lease for minutes before a recording, so no renewal timer of an earlier acquisition fires inside a recorded step
   * (suite.ts says why `peer` cannot promise that).
   */
  readonly wirePeer: JavaPeer;
  /** A second Java peer whose `lockWatchdogTimeout` is {@link shortWatchdogMs}. */
  readonly watchdogPeer: JavaPeer;
  readonly shortWatchdogMs: number;
  readonly redis: TestRedis;
  /** Factory of redisson-ts clients and raw ioredis connections on {@link redis}, closed after the suite. */
  readonly clients: Clients;
  /** A raw connection for assertions on Redis data. */
  readonly raw: Redis;
  readonly results: ResultsRecorder;
  /** How long a waiter may take to wake before a test calls it a hang (10 s; leases are 60 s). */
  readonly hangGuardMs: number;
  /**
   * Registers a matrix row: `primitive` (e.g. `FairLock`) and a one-line title. Register every row for every
   * version; a version without the primitive records `n/a` through {@link notInVersion}.
   */
  row(id: string, primitive: string, title: string): void;
  /**
   * One test that fills `direction`'s cell (or both) of row `id` with `pass` when `fn` resolves. Call it
   * inside your scenarios function (it registers a vitest `it`).
   */
  check(id: string, direction: Direction | 'both', title: string, fn: () => Promise<void>, timeoutMs?: number): void;
  /** One test that records `n/a in this version` for both cells of row `id` (the primitive is missing). */
  notInVersion(id: string, title: string): void;
}

/** A primitive's interop scenarios; called once per version inside the suite's `describe`. */
export type InteropScenarios = (ctx: InteropContext) => void;
