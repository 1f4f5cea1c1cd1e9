/**
 * redisson-ts-otel with the OpenTelemetry SDK and console exporters: one client holds a lock, a second
 * waits for it and is woken by the unlock; the spans print as they end, the metrics at the end.
 *
 *   npm install && REDIS_URL=redis://127.0.0.1:6379 npm start
 *
 * In a service the SDK is set up once at start (e.g. `@opentelemetry/sdk-node`'s NodeSDK with
 * `instrumentations: [new RedissonInstrumentation()]`), and exporters send to a collector.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { metrics, trace } from '@opentelemetry/api';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redisson } from 'redisson-ts';
import { RedissonInstrumentation } from 'redisson-ts-otel';

const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] });
trace.setGlobalTracerProvider(tracerProvider);
const reader = new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter(), exportIntervalMillis: 60_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);

// Tracer and meter from the global providers set above.
const instrumentation = new RedissonInstrumentation();
const redis = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const [a, b] = [Redisson.create({ redis, lockWatchdogTimeout: 3_000 }), Redisson.create({ redis })];
try {
  const first = a.getLock('example:otel');
  await first.lock(); // the watchdog renews it every second while held
  const second = b.getLock('example:otel');
  const waiting = second.tryLock(10_000, 5_000);
  await sleep(1_500);
  await first.unlock(); // wakes b's wait
  console.log('b acquired:', await waiting);
  await second.unlock();
} finally {
  instrumentation.disable();
  await Promise.all([a.shutdown(), b.shutdown()]);
  await reader.forceFlush();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
}
