/**
 * Every primitive's interop scenarios besides RLock's (which live in ./suite.ts). Add one import and one
 * entry per primitive; each runs inside the per-version suite, on the shared JVMs and redis-server.
 */
import type { InteropScenarios } from './context.js';

export const PRIMITIVE_SCENARIOS: readonly InteropScenarios[] = [];
