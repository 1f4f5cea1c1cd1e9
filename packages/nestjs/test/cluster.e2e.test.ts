/**
 * Redis Cluster through the same module options: `options.redis: { clusterNodes }`, and a Redisson YAML file with
 * `clusterServersConfig`. `@WithLock` serialises concurrent requests and the method sees its hold on the slot's master.
 */
import type { INestApplication } from '@nestjs/common';
import { Cluster } from 'ioredis';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedissonModule } from 'redisson-ts-nestjs';
import { startCluster, type TestCluster } from '../../../test/support/cluster.js';
import { uniqueName } from '../../../test/support/redis.js';
import { configFile, removeConfigFiles } from './support/configFile.js';
import { appModule, createApp, inside } from './support/apps.js';

let cluster: TestCluster;
let raw: Cluster;
const apps: INestApplication[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  raw = new Cluster([...cluster.startupNodes]);
}, 120_000);

afterAll(removeConfigFiles);
afterAll(async () => {
  for (const app of apps) await app.close();
  raw?.disconnect();
  await cluster?.stop();
});

describe('RedissonModule on Redis Cluster', () => {
  it('options ({ clusterNodes }) and a YAML file (clusterServersConfig): holds on the cluster, concurrent requests never interleave', async () => {
    const addresses = cluster.startupNodes.map((n) => `    - "redis://${n.host}:${n.port}"`).join('\n');
    const file = configFile(`clusterServersConfig:\n  nodeAddresses:\n${addresses}\n`);
    apps.push(await createApp('express', appModule([RedissonModule.forRoot({ options: { redis: { clusterNodes: [...cluster.startupNodes] } } })])));
    apps.push(await createApp('fastify', appModule([RedissonModule.forRoot({ config: file })])));
    for (const app of apps) {
      const id = uniqueName('cl');
      const reply = await request(app.getHttpServer() as App).get(`/inside/lock/${id}`);
      expect(reply.body).toMatchObject({ name: `k:${id}`, type: 'hash', aborted: false });
      expect(await raw.exists(`k:${id}`)).toBe(0);
    }
    const id = uniqueName('cl');
    inside.max = 0;
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => request(apps[i % 2]!.getHttpServer() as App).post(`/counter/${id}`)));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 201));
    expect(await raw.get(`count:${id}`)).toBe('30');
    expect(inside.max).toBe(1);
  });
});
