/**
 * RedissonModule in real Nest applications: several named clients on several servers, forRootAsync over
 * `@nestjs/config`'s ConfigService with a Redisson YAML file, start-up against an unreachable Redis, and the
 * Terminus health endpoint while Redis is stopped and after it is back.
 */
import { Controller, Get, Inject, Module, Param, type INestApplication } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { HealthCheck, HealthCheckService, TerminusModule, type HealthCheckResult } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnectionError, type Redisson } from 'redisson-ts';
import { currentLock, getRedissonToken, InjectRedisson, RedissonHealthIndicator, RedissonModule, WithLock } from 'redisson-ts-nestjs';
import { freePort } from '../../cli/src/RedisServerProcess.js';
import { eventually, startRedis, uniqueName, type TestRedis } from '../../../test/support/redis.js';
import { configFile, removeConfigFiles } from './support/configFile.js';
import { appModule, createApp } from './support/apps.js';

@Controller()
class TwoClientsController {
  constructor(
    @InjectRedisson('orders') private readonly orders: Redisson,
    @InjectRedisson('billing') private readonly billing: Redisson,
  ) {}

  @Get('ports')
  ports(): number[] {
    return [this.orders.redis.options.port ?? 0, this.billing.redis.options.port ?? 0];
  }

  @Get('bill/:id')
  @WithLock('invoice:{0}', { client: 'billing' })
  async bill(@Param('id') _id: string): Promise<{ name: string; onBilling: number; onOrders: number }> {
    const name = currentLock()?.name ?? '';
    return { name, onBilling: await this.billing.redis.exists(name), onOrders: await this.orders.redis.exists(name) };
  }
}

@Controller('health')
class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(RedissonHealthIndicator) private readonly redisson: RedissonHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.redisson.isHealthy('redis', { lockProbe: 'health:probe' })]);
  }
}

@Controller('scoped')
class ScopedController {
  constructor(@InjectRedisson('scoped') private readonly redisson: Redisson) {}

  @Get()
  port(): number {
    return this.redisson.redis.options.port ?? 0;
  }
}

let a: TestRedis;
let b: TestRedis;
const opened: INestApplication[] = [];
const open = async (app: Promise<INestApplication>): Promise<INestApplication> => {
  const made = await app;
  opened.push(made);
  return made;
};

beforeAll(async () => {
  [a, b] = await Promise.all([startRedis({ own: true }), startRedis({ own: true })]);
});

afterAll(removeConfigFiles);
afterAll(async () => {
  for (const app of opened) await app.close();
  await a?.stop();
  await b?.stop();
});

describe('RedissonModule', () => {
  it('two named clients on two servers: each token injects its own; @WithLock({ client }) locks on that one', async () => {
    const app = await open(
      createApp(
        'express',
        appModule(
          [RedissonModule.forRoot({ name: 'orders', options: { redis: a.url } }), RedissonModule.forRoot({ name: 'billing', options: { redis: b.url } })],
          [TwoClientsController],
        ),
      ),
    );
    const server = app.getHttpServer() as App;
    expect((await request(server).get('/ports')).body).toEqual([a.port, b.port]);
    const id = uniqueName('inv');
    expect((await request(server).get(`/bill/${id}`)).body).toEqual({ name: `invoice:${id}`, onBilling: 1, onOrders: 0 });
    expect(app.get<Redisson>(getRedissonToken('billing')).redis.options.port).toBe(b.port);
  });

  it('isGlobal: false — the module importing it injects the client; a module that does not cannot resolve it', async () => {
    const scoped = (): ReturnType<typeof RedissonModule.forRoot> => RedissonModule.forRoot({ name: 'scoped', isGlobal: false, options: { redis: a.url } });
    @Module({ imports: [scoped()], controllers: [ScopedController] })
    class FeatureModule {}
    const app = await open(createApp('express', appModule([FeatureModule], [])));
    expect((await request(app.getHttpServer() as App).get('/scoped')).text).toBe(String(a.port));

    @Module({ controllers: [ScopedController] })
    class OtherModule {}
    const failed = await createApp('express', appModule([scoped(), OtherModule], [])).then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(failed)).toMatch(/can't resolve dependencies of the ScopedController/);
  });

  it('forRootAsync with ConfigService: the factory points the client at a Redisson YAML file (fromConfig)', async () => {
    const file = configFile(`singleServerConfig:\n  address: "redis://127.0.0.1:${b.port}"\n  database: 2\nlockWatchdogTimeout: 9000\n`);
    const app = await open(
      createApp(
        'fastify',
        appModule([
          ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ redisson: { file } })] }),
          RedissonModule.forRootAsync({
            imports: [ConfigModule],
            inject: [ConfigService],
            useFactory: (config: ConfigService) => ({ config: config.getOrThrow<string>('redisson.file') }),
          }),
        ]),
      ),
    );
    const client = app.get<Redisson>(getRedissonToken());
    expect(client.options.lockWatchdogTimeout).toBe(9000);
    const id = uniqueName('k');
    const reply = await request(app.getHttpServer() as App).get(`/inside/lock/${id}`);
    expect(reply.body).toMatchObject({ name: `k:${id}`, type: 'hash' });
    const db2 = new Redis({ port: b.port, db: 2 });
    try {
      await db2.set(`seen:${id}`, '1');
      expect(await client.redis.get(`seen:${id}`)).toBe('1');
    } finally {
      db2.disconnect();
    }
  });

  it('start-up with Redis unreachable fails with RedisConnectionError within timeout (nothing listens)', async () => {
    const port = await freePort();
    const failed = createApp('express', appModule([RedissonModule.forRoot({ options: { redis: `redis://127.0.0.1:${port}`, timeout: 500 } })]));
    const error = await failed.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisConnectionError);
    expect((error as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}: gave up after \\d+ ms \\(timeout 500 ms\\)`));
  });

  it('health: up with RTT and the tryLock probe; down while Redis is stopped; up again after it restarts', async () => {
    const app = await open(
      createApp(
        'express',
        appModule(
          [TerminusModule.forRoot({ logger: false }), RedissonModule.forRoot({ options: { redis: a.url, timeout: 500 } })],
          [HealthController],
          [RedissonHealthIndicator],
        ),
      ),
    );
    const server = app.getHttpServer() as App;
    const up = await request(server).get('/health');
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', info: { redis: { status: 'up', connection: 'ready', lockProbe: 'acquired' } } });
    expect(typeof (up.body as { info: { redis: { rttMs: unknown } } }).info.redis.rttMs).toBe('number');

    await a.server!.kill();
    const down = await request(server).get('/health');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'error', error: { redis: { status: 'down' } } });
    expect((down.body as { error: { redis: { error: string } } }).error.redis.error).toMatch(/^RedisConnectionError|^ConnectionLostError/);

    await a.server!.restart();
    await eventually(async () => (await request(server).get('/health')).status === 200, 15_000, 'health to be up again');
  });
});
