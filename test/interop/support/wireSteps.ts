/**
 * The wire-state comparison of the interop suite: a sequence of RLock calls run once by Java Redisson and
 * once by redisson-ts on fresh names, with what Redis saw after each step (the commands the scripts ran,
 * the hash, TTL and messages, what became of the unlock latch), normalised so the two can be compared.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { IllegalMonitorStateError, TimeUnit, type RLock } from '../../../src/index.js';
import { eventually } from '../../support/redis.js';
import { JavaPeerError } from '../JavaPeer.js';
import { isLatchCommand, lockState, normalizeCommand, type LockMessages, type LockState, type WireTap } from './wire.js';

/** Lease of the leased steps, and of holders in the wake-up scenarios. */
export const LONG_LEASE_MS = 60_000;

export interface Side {
  run(name: string, step: WireStep): Promise<unknown>;
  clientId: string;
  threadIds: readonly number[];
}

export interface StepRecord {
  readonly step: string;
  readonly result: unknown;
  readonly lua: string[][];
  readonly state: LockState;
  readonly messages: { channel: string; message: string }[];
  /** What became of the unlock latch this step set: none set, deleted by the client, or still there. */
  readonly latch: 'none' | 'deleted' | 'lingers';
  /** The client's DEL of a latch key after the reply, normalised. */
  readonly latchDelete: string[] | null;
}

export interface WireStep {
  readonly label: string;
  readonly method: 'lock' | 'tryLock' | 'unlock' | 'forceUnlock';
  readonly args: readonly number[];
  /** 0: the owner thread, 1: a second thread of the same client. */
  readonly thread: 0 | 1;
}

export const WIRE_STEPS: readonly WireStep[] = [
  { label: 'lock(60 s)', method: 'lock', args: [LONG_LEASE_MS], thread: 0 },
  { label: 'lock(60 s) again (re-entry)', method: 'lock', args: [LONG_LEASE_MS], thread: 0 },
  { label: 'unlock() (still held once)', method: 'unlock', args: [], thread: 0 },
  { label: 'unlock() (released)', method: 'unlock', args: [], thread: 0 },
  { label: 'lock() (watchdog lease)', method: 'lock', args: [], thread: 0 },
  { label: 'tryLock() by another thread (refused)', method: 'tryLock', args: [], thread: 1 },
  { label: 'tryLock() (re-entry)', method: 'tryLock', args: [], thread: 0 },
  { label: 'forceUnlock() by another thread', method: 'forceUnlock', args: [], thread: 1 },
  { label: 'forceUnlock() of a free lock', method: 'forceUnlock', args: [], thread: 1 },
  { label: 'unlock() of a free lock (refused)', method: 'unlock', args: [], thread: 0 },
  { label: 'tryLock(0, 60 s)', method: 'tryLock', args: [0, LONG_LEASE_MS], thread: 1 },
  { label: 'unlock() (released)', method: 'unlock', args: [], thread: 1 },
];

/** Our two "threads" of the wire sequence (explicit thread ids, like Redisson's `*Async(…, threadId)`). */
export const TS_WIRE_THREADS = [101, 102] as const;

/**
 * One RLock object per side for the whole sequence: Redisson keeps the last lease time given to an
 * acquisition (`internalLockLeaseTime`) on the object and a reentrant unlock re-expires the lock to it;
 * a full release resets it to `lockWatchdogTimeout`.
 */
export const SAME_OBJECT_STEPS: readonly WireStep[] = [
  { label: 'lock(60 s)', method: 'lock', args: [LONG_LEASE_MS], thread: 0 },
  { label: 'lock(60 s) again (re-entry)', method: 'lock', args: [LONG_LEASE_MS], thread: 0 },
  { label: 'unlock() (still held once)', method: 'unlock', args: [], thread: 0 },
  { label: 'unlock() (released)', method: 'unlock', args: [], thread: 0 },
  { label: 'lock() (watchdog lease)', method: 'lock', args: [], thread: 0 },
  { label: 'lock(60 s) (re-entry)', method: 'lock', args: [LONG_LEASE_MS], thread: 0 },
  { label: 'lock() (re-entry, watchdog lease)', method: 'lock', args: [], thread: 0 },
  { label: 'unlock() (still held twice)', method: 'unlock', args: [], thread: 0 },
  { label: 'unlock() (still held once)', method: 'unlock', args: [], thread: 0 },
  { label: 'unlock() (released)', method: 'unlock', args: [], thread: 0 },
  { label: 'lock() (watchdog lease, after release)', method: 'lock', args: [], thread: 0 },
  { label: 'lock() (re-entry)', method: 'lock', args: [], thread: 0 },
  { label: 'unlock() (still held once, after release)', method: 'unlock', args: [], thread: 0 },
  { label: 'unlock() (released, after release)', method: 'unlock', args: [], thread: 0 },
];

