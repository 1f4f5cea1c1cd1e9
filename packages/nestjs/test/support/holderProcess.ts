/**
 * A Nest application in a process of its own (run with tsx by shutdown.e2e.test.ts): `GET /hold/:id` takes a
 * watchdog lock `job:<id>` with `@WithLock` and keeps it until its signal aborts. Prints `{"port":…}` once
 * listening; shutdown hooks on, so SIGTERM closes the application. Nest's default `abortOnError`: a start-up
 * failure is logged and the process exits with code 1.
 */
import 'reflect-metadata';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { currentLockSignal, RedissonModule, WithLock } from 'redisson-ts-nestjs';

@Controller()
class HoldController {
  @Get('hold/:id')
  @WithLock('job:{0}')
  async hold(@Param('id') _id: string): Promise<{ released: boolean }> {
    const signal = currentLockSignal();
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return { released: signal.aborted };
  }
}

async function main(): Promise<void> {
  @Module({ imports: [RedissonModule.forRoot({ options: { redis: process.env.REDIS_URL ?? '', timeout: Number(process.env.REDISSON_TIMEOUT ?? 3000) } })], controllers: [HoldController] })
  class HolderModule {}
  const app = await NestFactory.create(HolderModule, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const address = (app.getHttpServer() as { address(): { port: number } }).address();
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
}

void main();
