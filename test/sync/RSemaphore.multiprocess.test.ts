/**
 * Multi-process exactness of RSemaphore (and of RPermitExpirableSemaphore, last test) under kill -9: five OS processes (test/fixtures/semaphoreWorker.ts)
 * loop over a semaphore of 3 permits; two of them are killed while holding a permit (forced: each stops
 * at a chosen hold and says so), a third at an arbitrary moment. A semaphore has no owner and no TTL, so a
 * dead holder's permit is gone for good: from the history the workers logged (synchronously, so a kill
 * loses nothing), its hold lasts forever. The check: at no instant more than 3 holds — a dead holder's
 * included, so the survivors must make do with what is left — and the permits left in Redis match. "At no
 * instant" is checked twice: on the host's monotonic clock from the logged holds, and without a clock by a
 * census key in Redis each hold increments once taken and decrements before its release.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SemaphoreEvent, SemaphoreWorkerOptions } from '../fixtures/semaphoreWorker.js';
import { monotonicMs } from '../support/clock.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';

// ------------------------------------------------------------------------------ the history checker

interface Hold {
  readonly worker: string;
  readonly start: number;
  /** `Infinity` for a holder killed while holding: its permit is never given back. */
  readonly end: number;
}

/** What a worker's log says about its holds, and whether its death may have kept a permit. */
function holdsOf(worker: string, events: readonly SemaphoreEvent[], killed: boolean): { holds: Hold[]; leak: 'none' | 'certain' | 'uncertain' } {
  const holds: Hold[] = [];
  let open: number | null = null;
  for (const e of events) {
    if (e.k === 'acq') open = e.t;
    if (e.k === 'end' && open !== null) {
      holds.push({ worker, start: open, end: e.t });
      open = null;
    }
  }
  if (open !== null) {
    if (!killed) throw new Error(`${worker} ended with a hold it never released`);
    holds.push({ worker, start: open, end: Infinity });
    return { holds, leak: 'certain' };
  }
  // Killed between asking and logging the answer, or between `end` and the release's answer: the
  // script may or may not have run.
  const last = events.at(-1)?.k;
  return { holds, leak: killed && (last === 'wait' || last === 'end') ? 'uncertain' : 'none' };
}

/**
 * A PermitExpirableSemaphore worker's holds: each lasts from `acq` until its release (`end`) or its lease's
 * end, whichever is first — a holder killed while holding keeps its permit only until the lease ends.
 */
function leasedHoldsOf(worker: string, events: readonly SemaphoreEvent[]): Hold[] {
  const holds: Hold[] = [];
  let open: SemaphoreEvent | null = null;
  for (const e of events) {
    if (e.k === 'acq') open = e;
    if (e.k === 'end' && open !== null) {
      holds.push({ worker, start: open.t, end: Math.min(e.t, open.lease ?? Infinity) });
      open = null;
    }
  }
  if (open !== null) holds.push({ worker, start: open.t, end: open.lease ?? Infinity });
  return holds;
}

/** The most holds that intersect at one instant; each hold is shrunk by `toleranceMs` (clock reads). */
function maxConcurrent(holds: readonly Hold[], toleranceMs = 1): { max: number; at: number } {
  const edges: [number, number][] = [];
  for (const h of holds) {
    const start = h.start + toleranceMs;
    const end = h.end - toleranceMs;
    if (end > start) edges.push([start, 1], [end, -1]);
  }
  // At one instant an end goes before a start: touching holds do not overlap.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let best = { max: 0, at: NaN };
  for (const [t, d] of edges) {
    now += d;
    if (now > best.max) best = { max: now, at: t };
  }
  return best;
}

/** The holds that span `at`, for a failure's message: which workers, and when each began and ended. */
function describeAt(holds: readonly Hold[], at: number): string {
  return holds
    .filter((h) => h.start <= at && at <= h.end)
    .map((h) => `${h.worker} [${h.start.toFixed(3)}, ${h.end === Infinity ? '∞' : h.end.toFixed(3)}]`)
    .join(', ');
}