/**
 * Versions whose per-object lease time (`internalLockLeaseTime`) is not reset on a full release (measured on
 * 3.17.7; PROTOCOL.md §13.4 dates the related #5623 to 3.27.2): only TTLs may differ from ours.
 */
export const OBJECT_LEASE_DIFFERENCE_EXPECTED = new Set(['3.17.7']);

/**
 * Versions whose unlock latch differs from ours on purpose (PROTOCOL.md §1.6, §13.2): 3.17.7 predates
 * the latch (3.24.0); 3.52.0 – 4.2.x DEL the wrong latch key, so theirs linger until their PX.
 */
export const LATCH_DIFFERENCE_EXPECTED = new Set(['3.52.0', '3.17.7']);

function errorKind(e: unknown): string {
  if (e instanceof IllegalMonitorStateError || (e instanceof JavaPeerError && e.type === 'IllegalMonitorStateException')) {
    return 'IllegalMonitorState';
  }
  return e instanceof JavaPeerError ? e.type : e instanceof Error ? e.name : String(e);
}

/** One step on a given RLock object of ours. */
export function runTsStep(lock: RLock, step: WireStep): Promise<unknown> {
  const threadId = TS_WIRE_THREADS[step.thread];
  const [a, b] = step.args;
  switch (step.method) {
    case 'lock':
      return a === undefined ? lock.lock({ threadId }) : lock.lock(a, TimeUnit.MILLISECONDS, { threadId });
    case 'tryLock':
      return a === undefined ? lock.tryLock({ threadId }) : lock.tryLock(a, b ?? -1, TimeUnit.MILLISECONDS, { threadId });
    case 'unlock':
      return lock.unlock({ threadId });
    case 'forceUnlock':
      return lock.forceUnlock();
  }
}

export interface StepDiff {
  readonly step: string;
  readonly field: string;
  readonly java: unknown;
  readonly ts: unknown;
  /** True when the difference is only about the unlock latch. */
  readonly latch: boolean;
}

export function diffSteps(java: readonly StepRecord[], ours: readonly StepRecord[]): StepDiff[] {
  const diffs: StepDiff[] = [];
  java.forEach((j, i) => {
    const t = ours[i];
    if (!t) throw new Error('step lists differ in length');
    const same = (x: unknown, y: unknown): boolean => JSON.stringify(x) === JSON.stringify(y);
    const withoutLatch = (lua: string[][]): string[][] => lua.filter((c) => !isLatchCommand(c));
    for (const field of ['result', 'state', 'messages'] as const) {
      if (!same(j[field], t[field])) diffs.push({ step: j.step, field, java: j[field], ts: t[field], latch: false });
    }
    if (!same(j.lua, t.lua)) {
      diffs.push({ step: j.step, field: 'lua', java: j.lua, ts: t.lua, latch: same(withoutLatch(j.lua), withoutLatch(t.lua)) });
    }
    for (const field of ['latch', 'latchDelete'] as const) {
      if (!same(j[field], t[field])) diffs.push({ step: j.step, field, java: j[field], ts: t[field], latch: true });
    }
  });
  return diffs;
}

/** "after `<step>` Java's TTL is ≈X ms, ours ≈Y ms" for every step whose TTLs differ. */
export function ttlDifferences(java: readonly StepRecord[], ours: readonly StepRecord[]): string[] {
  return java
    .map((j, i) => ({ j, t: ours[i] }))
    .filter(({ j, t }) => t !== undefined && j.state.ttl !== t.state.ttl)
    .map(({ j, t }) => `after \`${j.step}\` Java's TTL is ${j.state.ttl} ms, ours ${t?.state.ttl ?? '?'} ms`);
}

/** The footnote for the lease handling of one lock object in old Redisson versions, built from what was observed. */
export function describeObjectLeaseDifference(java: readonly StepRecord[], ours: readonly StepRecord[]): string {
  return `one RLock object reused: ${ttlDifferences(java, ours).join('; ')}. This Redisson keeps the object's last lease time after a full release, so later acquisitions without a lease time on that object use it instead of \`lockWatchdogTimeout\`; 4.7.0 resets it on release, and redisson-ts follows 4.7.0. Only TTLs differ; exclusion and wakeups are unaffected.`;
}

