/**
 * examples/opentelemetry/adapter.ts, run against a real redis-server with an in-test recorder that
 * implements the part of the OpenTelemetry API the adapter uses: the spans and metrics it records for a
 * lock held while a second client waits, the watchdog's renewals, and a lost lock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { instrumentRedisson, type Attributes, type MeterLike, type SpanLike, type TracerLike } from '../../examples/opentelemetry/adapter.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';

interface RecordedSpan {
  readonly name: string;
  attributes: Attributes;
  status?: { code: number; message?: string };
  exceptions: unknown[];
  ended: boolean;
}

const spans: RecordedSpan[] = [];
const points: { metric: string; value: number; attributes: Attributes }[] = [];
const tracer: TracerLike = {
  startSpan(name, options) {
    const span: RecordedSpan = { name, attributes: { ...options?.attributes }, exceptions: [], ended: false };
    spans.push(span);
    const handle: SpanLike = {
      setAttributes: (a) => Object.assign(span.attributes, a),
      setStatus: (s) => (span.status = s),
      recordException: (e) => void span.exceptions.push(e),
      end: () => void (span.ended = true),
    };
    return handle;
  },
};
const meter: MeterLike = {
  createHistogram: (metric) => ({ record: (value, attributes = {}) => void points.push({ metric, value, attributes }) }),
  createCounter: (metric) => ({ add: (value, attributes = {}) => void points.push({ metric, value, attributes }) }),
};

const suite = useRedis();
let stop: () => void;
beforeAll(() => {
  stop = instrumentRedisson({ tracer, meter });
});
afterAll(() => stop());

const named = (name: string): RecordedSpan[] => spans.filter((s) => s.attributes['redisson.name'] === name);

it('records acquire, wait and release spans and the wait/hold histograms for a lock two clients share', async () => {
  const [a, b] = [suite.clients.client(), suite.clients.client()];
  const name = uniqueName('otel');
  const first = a.getLock(name);
  await first.lock(60_000);
  const waiting = b.getLock(name).tryLock(30_000, 60_000);
  await eventually(() => named(name).some((s) => s.name === 'redisson-ts.wait'), 10_000, 'the wait span');
  await first.unlock();
  expect(await waiting).toBe(true);
  await b.getLock(name).forceUnlock();

  const mine = named(name);
  expect(mine.every((s) => s.ended)).toBe(true);
  // Spans in the order they started.
  expect(mine.map((s) => `${s.name}@${s.attributes['redisson.client_id'] === a.id ? 'a' : 'b'}`)).toEqual([
    'redisson-ts.acquire@a',
    'redisson-ts.acquire@b',
    'redisson-ts.wait@b',
    'redisson-ts.release@a',
  ]);
  const [, acquireB, wait, release] = mine;
  expect(acquireB?.attributes).toMatchObject({ 'redisson.primitive': 'RLock', 'redisson.wait_ms': 30_000, 'redisson.lease_ms': 60_000, 'redisson.acquired': true });
  expect(wait?.attributes).toMatchObject({ 'redisson.woken': true, 'redisson.channel': `redisson_lock__channel:{${name}}` });
  expect(release?.attributes).toMatchObject({ 'redisson.released': true, 'redisson.owner': first.threadId });
  expect(release?.attributes['redisson.held_ms']).toBeGreaterThanOrEqual(0);
  const metrics = points.filter((p) => p.metric === 'redisson.lock.wait.duration' || p.metric === 'redisson.lock.hold.duration').map((p) => p.metric);
  // a's hold ends (its unlock's reply) and b's wait ends (the release message) in either order.
  expect(metrics.sort()).toEqual(['redisson.lock.hold.duration', 'redisson.lock.wait.duration', 'redisson.lock.wait.duration']);
  expect(points.find((p) => p.metric === 'redisson.lock.hold.duration')?.value).toBe(release?.attributes['redisson.held_ms']);
});

it('counts renewals and a lost lock, with an ERROR span for the loss and for a failing unlock', async () => {
  const client = suite.clients.client({ lockWatchdogTimeout: 300 });
  const raw = suite.clients.raw();
  const name = uniqueName('otel');
  const lock = client.getLock(name);
  await lock.lock();
  await eventually(() => points.some((p) => p.metric === 'redisson.lock.renewals'), 10_000, 'a renewal');
  expect(spans.some((s) => s.name === 'redisson-ts.renewal' && s.attributes['redisson.renewed'] === 1 && s.ended)).toBe(true);
  await raw.del(name);
  await eventually(() => points.some((p) => p.metric === 'redisson.lock.lost'), 10_000, 'the loss');
  const lostSpan = named(name).find((s) => s.name === 'redisson-ts.lost');
  expect(lostSpan).toMatchObject({ ended: true, status: { code: 2 }, attributes: { 'redisson.renewal_kind': 'lock', 'redisson.owner': lock.threadId } });
  expect(points.filter((p) => p.metric === 'redisson.lock.lost')).toEqual([{ metric: 'redisson.lock.lost', value: 1, attributes: { 'redisson.renewal_kind': 'lock' } }]);
  await expect(lock.unlock()).rejects.toThrow();
  const failed = named(name).filter((s) => s.name === 'redisson-ts.release');
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ ended: true, status: { code: 2 } });
  expect((failed[0]?.exceptions[0] as Error).name).toBe('LockLostError');
});
