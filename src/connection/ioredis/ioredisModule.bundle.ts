/**
 * The published build's ioredis loader (see ioredisModule.ts): a literal `require('ioredis')` inside `try`, made
 * on the first `Redisson.create`, so that bundlers follow it and an app without ioredis (an optional peer
 * dependency) gets RedisDriverMissingError naming the install command instead of a failed import.
 */
import type * as Ioredis from 'ioredis';
import { driverMissing, isModuleMissing } from './driverMissing.js';

export type IoredisModule = typeof Ioredis;

export function loadIoredis(): IoredisModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the point: a require() bundlers follow
    return require('ioredis') as IoredisModule;
  } catch (error) {
    if (isModuleMissing(error, 'ioredis')) throw driverMissing(error);
    throw error;
  }
}
