import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LockWaitTimeoutFilter, RedissonModule } from 'redisson-ts-nestjs';
import { AppController } from './app.controller';

@Module({
  imports: [RedissonModule.forRoot({ options: { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } })],
  controllers: [AppController],
  providers: [{ provide: APP_FILTER, useClass: LockWaitTimeoutFilter }],
})
export class AppModule {}
