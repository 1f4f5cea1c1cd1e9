/**
 * RedissonInstrumentation with the real OpenTelemetry SDK (in-memory exporters) against a real
 * redis-server: the spans, histograms and counters of a lock whose waiter is woken by another client's
 * unlock, of watchdog renewals and a lost lock (forced by deleting the key under the watchdog), and the
 * global providers (set after the instrumentation was created) followed until `disable()`.
 */
import { readFileSync } from 'node:fs';
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';
import { eventually, uniqueName, useRedis } from '../../../test/support/redis.js';
import { METRIC_NAMES, PACKAGE_NAME, PACKAGE_VERSION, RedissonInstrumentation, SPAN_NAMES } from '../src/index.js';
import { spansOf, startSdk, waitStarted } from './support.js';

const suite = useRedis();
const sdk = startSdk();
const instrumentation = new RedissonInstrumentation({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
afterAll(async () => {
  instrumentation.disable();
  await sdk.shutdown();
});

it('a lock with a waiter woken by another client: acquire, wait (child of its acquire) and release spans, wait and hold histograms', async () => {
  const [a, b] = [suite.clients.client(), suite.clients.client()];
  const name = uniqueName('otel');
  const [lockA, lockB] = [a.getLock(name), b.getLock(name)];
  await lockA.lock(60_000);
  const waiting = waitStarted(name);
  const acquiring = lockB.tryLock(30_000, 60_000);
  await waiting;
  await lockA.unlock();
  expect(await acquiring).toBe(true);
  await lockB.unlock();

  const spans = spansOf(sdk, name);
  const who = (id: unknown): string => (id === a.id ? 'a' : id === b.id ? 'b' : '?');
  const find = (span: string, client: string): ReadableSpan => {
    const found = spans.filter((s) => s.name === span && who(s.attributes['redisson.client_id']) === client);
    expect(found, `${span}@${client}`).toHaveLength(1);
    return found[0] as ReadableSpan;
  };
  expect(spans.map((s) => `${s.name}@${who(s.attributes['redisson.client_id'])}`).sort()).toEqual(
    [`${SPAN_NAMES.acquire}@a`, `${SPAN_NAMES.acquire}@b`, `${SPAN_NAMES.wait}@b`, `${SPAN_NAMES.release}@a`, `${SPAN_NAMES.release}@b`].sort(),
  );
  const [acquireA, acquireB, wait, releaseA, releaseB] = [find(SPAN_NAMES.acquire, 'a'), find(SPAN_NAMES.acquire, 'b'), find(SPAN_NAMES.wait, 'b'), find(SPAN_NAMES.release, 'a'), find(SPAN_NAMES.release, 'b')];
  expect(acquireA.instrumentationScope).toMatchObject({ name: PACKAGE_NAME, version: PACKAGE_VERSION });
  expect(acquireB.attributes).toMatchObject({ 'redisson.primitive': 'RLock', 'redisson.wait_ms': 30_000, 'redisson.lease_ms': 60_000, 'redisson.acquired': true, 'redisson.owner': lockB.threadId });
  expect(wait.attributes).toMatchObject({ 'redisson.woken': true, 'redisson.channel': `redisson_lock__channel:{${name}}` });
  // The wait is a child of b's acquire, in the same trace; the acquisitions are roots (no active context).
  expect(wait.parentSpanContext?.spanId).toBe(acquireB.spanContext().spanId);
  expect(wait.spanContext().traceId).toBe(acquireB.spanContext().traceId);
  expect([acquireA.parentSpanContext, acquireB.parentSpanContext]).toEqual([undefined, undefined]);
  expect(releaseA.attributes).toMatchObject({ 'redisson.released': true, 'redisson.owner': lockA.threadId });
  expect(spans.every((s) => s.status.code === SpanStatusCode.UNSET)).toBe(true);

  // The histograms hold exactly the durations the spans report, in seconds.
  const waited = (await sdk.points(METRIC_NAMES.waitDuration)).filter((p) => p.attributes['redisson.acquired'] === true);
  expect(waited.map((p) => p.attributes)).toEqual([{ 'redisson.primitive': 'RLock', 'redisson.acquired': true }]);
  const waitedHistogram = waited[0]?.value as Histogram;
  expect(waitedHistogram.count).toBe(2);
  expect(waitedHistogram.sum).toBeCloseTo(((acquireA.attributes['redisson.waited_ms'] as number) + (acquireB.attributes['redisson.waited_ms'] as number)) / 1000, 9);
  expect(await sdk.unit(METRIC_NAMES.waitDuration)).toBe('s');
  const held = (await sdk.points(METRIC_NAMES.holdDuration))[0]?.value as Histogram;
  expect(held.count).toBe(2);
  expect(held.sum).toBeCloseTo(((releaseA.attributes['redisson.held_ms'] as number) + (releaseB.attributes['redisson.held_ms'] as number)) / 1000, 9);
});

it('counts watchdog renewals (with renewal spans when asked) and a lost lock, with ERROR spans for the loss and the failing unlock', async () => {
  instrumentation.setConfig({ renewalSpans: true });
  const client = suite.clients.client({ lockWatchdogTimeout: 300 });
  const raw = suite.clients.raw();
  const name = uniqueName('otel-lost');
  const lock = client.getLock(name);
  try {
    await lock.lock(); // the watchdog renews every 100 ms
    await eventually(async () => (await sdk.points(METRIC_NAMES.renewals)).some((p) => (p.value as number) > 0), 10_000, 'a renewal counted');
    const renewal = sdk.spans.getFinishedSpans().find((s) => s.name === SPAN_NAMES.renewal);
    expect(renewal?.attributes).toMatchObject({ 'redisson.renewal_kind': 'lock', 'redisson.renewed': 1, 'redisson.gone': 0 });
    expect(renewal?.parentSpanContext).toBeUndefined();

    await raw.del(name); // the forced loss: the next renewal finds the key gone
    await eventually(async () => (await sdk.points(METRIC_NAMES.lost)).length > 0, 10_000, 'the loss counted');
    expect((await sdk.points(METRIC_NAMES.lost)).map((p) => [p.attributes, p.value])).toEqual([[{ 'redisson.renewal_kind': 'lock' }, 1]]);
    const lost = spansOf(sdk, name).find((s) => s.name === SPAN_NAMES.lost);
    expect(lost).toMatchObject({ status: { code: SpanStatusCode.ERROR, message: `lock '${name}' lost` }, attributes: { 'redisson.owner': lock.threadId, 'redisson.renewal_kind': 'lock' } });
    expect(lost?.attributes['redisson.held_ms']).toBeGreaterThanOrEqual(0);

    await expect(lock.unlock()).rejects.toThrow();
    const failed = spansOf(sdk, name).filter((s) => s.name === SPAN_NAMES.release);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed[0]?.events.map((e) => [e.name, e.attributes?.['exception.type']])).toEqual([['exception', 'ERR_REDISSON_LOCK_LOST']]);
  } finally {
    instrumentation.setConfig({});
  }
});

it("with a context manager: acquire and release spans are children of the caller's active span, and a wait stays under its acquire", async () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  expect(context.setGlobalContextManager(manager)).toBe(true);
  try {
    const [a, b] = [suite.clients.client(), suite.clients.client()];
    const name = uniqueName('otel-parent');
    const [lockA, lockB] = [a.getLock(name), b.getLock(name)];
    await lockA.lock(60_000);
    // What an HTTP server instrumentation does for a request: its span is active while the handler runs.
    const request = sdk.tracerProvider.getTracer('test').startSpan('POST /orders/:id/pay');
    const handled = context.with(trace.setSpan(context.active(), request), async () => {
      expect(await lockB.tryLock(30_000, 60_000)).toBe(true);
      await lockB.unlock();
    });
    await waitStarted(name);
    await lockA.unlock();
    await handled;
    request.end();
    const mine = spansOf(sdk, name).filter((s) => s.attributes['redisson.client_id'] === b.id);
    const byName = Object.fromEntries(mine.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual([SPAN_NAMES.acquire, SPAN_NAMES.release, SPAN_NAMES.wait].sort());
    expect(byName[SPAN_NAMES.acquire]?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(byName[SPAN_NAMES.release]?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(byName[SPAN_NAMES.wait]?.parentSpanContext?.spanId).toBe(byName[SPAN_NAMES.acquire]?.spanContext().spanId);
    expect(new Set(mine.map((s) => s.spanContext().traceId))).toEqual(new Set([request.spanContext().traceId]));
  } finally {
    context.disable();
  }
});

it('follows the global providers, also when they are set after it was created, until disable()', async () => {
  const global = new RedissonInstrumentation();
  const sdk2 = startSdk();
  expect(trace.setGlobalTracerProvider(sdk2.tracerProvider)).toBe(true);
  expect(metrics.setGlobalMeterProvider(sdk2.meterProvider)).toBe(true);
  try {
    const client = suite.clients.client();
    const name = uniqueName('otel-global');
    const sem = client.getSemaphore(name);
    await sem.trySetPermits(1);
    await sem.acquire();
    await sem.release();
    expect(spansOf(sdk2, name).map((s) => [s.name, s.attributes['redisson.primitive'], s.attributes['redisson.permits']])).toEqual([
      [SPAN_NAMES.acquire, 'RSemaphore', 1],
      [SPAN_NAMES.release, 'RSemaphore', 1],
    ]);
    const waits = (await sdk2.points(METRIC_NAMES.waitDuration)).filter((p) => p.attributes['redisson.primitive'] === 'RSemaphore');
    expect((waits[0]?.value as Histogram).count).toBe(1);

    global.disable();
    await sem.acquire();
    await sem.release();
    expect(spansOf(sdk2, name)).toHaveLength(2);
  } finally {
    global.disable();
    trace.disable();
    metrics.disable();
    await sdk2.shutdown();
  }
});

it('is an OpenTelemetry instrumentation by shape and version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  expect([instrumentation.instrumentationName, instrumentation.instrumentationVersion]).toEqual([pkg.name, pkg.version]);
  expect(instrumentation.getConfig()).toEqual({});
  instrumentation.enable(); // idempotent: events are still recorded once (checked by the tests above running after construction)
  for (const method of ['enable', 'disable', 'setTracerProvider', 'setMeterProvider', 'setConfig', 'getConfig'] as const) expect(typeof instrumentation[method]).toBe('function');
});
