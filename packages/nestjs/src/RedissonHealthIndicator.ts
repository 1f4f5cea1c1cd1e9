/**
 * A health indicator for `@nestjs/terminus` (`HealthCheckService.check([() => indicator.isHealthy('redis')])`):
 * the command connection answers `PING` (round trip in the result), the subscriber connection's state, and
 * optionally a `tryLock` probe on a named key. It returns Terminus' result shape, `{ [key]: { status, … } }`,
 * without importing Terminus, so the module does not need it installed.
 */
import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Redisson } from 'redisson-ts';
import { getRedissonToken } from './tokens.js';

export interface RedissonHealthOptions {
  /** The client's name; default the default client. */
  readonly client?: string;
  /** Also take and release this lock with a single attempt (`tryLock`); a lock held elsewhere counts as up. */
  readonly lockProbe?: string;
}

/** Terminus' `HealthIndicatorResult`. */
export type RedissonHealthResult = Record<string, { status: 'up' | 'down'; [detail: string]: unknown }>;

// Subscriber states that are healthy: connected, or not needed yet (it connects on the first wait).
const SUBSCRIBER_OK = new Set(['ready', 'wait', 'connect', 'connecting']);

@Injectable()
export class RedissonHealthIndicator {
  constructor(@Inject(ModuleRef) private readonly moduleRef: ModuleRef) {}

  async isHealthy(key: string, options: RedissonHealthOptions = {}): Promise<RedissonHealthResult> {
    const client = this.moduleRef.get<Redisson>(getRedissonToken(options.client), { strict: false });
    const state = client.connectionStatus();
    const details: Record<string, unknown> = { connection: state.command, subscriber: state.subscriber };
    try {
      details.rttMs = Math.round((await client.ping()) * 100) / 100;
      if (options.lockProbe !== undefined) {
        const hold = await client.getLock(options.lockProbe).tryAcquire({ leaseTime: Math.max(1_000, client.options.timeout) });
        details.lockProbe = hold ? 'acquired' : 'held elsewhere';
        await hold?.release();
      }
    } catch (error) {
      return { [key]: { status: 'down', ...details, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) } };
    }
    const subscriberOk = SUBSCRIBER_OK.has(state.subscriber);
    return { [key]: { status: subscriberOk ? 'up' : 'down', ...details } };
  }
}
