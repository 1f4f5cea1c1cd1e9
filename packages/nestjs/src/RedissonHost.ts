/**
 * One named client's lifecycle in a Nest application: made and connected while the application starts
 * (a provider factory, so the application does not listen before Redis answered), the holds `@WithLock`
 * takes, and the shutdown: `beforeApplicationShutdown` aborts those holds' signals and releases them (before
 * the HTTP server waits for its requests), `onApplicationShutdown` shuts the client down, which drains the
 * unlocks still in flight.
 */
import { setMaxListeners } from 'node:events';
import type { BeforeApplicationShutdown, OnApplicationShutdown } from '@nestjs/common';
import { Redisson, RedissonShutdownError } from 'redisson-ts';
import type { RedissonClientConfig } from './options.js';

/** Makes the client of `config` and waits for Redis to answer (at most the client's `timeout`). */
export async function connectClient(config: RedissonClientConfig): Promise<Redisson> {
  if (config === null || typeof config !== 'object') throw new TypeError('RedissonModule: the options must be an object with `options` or `config`');
  if ((config.options === undefined) === (config.config === undefined)) {
    throw new TypeError('RedissonModule: give exactly one of `options` (Redisson.create) and `config` (a Redisson YAML/JSON file for Redisson.fromConfig)');
  }
  const client = config.config !== undefined ? Redisson.fromConfig(config.config, config.fromConfigOptions) : Redisson.create(config.options);
  try {
    await client.ping();
  } catch (error) {
    await client.shutdown();
    throw error;
  }
  return client;
}

/** Releases one hold taken by `@WithLock` (idempotent). */
type Release = () => Promise<void>;

export class RedissonHost implements BeforeApplicationShutdown, OnApplicationShutdown {
  readonly #holds = new Set<Release>();
  readonly #closing = new AbortController();

  constructor(
    readonly name: string,
    readonly client: Redisson,
  ) {
    // Every running @WithLock method's wait and signal listen to it.
    setMaxListeners(0, this.#closing.signal);
  }

  /** Aborted (with `RedissonShutdownError`) when the application shuts down. */
  get closingSignal(): AbortSignal {
    return this.#closing.signal;
  }

  /** Tracks a hold until it is released; returns the function that forgets it. */
  track(release: Release): () => void {
    this.#holds.add(release);
    return () => this.#holds.delete(release);
  }

  /** Aborts the signals of running `@WithLock` methods and releases their holds. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.#closing.signal.aborted) this.#closing.abort(new RedissonShutdownError(`the application is shutting down (Redisson client "${this.name}")`));
    const holds = [...this.#holds];
    this.#holds.clear();
    // A release that fails (the lock was lost meanwhile, Redis is down) must not stop the others.
    await Promise.allSettled(holds.map((release) => release()));
  }

  /** Shuts the client down: in-flight unlocks are answered before its connections close. */
  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    await this.client.shutdown();
  }
}
