/**
 * The real OpenTelemetry SDK with in-memory exporters, for the instrumentation's tests: spans as exported
 * when they end, metrics as a cumulative export on demand.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Attributes } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface Sdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly spans: InMemorySpanExporter;
  /** The data points of `metric` now (an export forced through the in-memory exporter). */
  points(metric: string): Promise<DataPoint<number | Histogram>[]>;
  /** The unit of `metric` as exported. */
  unit(metric: string): Promise<string | undefined>;
  shutdown(): Promise<void>;
}

export function startSdk(): Sdk {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when forced (the interval is a day).
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 86_400_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const latest = async () => {
    exporter.reset();
    await reader.forceFlush();
    return exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
  };
  return {
    tracerProvider,
    meterProvider,
    spans,
    points: async (metric) => ((await latest()).find((m) => m.descriptor.name === metric)?.dataPoints ?? []) as DataPoint<number | Histogram>[],
    unit: async (metric) => (await latest()).find((m) => m.descriptor.name === metric)?.descriptor.unit,
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/**
 * The ended spans about lock `name`, in the order they ended. (Not by start time: the SDK anchors each
 * trace's clock on its own, so start times of different traces may be out of order by up to a millisecond.)
 */
export function spansOf(sdk: Sdk, name: string): ReadableSpan[] {
  return sdk.spans.getFinishedSpans().filter((s) => s.attributes['redisson.name'] === name);
}

/** Resolves when a client starts waiting for a release message of `name` (the library's own wait event). */
export function waitStarted(name: string): Promise<void> {
  return new Promise((resolve) => {
    const onStart = (message: unknown): void => {
      if ((message as Attributes)['name'] !== name) return;
      diagnosticsChannel.unsubscribe('tracing:redisson-ts:wait:start', onStart);
      resolve();
    };
    diagnosticsChannel.subscribe('tracing:redisson-ts:wait:start', onStart);
  });
}
