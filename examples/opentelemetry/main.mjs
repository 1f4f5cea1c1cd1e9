// Wires the adapter to the OpenTelemetry SDK with console exporters, then takes a lock twice from two
// clients so that one waits: run `npm install && REDIS_URL=redis://127.0.0.1:6379 npm start` here.
import { metrics, trace } from '@opentelemetry/api';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redisson } from '../../src/index.js';
import { instrumentRedisson } from './adapter.ts';

const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] });
trace.setGlobalTracerProvider(tracerProvider);
const reader = new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter(), exportIntervalMillis: 60_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);

const stop = instrumentRedisson({ tracer: trace.getTracer('example'), meter: metrics.getMeter('example') });
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const [a, b] = [Redisson.create({ redis, lockWatchdogTimeout: 3_000 }), Redisson.create({ redis })];
try {
  const first = a.getLock('example:otel');
  await first.lock(); // watchdog: renewed every second while held
  const waiting = b.getLock('example:otel').tryLock(10_000, 5_000);
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await first.unlock(); // wakes b's wait
  console.log('b acquired:', await waiting);
  await b.getLock('example:otel').forceUnlock();
} finally {
  stop();
  await Promise.all([a.shutdown(), b.shutdown()]);
  await reader.forceFlush();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
}
