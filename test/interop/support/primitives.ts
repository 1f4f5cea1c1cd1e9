/**
 * Every primitive's interop scenarios besides RLock's (which live in ./suite.ts). Add one import and one
 * entry per primitive; each runs inside the per-version suite, on the shared JVMs and redis-server.
 */
import type { InteropScenarios } from './context.js';
import { fairLockScenarios } from './fairLock.js';
import { fencedLockScenarios } from './fencedLock.js';
import { nonReentrantLockScenarios } from './nonReentrantLock.js';
import { spinLockScenarios } from './spinLock.js';
import { readWriteLockScenarios } from './readWriteLock.js';
import { semaphoreScenarios } from './semaphore.js';
import { countDownLatchScenarios } from './countDownLatch.js';
import { permitExpirableSemaphoreScenarios } from './permitExpirableSemaphore.js';
import { objectMethodsScenarios } from './objectMethods.js';
import { listenerScenarios } from './listeners.js';

export const PRIMITIVE_SCENARIOS: readonly InteropScenarios[] = [
  fencedLockScenarios,
  spinLockScenarios,
  nonReentrantLockScenarios,
  readWriteLockScenarios,
  fairLockScenarios,
  semaphoreScenarios,
  permitExpirableSemaphoreScenarios,
  countDownLatchScenarios,
  objectMethodsScenarios,
  listenerScenarios,
];
