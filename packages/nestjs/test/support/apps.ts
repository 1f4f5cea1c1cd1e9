/**
 * The Nest applications the e2e tests run: real controllers with `@WithLock` endpoints, on Express or Fastify,
 * over a real redis-server. Constructor parameters use explicit `@Inject` so the same classes also run where
 * no decorator metadata is emitted (tsx/esbuild in the shutdown child process).
 */
import 'reflect-metadata';
import { Controller, Get, Module, Param, Post, type INestApplication, type ModuleMetadata, type Type } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Redisson } from 'redisson-ts';
import { currentLock, currentLockSignal, InjectRedisson, LockWaitTimeoutFilter, WithLock } from 'redisson-ts-nestjs';

export type Platform = 'express' | 'fastify';

/** How many `@WithLock('counter:…')` bodies run at once, across every application of the process. */
export const inside = { now: 0, max: 0 };

@Controller()
export class LockController {
  constructor(@InjectRedisson() private readonly redisson: Redisson) {}

  // Read, yield to the event loop and Redis, write: two bodies interleaving would lose an increment.
  @Post('counter/:id')
  @WithLock('counter:{0}')
  async increment(@Param('id') id: string): Promise<{ value: number }> {
    inside.max = Math.max(inside.max, ++inside.now);
    try {
      const value = Number((await this.redisson.redis.get(`count:${id}`)) ?? 0);
      await new Promise((resolve) => setImmediate(resolve));
      await this.redisson.redis.set(`count:${id}`, value + 1);
      return { value: value + 1 };
    } finally {
      inside.now--;
    }
  }

  @Get('busy/:id')
  @WithLock('busy:{0}', { waitTime: 200 })
  busy(@Param('id') id: string): { ran: string } {
    return { ran: id };
  }

  @Get('soft/:id')
  @WithLock((args) => `busy:${String(args[0])}`, { waitTime: 200, onTimeout: { return: { skipped: true } } })
  soft(@Param('id') id: string): { ran: string } {
    return { ran: id };
  }

  // A @WithLock method calling another of the same lock: re-entry (hold count 2), not a wait for itself.
  @Get('nested/:id')
  @WithLock('n:{0}', { waitTime: 1_000 })
  async outer(@Param('id') id: string): Promise<{ inner: string[]; outer: string[] }> {
    const inner = await this.inner(id);
    return { inner, outer: await this.redisson.redis.hvals(`n:${id}`) };
  }

  @WithLock('n:{0}', { waitTime: 1_000 })
  async inner(id: string): Promise<string[]> {
    return this.redisson.redis.hvals(`n:${id}`);
  }

  // What the method sees of its hold, and what Redis holds meanwhile.
  @Get('inside/:kind/:id')
  async inspect(@Param('kind') kind: string, @Param('id') id: string): Promise<unknown> {
    const o = { id };
    const methods: Record<string, () => Promise<unknown>> = {
      lock: () => this.plain(o),
      fair: () => this.fair(o),
      read: () => this.read(o),
      write: () => this.write(o),
      fenced: () => this.fenced(o),
      semaphore: () => this.semaphore(o),
    };
    return methods[kind]?.() ?? { error: `no kind ${kind}` };
  }

  private async seen(): Promise<unknown> {
    const lock = currentLock();
    const name = lock?.name ?? '';
    return { name, aborted: currentLockSignal().aborted, token: lock?.token ?? null, type: await this.redisson.redis.type(name), keys: (await this.redisson.redis.keys(`*${name}*`)).sort() };
  }

  @WithLock('k:{0.id}', { kind: 'lock' })
  plain(_o: { id: string }): Promise<unknown> {
    return this.seen();
  }

  @WithLock('k:{0.id}', { kind: 'fair', waitTime: 5_000, leaseTime: 10_000 })
  fair(_o: { id: string }): Promise<unknown> {
    return this.seen();
  }

  @WithLock('k:{0.id}', { kind: 'read' })
  read(_o: { id: string }): Promise<unknown> {
    return this.seen();
  }

  @WithLock('k:{0.id}', { kind: 'write' })
  write(_o: { id: string }): Promise<unknown> {
    return this.seen();
  }

  @WithLock('k:{0.id}', { kind: 'fenced' })
  fenced(_o: { id: string }): Promise<unknown> {
    return this.seen();
  }

  @WithLock('k:{0.id}', { kind: 'semaphore', permits: 2, waitTime: 1_000 })
  async semaphore(o: { id: string }): Promise<unknown> {
    return { ...((await this.seen()) as object), permitsLeft: await this.redisson.getSemaphore(`k:${o.id}`).availablePermits() };
  }
}

/** A root module importing `imports`, with `controllers`. */
export function appModule(imports: NonNullable<ModuleMetadata['imports']>, controllers: Type[] = [LockController], providers: NonNullable<ModuleMetadata['providers']> = []): Type {
  @Module({ imports, controllers, providers })
  class AppModule {}
  return AppModule;
}

/** Creates (not listening) an application on `platform`, with the 409 filter; rejects when start-up fails. */
export async function createApp(platform: Platform, module: Type): Promise<INestApplication> {
  const options = { logger: false as const, abortOnError: false };
  const app: INestApplication =
    platform === 'express' ? await NestFactory.create(module, new ExpressAdapter(), options) : await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), options);
  app.useGlobalFilters(new LockWaitTimeoutFilter(app.get(HttpAdapterHost)));
  await app.init();
  if (platform === 'fastify') await (app as NestFastifyApplication).getHttpAdapter().getInstance().ready();
  return app;
}
