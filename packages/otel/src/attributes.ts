/**
 * Span and metric names and attribute builders. Span attributes name the lock (what operators search
 * for); metric attributes stay low-cardinality (the primitive, the outcome, the renewal kind), as
 * OpenTelemetry's metric guidelines ask.
 */
import type { Attributes } from '@opentelemetry/api';
import type { DiagnosticsTarget } from 'redisson-ts';

/** Span names, one per diagnostics channel. */
export const SPAN_NAMES = Object.freeze({
  acquire: 'redisson-ts.acquire',
  wait: 'redisson-ts.wait',
  release: 'redisson-ts.release',
  renewal: 'redisson-ts.renewal',
  lost: 'redisson-ts.lost',
} as const);

/** Metric names: two histograms in seconds, two counters. */
export const METRIC_NAMES = Object.freeze({
  waitDuration: 'redisson.lock.wait.duration',
  holdDuration: 'redisson.lock.hold.duration',
  renewals: 'redisson.lock.renewals',
  lost: 'redisson.lock.lost',
} as const);

/** Bucket boundaries (s) for the duration histograms: 1 ms up to 5 min, where lock waits and holds live. */
export const DURATION_BUCKETS = Object.freeze([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]);

/** Span attributes naming the object of an event. */
export function targetAttributes(t: DiagnosticsTarget): Attributes {
  const a: Attributes = { 'redisson.name': t.name, 'redisson.primitive': t.primitive, 'redisson.client_id': t.clientId };
  if (t.owner !== undefined) a['redisson.owner'] = t.owner;
  if (t.permits !== undefined) a['redisson.permits'] = t.permits;
  if (t.leaseMs !== undefined) a['redisson.lease_ms'] = t.leaseMs;
  return a;
}

/** Milliseconds (the diagnostics contexts' unit) to seconds (OpenTelemetry's unit for durations). */
export const seconds = (ms: number): number => ms / 1000;
