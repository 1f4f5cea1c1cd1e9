/**
 * OpenTelemetry instrumentation for redisson-ts, built only on the library's `node:diagnostics_channel`
 * tracing channels (`redisson-ts:acquire|wait|release|renewal|lost`): nothing is patched, and the library
 * does not depend on OpenTelemetry. Shaped like OpenTelemetry JS instrumentations (the `Instrumentation`
 * interface of `@opentelemetry/instrumentation`, so `registerInstrumentations` accepts it): enabled on
 * construction, `enable()`/`disable()`, `setTracerProvider()`/`setMeterProvider()`, `getConfig()`/`setConfig()`;
 * the tracer and meter come from the global providers unless providers are passed in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type MeterProvider, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { DIAGNOSTICS_CHANNELS, type AcquireContext, type LostContext, type ReleaseContext, type RenewalContext, type WaitContext } from 'redisson-ts';
import { SPAN_NAMES, seconds, targetAttributes } from './attributes.js';
import { Instruments } from './instruments.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

/** Options of {@link RedissonInstrumentation}. */
export interface RedissonInstrumentationConfig {
  /** Subscribe to the channels at construction (as OpenTelemetry's instrumentations do). @default true */
  enabled?: boolean;
  /** Where spans go. @default the global tracer provider (`trace.getTracerProvider()`), looked up per span */
  tracerProvider?: TracerProvider;
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`), followed if it is set later */
  meterProvider?: MeterProvider;
  /** Also a span per watchdog renewal batch (every `lockWatchdogTimeout / 3` while locks are held). @default false: renewals are counted only */
  renewalSpans?: boolean;
}

/** The five subscribers of a tracing channel; each gets the channel's context object. */
type Handlers = { start(c: object): void; end(c: object): void; asyncStart(c: object): void; asyncEnd(c: object): void; error(c: object): void };
const none = (): void => undefined;

/**
 * Spans for lock and semaphore acquisitions (`redisson-ts.acquire`, with each wait for a release message
 * as a child `redisson-ts.wait`), releases (`redisson-ts.release`) and lost locks (`redisson-ts.lost`,
 * status ERROR); histograms of wait and hold time (s); counters of watchdog renewals and lost locks.
 * @example
 * ```ts
 * import { RedissonInstrumentation } from 'redisson-ts-otel';
 * const instrumentation = new RedissonInstrumentation(); // after the SDK set the global providers
 * // … on shutdown:
 * instrumentation.disable();
 * ```
 */
export class RedissonInstrumentation {
  /** The instrumentation scope name of its tracer and meter. */
  readonly instrumentationName = PACKAGE_NAME;
  readonly instrumentationVersion = PACKAGE_VERSION;
  #config: RedissonInstrumentationConfig;
  #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #spans = new WeakMap<object, Span>();
  /** The acquire span of the running acquisition, for the waits inside it (bound to the acquire channel). */
  readonly #acquiring = new AsyncLocalStorage<Span | undefined>();
  #subscriptions: [string, Handlers][] = [];

  constructor(config: RedissonInstrumentationConfig = {}) {
    this.#config = { ...config };
    this.#tracer = (config.tracerProvider ?? trace.getTracerProvider()).getTracer(PACKAGE_NAME, PACKAGE_VERSION);
    this.#instruments = new Instruments(config.meterProvider);
    if (config.enabled !== false) this.enable();
  }

  /** Uses `provider` for spans from now on (called by `registerInstrumentations`). */
  setTracerProvider(provider: TracerProvider): void {
    this.#tracer = provider.getTracer(PACKAGE_NAME, PACKAGE_VERSION);
  }

  /** Uses `provider` for metrics from now on (called by `registerInstrumentations`). */
  setMeterProvider(provider: MeterProvider): void {
    this.#instruments.use(provider);
  }

  getConfig(): RedissonInstrumentationConfig {
    return { ...this.#config };
  }

  /** Replaces the options read per event (`renewalSpans`); providers change through the setters. */
  setConfig(config: RedissonInstrumentationConfig = {}): void {
    this.#config = { ...config };
  }

  /** Subscribes to the library's channels (idempotent). */
  enable(): void {
    if (this.#subscriptions.length > 0) return;
    this.#subscriptions = this.#handlers();
    for (const [name, handlers] of this.#subscriptions) diagnosticsChannel.tracingChannel(name).subscribe(handlers);
    // Bound to the acquire channel's start: the span opens as the acquisition runs and is the store of its
    // async scope, so a wait inside it finds its parent even without an OpenTelemetry context manager.
    diagnosticsChannel.tracingChannel(DIAGNOSTICS_CHANNELS.acquire).start.bindStore(this.#acquiring, (c) => this.#open(c as AcquireContext));
  }

  /** Unsubscribes; spans already open are left to end with their operations unrecorded. */
  disable(): void {
    for (const [name, handlers] of this.#subscriptions) diagnosticsChannel.tracingChannel(name).unsubscribe(handlers);
    if (this.#subscriptions.length > 0) diagnosticsChannel.tracingChannel(DIAGNOSTICS_CHANNELS.acquire).start.unbindStore(this.#acquiring);
    this.#subscriptions = [];
  }

  #open(c: AcquireContext): Span {
    const span = this.#tracer.startSpan(SPAN_NAMES.acquire, { kind: SpanKind.INTERNAL, attributes: { ...targetAttributes(c), 'redisson.wait_ms': c.waitMs } });
    this.#spans.set(c, span);
    return span;
  }

  /** Ends the span of `c` after `finish` added the outcome. */
  #close<C extends object>(finish: (c: C, span: Span) => void): (c: object) => void {
    return (c) => {
      const span = this.#spans.get(c);
      if (!span) return;
      this.#spans.delete(c);
      finish(c as C, span);
      span.end();
    };
  }

  /** Records the error of a failed operation on its span (ended by `asyncEnd`, which follows). */
  #fail(c: object): void {
    const error = (c as { error?: unknown }).error;
    const span = this.#spans.get(c);
    span?.recordException(error instanceof Error ? error : String(error));
    span?.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }

  /** A span from `start` to `asyncEnd`, started in the caller's context or under `parent`. */
  #span(name: string, attributes: (c: object) => Attributes, parent?: () => Span | undefined, root = false): (c: object) => void {
    return (c) => {
      const under = parent?.();
      const ctx = under ? trace.setSpan(context.active(), under) : context.active();
      this.#spans.set(c, this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: attributes(c), root }, ctx));
    };
  }

  #handlers(): [string, Handlers][] {
    const fail = (c: object): void => this.#fail(c);
    const m = this.#instruments;
    const renewalSpan = this.#span(SPAN_NAMES.renewal, (c) => ({ 'redisson.renewal_kind': (c as RenewalContext).kind, 'redisson.locks': (c as RenewalContext).locks.length }), undefined, true);
    return [
      [
        DIAGNOSTICS_CHANNELS.acquire,
        {
          start: none, // opened by the bound store
          end: none,
          asyncStart: none,
          error: fail,
          asyncEnd: this.#close<AcquireContext>((c, span) => {
            span.setAttributes({ 'redisson.acquired': c.acquired, 'redisson.waited_ms': c.waitedMs });
            m.get().waitDuration.record(seconds(c.waitedMs), { 'redisson.primitive': c.primitive, 'redisson.acquired': c.acquired });
          }),
        },
      ],
      [
        DIAGNOSTICS_CHANNELS.wait,
        {
          start: this.#span(SPAN_NAMES.wait, (c) => ({ ...targetAttributes(c as WaitContext), 'redisson.channel': (c as WaitContext).channel, 'redisson.timeout_ms': (c as WaitContext).timeoutMs }), () => this.#acquiring.getStore()),
          end: none,
          asyncStart: none,
          error: fail,
          asyncEnd: this.#close<WaitContext>((c, span) => span.setAttributes({ 'redisson.woken': c.woken, 'redisson.waited_ms': c.waitedMs })),
        },
      ],
      [
        DIAGNOSTICS_CHANNELS.release,
        {
          start: this.#span(SPAN_NAMES.release, (c) => targetAttributes(c as ReleaseContext)),
          end: none,
          asyncStart: none,
          error: fail,
          asyncEnd: this.#close<ReleaseContext>((c, span) => {
            span.setAttributes({ 'redisson.released': c.released });
            if (c.heldMs === undefined) return;
            span.setAttributes({ 'redisson.held_ms': c.heldMs });
            m.get().holdDuration.record(seconds(c.heldMs), { 'redisson.primitive': c.primitive });
          }),
        },
      ],
      [
        DIAGNOSTICS_CHANNELS.renewal,
        {
          // The watchdog's timer runs in the context of the lock() that started it: a renewal is its own trace.
          start: (c) => {
            if (this.#config.renewalSpans === true) renewalSpan(c);
          },
          end: none,
          asyncStart: none,
          error: fail,
          asyncEnd: (c) => {
            const r = c as RenewalContext;
            if (r.renewed > 0) m.get().renewals.add(r.renewed, { 'redisson.renewal_kind': r.kind });
            this.#close<RenewalContext>((_, span) => span.setAttributes({ 'redisson.renewed': r.renewed, 'redisson.gone': r.gone }))(c);
          },
        },
      ],
      [
        DIAGNOSTICS_CHANNELS.lost,
        {
          start: this.#span(SPAN_NAMES.lost, (c) => {
            const l = c as LostContext;
            return { 'redisson.name': l.name, 'redisson.renewal_kind': l.kind, 'redisson.client_id': l.clientId, 'redisson.owner': l.owner };
          }, undefined, true),
          // traceSync: `end` closes it.
          end: this.#close<LostContext>((c, span) => {
            if (c.heldMs !== undefined) span.setAttributes({ 'redisson.held_ms': c.heldMs });
            span.setStatus({ code: SpanStatusCode.ERROR, message: `lock '${c.name}' lost` });
            m.get().lost.add(1, { 'redisson.renewal_kind': c.kind });
          }),
          asyncStart: none,
          asyncEnd: none,
          error: fail,
        },
      ],
    ];
  }
}
