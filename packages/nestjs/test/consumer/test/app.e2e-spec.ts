import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import request from 'supertest';
import { App } from 'supertest/types';
import { Redisson } from 'redisson-ts';
import { AppModule } from '../src/app.module';

describe('AppController (e2e) over the packed redisson-ts and redisson-ts-nestjs', () => {
  let app: INestApplication<App>;
  let other: Redisson;

  beforeAll(async () => {
    const moduleFixture: TestingModule = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication();
    await app.init();
    other = Redisson.create({ redis: process.env.REDIS_URL });
  });

  afterAll(async () => {
    await app.close();
    await other.shutdown();
  });

  it('POST /counter/:id 40 times at once: @WithLock never interleaves, the counter is exact', async () => {
    const id = `c${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 40 }, () => request(app.getHttpServer()).post(`/counter/${id}`)));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(Number(await other.redis.get(`count:${id}`))).toBe(40);
  });

  it('GET /busy/:id while another client holds the lock: 409', async () => {
    const id = `b${Date.now()}`;
    const hold = await other.getLock(`busy:${id}`).acquire();
    try {
      const reply = await request(app.getHttpServer()).get(`/busy/${id}`);
      expect(reply.status).toBe(409);
      expect(reply.body.lockName).toBe(`busy:${id}`);
    } finally {
      await hold.release();
    }
    expect((await request(app.getHttpServer()).get(`/busy/${id}`)).body).toEqual({ ran: id });
  });
});
