/**
 * `@WithLock` in real Nest applications (Express and Fastify) over a real redis-server: concurrent HTTP
 * requests never interleave inside the lock, a wait that runs out is HTTP 409 (or the configured value), and
 * every lock kind runs the method inside its hold.
 */
import { getEventListeners } from 'node:events';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson } from 'redisson-ts';
import { RedissonModule } from 'redisson-ts-nestjs';
import type { RedissonHost } from '../src/RedissonHost.js';
import { getRedissonHostToken } from '../src/tokens.js';
import { startRedis, uniqueName, type TestRedis } from '../../../test/support/redis.js';
import { appModule, createApp, inside, type Platform } from './support/apps.js';

let redis: TestRedis;
let peer: Redisson;
const apps = new Map<Platform, INestApplication>();

beforeAll(async () => {
  redis = await startRedis();
  peer = Redisson.create({ redis: redis.url });
  for (const platform of ['express', 'fastify'] as const) {
    apps.set(platform, await createApp(platform, appModule([RedissonModule.forRoot({ options: { redis: redis.url } })])));
  }
});

afterAll(async () => {
  for (const app of apps.values()) await app.close();
  await peer?.shutdown();
  await redis?.stop();
});

const server = (platform: Platform): App => apps.get(platform)!.getHttpServer() as App;

describe('@WithLock over HTTP, Express and Fastify applications on one Redis', () => {
  it('60 concurrent requests split over both applications never interleave: the counter is exact', async () => {
    const id = uniqueName('c');
    inside.max = 0;
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => request(server(i % 2 === 0 ? 'express' : 'fastify')).post(`/counter/${id}`)),
    );
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 60 }, () => 201));
    expect(Number(await peer.redis.get(`count:${id}`))).toBe(60);
    expect(inside.max).toBe(1);
    expect(await peer.redis.exists(`counter:${id}`)).toBe(0);
    // Every call's listener on the application's closing signal went with the call.
    for (const app of apps.values()) expect(getEventListeners(app.get<RedissonHost>(getRedissonHostToken()).closingSignal, 'abort')).toEqual([]);
  });

  for (const platform of ['express', 'fastify'] as const) {
    it(`${platform}: a held lock makes the waitTime run out → 409 with LockWaitTimeoutError's message; onTimeout: { return } answers the value`, async () => {
      const id = uniqueName('b');
      const hold = await peer.getLock(`busy:${id}`).acquire();
      try {
        const conflict = await request(server(platform)).get(`/busy/${id}`);
        expect(conflict.status).toBe(409);
        expect(conflict.body).toMatchObject({ statusCode: 409, error: 'Conflict', lockName: `busy:${id}` });
        expect((conflict.body as { message: string }).message).toContain('within 200 ms');
        const soft = await request(server(platform)).get(`/soft/${id}`);
        expect(soft.status).toBe(200);
        expect(soft.body).toEqual({ skipped: true });
      } finally {
        await hold.release();
      }
      expect((await request(server(platform)).get(`/busy/${id}`)).body).toEqual({ ran: id });
    });
  }

  it('a @WithLock method calling another of the same lock re-enters it (hold count 2), as a Java thread re-enters its RLock', async () => {
    const id = uniqueName('n');
    const reply = await request(server('fastify')).get(`/nested/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ inner: ['2'], outer: ['1'] });
    expect(await peer.redis.exists(`n:${id}`)).toBe(0);
  });

  it('each kind runs the method inside its hold, with its signal (and the fencing token), and releases it', async () => {
    const id = uniqueName('k');
    const get = async (kind: string): Promise<Record<string, unknown>> => {
      const reply = await request(server('express')).get(`/inside/${kind}/${id}`);
      expect(reply.status).toBe(200);
      return reply.body as Record<string, unknown>;
    };
    for (const kind of ['lock', 'fair', 'read', 'write']) {
      expect(await get(kind)).toMatchObject({ name: `k:${id}`, aborted: false, token: null, type: 'hash' });
      expect(await peer.getLock(`k:${id}`).isLocked()).toBe(false);
    }
    const first = await get('fenced');
    const second = await get('fenced');
    expect(first).toMatchObject({ type: 'hash', aborted: false });
    expect(second.token).toBe((first.token as number) + 1);
    await peer.getSemaphore(`sem-${id}`).trySetPermits(0); // an unrelated name: trySetPermits below is on the method's
    expect(await peer.getSemaphore(`k:${id}`).trySetPermits(3)).toBe(true);
    expect(await get('semaphore')).toMatchObject({ type: 'string', aborted: false, permitsLeft: 1 });
    expect(await peer.getSemaphore(`k:${id}`).availablePermits()).toBe(3);
  });
});