describe('the history checker', () => {
  it('finds a 4th holder, counting a killed holder as holding forever', () => {
    const h = (worker: string, start: number, end: number): Hold => ({ worker, start, end });
    expect(maxConcurrent([h('a', 0, 10), h('b', 5, 15), h('c', 8, 20), h('d', 10, 30)]).max).toBe(3);
    expect(maxConcurrent([h('a', 0, 100), h('b', 10, 100), h('c', 20, 100), h('d', 30, 100)]).max).toBe(4);
    const dead = holdsOf('k', [{ k: 'wait', t: 0 }, { k: 'acq', t: 1 }], true);
    expect(dead.leak).toBe('certain');
    expect(maxConcurrent([...dead.holds, h('a', 100, 200), h('b', 150, 300), h('c', 190, 400)]).max).toBe(4);
    expect(holdsOf('u', [{ k: 'wait', t: 0 }], true).leak).toBe('uncertain');
    expect(holdsOf('r', [{ k: 'acq', t: 0 }, { k: 'end', t: 1 }, { k: 'rel', t: 2 }], true).leak).toBe('none');
    // A leased hold lasts until its release or its lease's end; a dead holder's until the lease's end.
    const killedLeased = leasedHoldsOf('k', [{ k: 'acq', t: 0, lease: 400 }]);
    expect(killedLeased).toEqual([h('k', 0, 400)]);
    expect(maxConcurrent([...killedLeased, h('a', 100, 350), h('b', 300, 500)]).max).toBe(3);
    expect(maxConcurrent([...killedLeased, h('a', 100, 350), h('b', 400, 500)]).max).toBe(2);
    expect(leasedHoldsOf('s', [{ k: 'acq', t: 0, lease: 50 }, { k: 'end', t: 900 }])).toEqual([h('s', 0, 50)]);
  });
});

// ----------------------------------------------------------------------------------- the processes

