/**
 * `redisson-ts-otel`: OpenTelemetry spans and metrics for redisson-ts locks, semaphores and latches, from
 * the library's diagnostics channels.
 * @packageDocumentation
 */
export { RedissonInstrumentation, type RedissonInstrumentationConfig } from './RedissonInstrumentation.js';
export { DURATION_BUCKETS, METRIC_NAMES, SPAN_NAMES } from './attributes.js';
export { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
