/**
 * OpenTelemetry spans and metrics for redisson-ts, built only from its `node:diagnostics_channel`
 * tracing channels (`redisson-ts:acquire|wait|release|renewal|lost`): no patching, no dependency of the
 * library on OpenTelemetry. Pass a Tracer and a Meter of `@opentelemetry/api`; the interfaces below are
 * the part of that API this adapter uses, so that it type-checks (and is tested) without OTel installed.
 *
 * Spans: `redisson-ts.acquire`, `redisson-ts.wait`, `redisson-ts.release`, `redisson-ts.renewal`,
 * `redisson-ts.lost`. Metrics: `redisson.lock.wait.duration` and `redisson.lock.hold.duration` (histograms,
 * ms), `redisson.lock.renewals` and `redisson.lock.lost` (counters).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { DIAGNOSTICS_CHANNELS, type AcquireContext, type DiagnosticsTarget, type LostContext, type ReleaseContext, type RenewalContext, type WaitContext } from '../../src/index.js'; // in an app: from 'redisson-ts'

/** `@opentelemetry/api` `Attributes`, as far as this adapter fills them. */
export type Attributes = Record<string, string | number | boolean>;

/** The part of `@opentelemetry/api`'s `Span` used here. */
export interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): void;
  end(): void;
}

/** The part of `@opentelemetry/api`'s `Tracer` used here. */
export interface TracerLike {
  startSpan(name: string, options?: { attributes?: Attributes }): SpanLike;
}

/** The part of `@opentelemetry/api`'s `Meter` used here. */
export interface MeterLike {
  createHistogram(name: string, options?: { description?: string; unit?: string }): { record(value: number, attributes?: Attributes): void };
  createCounter(name: string, options?: { description?: string; unit?: string }): { add(value: number, attributes?: Attributes): void };
}

/** `SpanStatusCode.ERROR` of `@opentelemetry/api`. */
const STATUS_ERROR = 2;

/** Attributes naming the object of an event (the lock name is kept: it is what operators search for). */
function targetAttributes(t: DiagnosticsTarget): Attributes {
  const a: Attributes = { 'redisson.name': t.name, 'redisson.primitive': t.primitive, 'redisson.client_id': t.clientId };
  if (t.owner !== undefined) a['redisson.owner'] = t.owner;
  if (t.permits !== undefined) a['redisson.permits'] = t.permits;
  if (t.leaseMs !== undefined) a['redisson.lease_ms'] = t.leaseMs;
  return a;
}

/** The five subscribers of a tracing channel; each gets the channel's context object. */
type Handlers = { start(c: object): void; end(c: object): void; asyncStart(c: object): void; asyncEnd(c: object): void; error(c: object): void };

/**
 * Subscribes to the channels and turns their events into spans and metrics. Returns the function that
 * unsubscribes.
 * @example
 * ```ts
 * const stop = instrumentRedisson({ tracer: trace.getTracer('orders'), meter: metrics.getMeter('orders') });
 * ```
 */
export function instrumentRedisson({ tracer, meter }: { tracer: TracerLike; meter: MeterLike }): () => void {
  const waitTime = meter.createHistogram('redisson.lock.wait.duration', { unit: 'ms', description: 'Time from an acquire call to its outcome' });
  const holdTime = meter.createHistogram('redisson.lock.hold.duration', { unit: 'ms', description: 'Time from a lock owner first acquiring to its final unlock' });
  const renewals = meter.createCounter('redisson.lock.renewals', { description: 'Watchdog renewals of held locks' });
  const lost = meter.createCounter('redisson.lock.lost', { description: 'Locks the client found lost' });
  const spans = new WeakMap<object, SpanLike>();
  const none = (): void => undefined;

  /** A span from `start` to `asyncEnd` (or `end`, for a synchronous trace), with `finish` adding the outcome. */
  function spanning<C extends object>(name: string, attributes: (c: C) => Attributes, finish: (c: C, span: SpanLike) => void, sync = false): Handlers {
    const close = (c: object): void => {
      const span = spans.get(c);
      if (!span) return;
      spans.delete(c);
      finish(c as C, span);
      span.end();
    };
    return {
      start: (c) => spans.set(c, tracer.startSpan(name, { attributes: attributes(c as C) })),
      end: sync ? close : none,
      asyncStart: none,
      asyncEnd: close,
      error: (c) => {
        const error = (c as { error?: unknown }).error;
        const span = spans.get(c);
        span?.recordException(error instanceof Error ? error : String(error));
        span?.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
      },
    };
  }

  const subscriptions: [string, Handlers][] = [
    [
      DIAGNOSTICS_CHANNELS.acquire,
      spanning<AcquireContext>(
        'redisson-ts.acquire',
        (c) => ({ ...targetAttributes(c), 'redisson.wait_ms': c.waitMs }),
        (c, span) => {
          span.setAttributes({ 'redisson.acquired': c.acquired, 'redisson.waited_ms': c.waitedMs });
          waitTime.record(c.waitedMs, { 'redisson.primitive': c.primitive, 'redisson.acquired': c.acquired });
        },
      ),
    ],
    [
      DIAGNOSTICS_CHANNELS.wait,
      spanning<WaitContext>(
        'redisson-ts.wait',
        (c) => ({ ...targetAttributes(c), 'redisson.channel': c.channel, 'redisson.timeout_ms': c.timeoutMs }),
        (c, span) => span.setAttributes({ 'redisson.woken': c.woken, 'redisson.waited_ms': c.waitedMs }),
      ),
    ],
    [
      DIAGNOSTICS_CHANNELS.release,
      spanning<ReleaseContext>('redisson-ts.release', targetAttributes, (c, span) => {
        span.setAttributes({ 'redisson.released': c.released });
        if (c.heldMs !== undefined) {
          span.setAttributes({ 'redisson.held_ms': c.heldMs });
          holdTime.record(c.heldMs, { 'redisson.primitive': c.primitive });
        }
      }),
    ],
    [
      DIAGNOSTICS_CHANNELS.renewal,
      spanning<RenewalContext>(
        'redisson-ts.renewal',
        (c) => ({ 'redisson.renewal_kind': c.kind, 'redisson.locks': c.locks.length }),
        (c, span) => {
          span.setAttributes({ 'redisson.renewed': c.renewed, 'redisson.gone': c.gone });
          if (c.renewed > 0) renewals.add(c.renewed, { 'redisson.renewal_kind': c.kind });
        },
      ),
    ],
    [
      DIAGNOSTICS_CHANNELS.lost,
      spanning<LostContext>(
        'redisson-ts.lost',
        (c) => ({ 'redisson.name': c.name, 'redisson.renewal_kind': c.kind, 'redisson.client_id': c.clientId, 'redisson.owner': c.owner }),
        (c, span) => {
          if (c.heldMs !== undefined) span.setAttributes({ 'redisson.held_ms': c.heldMs });
          span.setStatus({ code: STATUS_ERROR, message: `lock '${c.name}' lost` });
          lost.add(1, { 'redisson.renewal_kind': c.kind });
        },
        true,
      ),
    ],
  ];
  for (const [name, handlers] of subscriptions) diagnosticsChannel.tracingChannel(name).subscribe(handlers);
  return () => {
    for (const [name, handlers] of subscriptions) diagnosticsChannel.tracingChannel(name).unsubscribe(handlers);
  };
}