/** The footnote for a version whose latch handling differs, built from what was observed. */
export function describeLatchDifference(java: readonly StepRecord[], ours: readonly StepRecord[]): string {
  const oursSet = ours.some((r) => r.latch !== 'none');
  const oursText = oursSet ? 'redisson-ts sets `redisson_unlock_latch:{N}:<requestId>` and DELs it after the reply' : 'redisson-ts sets no latch';
  const javaKinds = new Set(java.map((r) => r.latch));
  if (!javaKinds.has('deleted') && !javaKinds.has('lingers')) {
    return `no unlock latch in this version (added in 3.24.0): Java sends no GET/SET on \`redisson_unlock_latch:*\`; ${oursText}. The lock hash, TTL and messages are identical.`;
  }
  const del = java.find((r) => r.latchDelete)?.latchDelete;
  if (javaKinds.has('lingers')) {
    const target = del ? `\`${del.slice(1).join(' ').replace('<N>', 'N').replace('<client>', '<clientId>')}\`` : 'nothing';
    return `Java's unlock latch \`redisson_unlock_latch:{N}:<requestId>\` is left until its PX (16–20 s) runs out: after the reply Java DELs ${target} instead (Redisson bug, fixed in 4.3.0); ${oursText}. The lock hash, TTL and messages are identical.`;
  }
  return `unlock latch handled differently: Java ${[...javaKinds].join('/')}, ${oursText}.`;
}

/** Where {@link recordSteps} looks: the MONITOR tap, the lock-channel collector and two plain connections. */
export interface Observers {
  readonly tap: WireTap;
  readonly messages: LockMessages;
  readonly pub: Redis;
  readonly raw: Redis;
}

/** Runs `steps` through `s` on a fresh lock name and records what Redis saw after each one. */
export async function recordSteps(o: Observers, side: string, steps: readonly WireStep[], s: Side): Promise<StepRecord[]> {
  const { tap, messages, pub, raw } = o;
  const name = `interop:wire:${side}:${randomUUID().slice(0, 8)}`;
  const placeholders = { name, clientId: s.clientId, threadIds: s.threadIds };
  const owner = `${s.clientId}:${String(s.threadIds[0])}`;
  const records: StepRecord[] = [];
  for (const step of steps) {
    const t0 = await tap.mark();
    const m0 = await messages.mark(pub);
    const result = await s.run(name, step).then(
      (r) => r ?? null,
      (e: unknown) => `error:${errorKind(e)}`,
    );
    await tap.mark();
    await messages.mark(pub);
    const published = messages.since(m0);
    let commands = tap.since(t0);
    const latchSet = commands.find((c) => c.source === 'lua' && c.args[0]?.toLowerCase() === 'set' && isLatchCommand(c.args));
    let latch: StepRecord['latch'] = 'none';
    let latchDelete: string[] | null = null;
    if (latchSet) {
      // The client DELs its latch after the reply, fire-and-forget: wait for that DEL (bounded).
      const isDel = (c: { source: string; args: readonly string[] }): boolean =>
        c.source !== 'lua' && c.args[0]?.toLowerCase() === 'del' && isLatchCommand(c.args) && (c.args[1] ?? '').includes(name);
      await eventually(() => tap.since(t0).some(isDel), 5_000, 'latch DEL').catch(() => undefined);
      commands = tap.since(t0);
      const del = commands.find(isDel);
      latchDelete = del ? normalizeCommand(del.args, placeholders) : null;
      latch = (await raw.exists(latchSet.args[1] ?? '')) === 1 ? 'lingers' : 'deleted';
    }
    records.push({
      step: step.label,
      result,
      // Script commands on this name's keys and channel only (not, say, a watchdog renewing another lock).
      lua: commands.filter((c) => c.source === 'lua' && (c.args[1] ?? '').includes(name)).map((c) => normalizeCommand(c.args, placeholders)),
      state: await lockState(raw, name, owner),
      messages: published.map((m) => ({ channel: m.channel.split(name).join('<N>'), message: m.message })),
      latch,
      latchDelete,
    });
  }
  return records;
}

/** True when `diffs` are all about leases: PEXPIRE arguments and the resulting TTLs (latch commands aside). */
export function onlyLeasesDiffer(diffs: readonly StepDiff[]): boolean {
  const strip = (field: string, v: unknown): string =>
    field === 'lua'
      ? JSON.stringify((v as string[][]).filter((c) => !isLatchCommand(c)).map((c) => (c[0] === 'pexpire' ? [c[0], c[1], '*'] : c)))
      : JSON.stringify({ ...(v as LockState), ttl: '*' });
  return diffs.every((d) => (d.field === 'lua' || d.field === 'state') && strip(d.field, d.java) === strip(d.field, d.ts));
}