const WORKER = fileURLToPath(new URL('../fixtures/semaphoreWorker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One forked semaphoreWorker and the IPC messages it sent. */
class Proc {
  readonly child: ChildProcess;
  readonly inbox: { type: string; message?: string }[] = [];
  readonly exited: Promise<void>;
  killed = false;

  constructor(readonly id: string, readonly options: SemaphoreWorkerOptions) {
    this.child = fork(WORKER, [JSON.stringify(options)], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child.on('message', (m) => this.inbox.push(m as { type: string }));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  async next(type: string, ms = 30_000): Promise<void> {
    await eventually(() => {
      const error = this.inbox.find((m) => m.type === 'error');
      if (error) throw new Error(`${this.id}: ${error.message ?? ''}`);
      return this.inbox.some((m) => m.type === type);
    }, ms, `${this.id} '${type}'`);
  }

  async kill(): Promise<void> {
    this.killed = true;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  events(): SemaphoreEvent[] {
    let text: string;
    try {
      text = readFileSync(this.options.logFile, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as SemaphoreEvent);
  }
}

describe('multi-process exactness under kill -9', () => {
  const suite = useRedis();
  const procs: Proc[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'redisson-ts-sem-'));
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.kill()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a semaphore of 3 never admits a 4th holder, and the permits left match the dead holders', async () => {
    const name = uniqueName('sem');
    const census = `${name}:census`;
    const raw = suite.clients.raw();
    await suite.clients.client().getSemaphore(name).trySetPermits(3);
    const victims: Record<string, number> = { w0: 1, w1: 2 };
    for (let i = 0; i < 5; i++) {
      const id = `w${i}`;
      const victimAt = victims[id];
      procs.push(new Proc(id, { url: suite.redis.url, name, logFile: path.join(dir, `${name}-${id}.log`), workMs: 3, census, ...(victimAt ? { victimAt } : {}) }));
    }
    await Promise.all(procs.map((p) => p.next('ready')));
    const now = monotonicMs;
    for (const p of procs) p.child.send({ type: 'go', deadline: now() + 2_000 });

    const [v0, v1, ...others] = procs as [Proc, Proc, ...Proc[]];
    // The victims hold a permit each when killed: forced, not left to chance.
    await v0.next('holding');
    await v0.kill();
    await v1.next('holding');
    await v1.kill();
    const afterKills = now();
    // The survivors go on with the one permit left: holds begin after the kills.
    await eventually(() => others.some((p) => p.events().some((e) => e.k === 'acq' && e.t > afterKills)), 10_000, 'a hold after the kills');
    const random = others[Math.floor(Math.random() * others.length)] as Proc;
    await new Promise((r) => setTimeout(r, Math.random() * 200));
    await random.kill();
    await Promise.all(others.filter((p) => !p.killed).map((p) => p.next('done')));

    const events = procs.map((p) => p.events());
    const histories = procs.map((p, i) => holdsOf(p.id, events[i] ?? [], p.killed));
    const holds = histories.flatMap((h) => h.holds);
    // Without a clock: the census each hold took in Redis (holders at that instant, the dead included).
    const counted = events.flat().flatMap((e) => (e.k === 'acq' ? [e.n ?? NaN] : []));
    expect(counted.every(Number.isInteger)).toBe(true);
    expect(Math.max(...counted), 'holders counted in Redis').toBeLessThanOrEqual(3);
    // On the shared monotonic clock: no instant inside more than 3 holds.
    const { max, at } = maxConcurrent(holds);
    expect(max, `holders at ${at}: ${describeAt(holds, at)}`).toBeLessThanOrEqual(3);
    expect(holds.length).toBeGreaterThan(10);
    expect(histories[0]?.leak).toBe('certain');
    expect(histories[1]?.leak).toBe('certain');
    const certain = histories.filter((h) => h.leak === 'certain').length;
    const uncertain = histories.filter((h) => h.leak === 'uncertain').length;
    const left = Number(await raw.get(name));
    expect(left).toBeLessThanOrEqual(3 - certain);
    expect(left).toBeGreaterThanOrEqual(3 - certain - uncertain);
  });

  it('a PermitExpirableSemaphore of 2 never admits a 3rd holder while a dead holder\'s lease runs, and gets every permit back', async () => {
    const name = uniqueName('pes');
    const LEASE_MS = 400;
    const client = suite.clients.client();
    const semaphore = client.getPermitExpirableSemaphore(name);
    await semaphore.trySetPermits(2);
    const victims: Record<string, number> = { p0: 1, p1: 3 };
    const mine: Proc[] = [];
    for (let i = 0; i < 4; i++) {
      const id = `p${i}`;
      const victimAt = victims[id];
      mine.push(new Proc(id, { url: suite.redis.url, name, logFile: path.join(dir, `${name}-${id}.log`), workMs: 3, leaseMs: LEASE_MS, ...(victimAt ? { victimAt } : {}) }));
    }
    procs.push(...mine);
    await Promise.all(mine.map((p) => p.next('ready')));
    for (const p of mine) p.child.send({ type: 'go', deadline: Date.now() + 2_500 });

    const [v0, v1, ...others] = mine as [Proc, Proc, ...Proc[]];
    // Both victims die holding a permit (forced): the survivors wait for those leases to end, then share.
    await v0.next('holding');
    await v0.kill();
    await v1.next('holding');
    await v1.kill();
    await Promise.all(others.map((p) => p.next('done')));

    const holds = mine.flatMap((p) => leasedHoldsOf(p.id, p.events()));
    const { max, at } = maxConcurrent(holds);
    expect(max, `holders at ${at}`).toBeLessThanOrEqual(2);
    // The dead holders' permits came back: survivors held permits after the later victim's lease ended.
    const lastLeaseEnd = Math.max(...[v0, v1].map((v) => v.events().filter((e) => e.k === 'acq').at(-1)?.lease ?? Infinity));
    expect(holds.filter((h) => h.start >= lastLeaseEnd && others.some((p) => p.id === h.worker)).length).toBeGreaterThan(0);
    // Nothing leaked for good: once every lease has ended, both permits are available again.
    await eventually(async () => (await semaphore.availablePermits()) === 2, 5_000, 'both permits back');
    expect(await semaphore.acquiredPermits()).toBe(0);
  });
});
