/**
 * CPU per operation, in one process (issue 29): what each lock call costs the client in user + system CPU
 * (`process.cpuUsage()`), beside its latency, with every operation interleaved round by round so that a
 * shared machine's load hits all of them alike. Read the ratios within one run, not the absolutes.
 *
 *   tsx benchmarks/cpuPerOp.ts                       # every operation, 6 rounds of 1 000
 *   tsx benchmarks/cpuPerOp.ts --ops pair-watchdog,ping --n 3000 --rounds 1
 *   tsx benchmarks/cpuPerOp.ts --ops unlock --rounds 1 --n 20000 --prof /tmp/unlock.cpuprofile
 *   tsx benchmarks/profileSummary.ts /tmp/unlock.cpuprofile --ops 20000
 *   tsx benchmarks/cpuPerOp.ts --ops pair-watchdog --rounds 1 --n 4000 --alloc /tmp/pair.heapprofile
 *   tsx benchmarks/profileSummary.ts --alloc /tmp/pair.heapprofile --ops 4000
 *
 * `--prof` profiles the measured rounds only (the inspector's profiler, as `node --cpu-prof` but without
 * start-up and warm-up).
 *
 * `--driver node-redis` runs the redisson-ts ops on node-redis 6 (`{ driver: 'node-redis', url }`).
 *
 * redisson-ts is loaded from its build (dist/, `node scripts/build.mjs` first), as users get it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { Mutex } from 'redis-semaphore';
import { bareProtocol } from './adapters/bareProtocol.js';
import type { LockClient } from './adapters/types.js';
import { library } from './library.js';
import { nowUs, summarize } from './stats.js';
import { toolRedis } from './toolRedis.js';

interface Op {
  /** What one iteration does, in words. */
  readonly what: string;
  /** One iteration. `timed` marks the part the latency and CPU are taken over (default: all of it). */
  readonly run: (timed: <T>(fn: () => Promise<T>) => Promise<T>) => Promise<void>;
}

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '6' },
    ops: { type: 'string' },
    warmup: { type: 'string', default: '500' },
    /**
     * Writes a sampling heap profile of the measured rounds to this file: an allocation sampled per 256 B on
     * average, the young garbage included (what each function allocates per op: `profileSummary.ts --alloc`).
     */
    alloc: { type: 'string' },
    /** Writes a `.cpuprofile` of the measured rounds only (no start-up, no warm-up) to this file. */
    prof: { type: 'string' },
    /**
     * Another build of redisson-ts (a copy of an older dist/): every redisson-ts op runs a second time on it,
     * as `<op>@before`, in the same rounds — before/after figures from one process.
     */
    before: { type: 'string' },
    /** The driver redisson-ts runs on: `ioredis` (default) or `node-redis` (`{ driver: 'node-redis', url }`). */
    driver: { type: 'string', default: 'ioredis' },
    /**
     * The driver the `--before` build runs on (default: `--driver`'s). With `--before dist` (this build), two
     * drivers in the same rounds: `--before dist --before-driver node-redis`.
     */
    'before-driver': { type: 'string' },
  },
});
const n = Number(values.n);
const rounds = Number(values.rounds);

const server = await toolRedis();
const { url } = server;
const { Redisson } = await library();
const raw = new Redis(url);
const bare: LockClient = await bareProtocol.open({ url });
const sha = (await raw.script('LOAD', 'return 1')) as string;
const mutexRedis = new Redis(url);
// node-redis 6 (the `redis` devDependency), raw: what its own round trips cost beside ioredis' (the driver rows).
const nodeRedis = createClient({ url });
await nodeRedis.connect();
const luaLock = (name: string): string => readFileSync(new URL(`../lua/lock/${name}.lua`, import.meta.url), 'utf8');
const [tryLockSha, unlockSha] = (await Promise.all([raw.script('LOAD', luaLock('tryLockInner')), raw.script('LOAD', luaLock('unlockInner'))])) as [string, string];
const nrField = `${randomUUID()}:1`;
const app = new Redis(url);

interface Owner {
  acquire(): Promise<void>;
  release(): Promise<void>;
}

/** One handoff inside the process: `waiter` parked behind `holder`, timed from the holder's release to the waiter's acquire. */
async function handoff(holder: Owner, waiter: Owner, timed: <T>(fn: () => Promise<T>) => Promise<T>): Promise<void> {
  await holder.acquire();
  const waiting = waiter.acquire();
  // Let the waiter's attempt be refused and park it (its channel stays subscribed: linger / the control's).
  await new Promise((resolve) => setTimeout(resolve, 1));
  await timed(async () => {
    await holder.release();
    await waiting;
  });
  await waiter.release();
}

/** How many parked waiters a herd op wakes, each on a client of its own. */
const HERD = 4;

/**
 * One herd inside the process, Redisson's wake rule with no direct handoff: `waiters` (a client each) parked behind
 * `holder`; timed from the holder's release until every waiter has acquired and released in turn. Each release wakes
 * a waiter in every client still waiting: one retry wins, the others are refused and park again, so the window
 * holds HERD acquisitions and HERD·(HERD+1)/2 retries — the wake path of the rows with owners in two processes.
 */
async function herd(holder: Owner, waiters: Owner[], timed: <T>(fn: () => Promise<T>) => Promise<T>): Promise<void> {
  await holder.acquire();
  const done = waiters.map((w) => w.acquire().then(() => w.release()));
  await new Promise((resolve) => setTimeout(resolve, 1));
  await timed(async () => {
    await holder.release();
    await Promise.all(done);
  });
}

type Client = ReturnType<typeof Redisson.create>;
interface Executor {
  eval(id: string, keys: string[], args: (string | number)[], retry: string): Promise<unknown>;
  command(name: string, ...args: string[]): Promise<unknown>;
}

/**
 * The redisson-ts operations on `client` (keys suffixed with `tag`); `create` makes a herd's clients
 * (directHandoff off), `peer` is the other client of `client-handoff`. `close` shuts down the clients made here.
 */
function redissonOps(client: Client, tag: string, create: () => Client, peer: Client): { ops: Record<string, Op>; close: () => Promise<void> } {
  const lock = client.getLock(`cpu:obj${tag}`);
  let herdClients: Client[] | null = null;
  const ops: Record<string, Op> = {
    'pair-watchdog': { what: 'lock() + unlock(), one object, watchdog', run: (t) => t(async () => { await lock.lock(); await lock.unlock(); }) },
    'pair-lease': { what: 'lock(30 s) + unlock(), one object', run: (t) => t(async () => { await lock.lock(30_000); await lock.unlock(); }) },
    'pair-try': { what: 'tryLock() + unlock(), one object', run: (t) => t(async () => { await lock.tryLock(); await lock.unlock(); }) },
    'pair-getlock': { what: 'getLock(name).lock() + unlock() per acquisition', run: (t) => t(async () => { const l = client.getLock(`cpu:per${tag}`); await l.lock(); await l.unlock(); }) },
    'pair-withlock': { what: 'client.withLock(name, fn) (acquire hold + release)', run: (t) => t(() => client.withLock(`cpu:with${tag}`, () => undefined)) },
    lock: { what: 'lock() alone (unlock untimed)', run: async (t) => { await t(() => lock.lock()); await lock.unlock(); } },
    unlock: { what: 'unlock() alone (lock untimed)', run: async (t) => { await lock.lock(); await t(() => lock.unlock()); } },
    'users-op': {
      what: 'getLock(name).lock(), GET + SET on another connection, unlock()',
      run: (t) => t(async () => { const l = client.getLock(`cpu:users${tag}`); await l.lock(); const v = Number((await app.get('cpu:users:n')) ?? 0); await app.set('cpu:users:n', String(v + 1)); await l.unlock(); }),
    },
    'exec-pair': {
      what: 'the executor alone: tryLockInner + unlockInner evals + latch DEL (no lock object logic)',
      run: (t) => {
        const ctx = (client.getLock(`cpu:exec${tag}`) as unknown as { ctx: { id: string; executor: Executor } }).ctx;
        const field = `${ctx.id}:1`;
        return t(async () => {
          const latch = `redisson_unlock_latch:{cpu:exec${tag}}:${randomUUID().replaceAll('-', '')}`;
          await ctx.executor.eval('lock/tryLockInner', [`cpu:exec${tag}`], [30_000, field], 'never');
          await ctx.executor.eval('lock/unlockInner', [`cpu:exec${tag}`, `redisson_lock__channel:{cpu:exec${tag}}`, latch], [0, 30_000, field, 15_000], 'idempotent');
          void ctx.executor.command('DEL', latch);
        });
      },
    },
    handoff: { what: 'same-client handoff: holder unlock → parked lock() resolves', run: (t) => handoff(wrap(client.getLock(`cpu:hand${tag}`)), wrap(client.getLock(`cpu:hand${tag}`)), t) },
    'client-handoff': {
      what: "another client's parked waiter: holder unlock → granted lock() resolves → its first GET answered",
      run: async (t) => {
        const holder = wrap(client.getLock(`cpu:xhand${tag}`));
        const waiter = wrap(peer.getLock(`cpu:xhand${tag}`));
        await holder.acquire();
        const waiting = waiter.acquire();
        await new Promise((resolve) => setTimeout(resolve, 1));
        await t(async () => {
          const released = holder.release();
          await waiting;
          await app.get('cpu:xhand:n');
          await released;
        });
        await waiter.release();
      },
    },
    'herd-handoff': {
      what: `a herd of ${HERD} waiters, a client each, directHandoff: false (per herd: ${HERD} acquisitions)`,
      run: (t) => {
        herdClients ??= Array.from({ length: HERD + 1 }, create);
        const [holder, ...waiters] = herdClients.map((c) => wrap(c.getLock(`cpu:herd${tag}`))) as [Owner, ...Owner[]];
        return herd(holder, waiters, t);
      },
    },
  };
  return { ops, close: async () => void (await Promise.all([...(herdClients ?? []), peer].map((c) => c.shutdown()))) };
}

function redisOption(driver: string | undefined): string | { driver: 'node-redis'; url: string } {
  if (driver !== 'ioredis' && driver !== 'node-redis') throw new Error(`unknown driver ${driver} (ioredis, node-redis)`);
  return driver === 'node-redis' ? { driver: 'node-redis', url } : url;
}
const redis = redisOption(values.driver);
const beforeRedis = redisOption(values['before-driver'] ?? values.driver);
const client = Redisson.create({ redis });
const BeforeRedisson = values.before === undefined ? null : ((await import(pathToFileURL(`${values.before}/index.js`).href)) as typeof import('../src/index.js')).Redisson;
const before = BeforeRedisson?.create({ redis: beforeRedis }) ?? null;
const ours = redissonOps(client, '', () => Redisson.create({ redis, directHandoff: false }), Redisson.create({ redis }));
const theirs = before && BeforeRedisson ? redissonOps(before, '@before', () => BeforeRedisson.create({ redis: beforeRedis, directHandoff: false }), BeforeRedisson.create({ redis: beforeRedis })) : null;
let bareHerd: LockClient[] | null = null;

const OPS: Record<string, Op> = {
  ping: { what: 'raw ioredis PING', run: async (t) => void (await t(() => raw.ping())) },
  'nr-ping': { what: 'raw node-redis 6 PING', run: async (t) => void (await t(() => nodeRedis.sendCommand(['PING']))) },
  'nr-bare-pair': {
    what: 'control on raw node-redis 6: EVALSHA tryLockInner + unlockInner, latch DEL',
    run: (t) =>
      t(async () => {
        const latch = `redisson_unlock_latch:{cpu:nrbare}:${randomUUID().replaceAll('-', '')}`;
        await nodeRedis.sendCommand(['EVALSHA', tryLockSha, '1', 'cpu:nrbare', '30000', nrField]);
        await nodeRedis.sendCommand(['EVALSHA', unlockSha, '3', 'cpu:nrbare', 'redisson_lock__channel:{cpu:nrbare}', latch, '0', '30000', nrField, 'PUBLISH', '18000']);
        void nodeRedis.sendCommand(['DEL', latch]).catch(() => undefined);
      }),
  },
  'evalsha-2': { what: 'two raw EVALSHA of `return 1`', run: (t) => t(async () => void (await raw.evalsha(sha, 0), await raw.evalsha(sha, 0))) },
  'bare-pair': { what: 'control: tryLockInner + unlockInner + latch DEL', run: (t) => t(async () => { const h = bare.handle('cpu:bare'); await h.acquire(); await h.release(); }) },
  ...ours.ops,
  ...(theirs ? Object.fromEntries(Object.entries(theirs.ops).map(([k, op]) => [`${k}@before`, { ...op, what: `${op.what} (--before build${values['before-driver'] ? `, ${values['before-driver']}` : ''})` }])) : {}),
  'users-op-semaphore': { what: 'new Mutex, acquire, GET + SET on its connection, release', run: (t) => t(async () => { const m = new Mutex(mutexRedis, 'cpu:users:sem', { acquireTimeout: 3_600_000 }); await m.acquire(); const v = Number((await mutexRedis.get('cpu:users:m')) ?? 0); await mutexRedis.set('cpu:users:m', String(v + 1)); await m.release(); }) },
  'semaphore-pair': { what: 'redis-semaphore new Mutex + acquire + release', run: (t) => t(async () => { const m = new Mutex(mutexRedis, 'cpu:sem', { acquireTimeout: 3_600_000 }); await m.acquire(); await m.release(); }) },
  'bare-handoff': { what: 'control: same-client handoff', run: (t) => handoff(bare.handle('cpu:bhand'), bare.handle('cpu:bhand'), t) },
  'bare-herd-handoff': {
    what: `control: a herd of ${HERD} waiters, a client each (per herd: ${HERD} acquisitions)`,
    run: async (t) => {
      bareHerd ??= await Promise.all(Array.from({ length: HERD + 1 }, () => bareProtocol.open({ url })));
      const [holder, ...waiters] = bareHerd.map((c) => c.handle('cpu:bherd')) as [Owner, ...Owner[]];
      await herd(holder, waiters, t);
    },
  },
};

function wrap(l: { lock(): Promise<void>; unlock(): Promise<void> }): Owner {
  return { acquire: () => l.lock(), release: () => l.unlock() };
}

function post(session: Session, method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
}

const names = values.ops ? values.ops.split(',').flatMap((o) => (before && OPS[`${o}@before`] ? [o, `${o}@before`] : [o])) : Object.keys(OPS);
for (const name of names) if (!OPS[name]) throw new Error(`unknown op ${name} (known: ${Object.keys(OPS).join(', ')})`);

interface Acc {
  samples: number[];
  user: number;
  system: number;
  count: number;
}
const acc = new Map<string, Acc>(names.map((name) => [name, { samples: [], user: 0, system: 0, count: 0 }]));

async function runOp(name: string, count: number, record: boolean): Promise<void> {
  const op = OPS[name] as Op;
  const a = acc.get(name) as Acc;
  for (let i = 0; i < count; i++) {
    await op.run(async (fn) => {
      const c0 = process.cpuUsage();
      const t0 = nowUs();
      const r = await fn();
      const t1 = nowUs();
      const c = process.cpuUsage(c0);
      if (record) {
        a.samples.push(t1 - t0);
        a.user += c.user;
        a.system += c.system;
        a.count++;
      }
      return r;
    });
  }
}

// Handoff ops clean up after themselves; a waiter left by the handoff's own holder is released there.
const warm = Number(values.warmup);
for (const name of names) await runOp(name, Math.min(warm, name.includes('handoff') ? 100 : warm), false);
const session = values.prof === undefined ? null : new Session();
if (session) {
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 50 });
  await post(session, 'Profiler.start');
}
const heapSession = values.alloc === undefined ? null : new Session();
if (heapSession) {
  heapSession.connect();
  await post(heapSession, 'HeapProfiler.enable');
  await post(heapSession, 'HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
for (let r = 0; r < rounds; r++) {
  const rotated = names.slice(r % names.length).concat(names.slice(0, r % names.length));
  // An op pays for what ran just before it (the previous op's timers and garbage): with --before, every other
  // round runs the older build's op first, so that neither build always follows the other.
  const order = before && r % 2 === 1 ? rotated.map((name) => (name.endsWith('@before') ? name.slice(0, -'@before'.length) : OPS[`${name}@before`] ? `${name}@before` : name)) : rotated;
  for (const name of order) await runOp(name, name.includes('handoff') ? Math.ceil(n / 10) : n, true);
}

if (heapSession && values.alloc) {
  const { profile } = (await post(heapSession, 'HeapProfiler.stopSampling')) as { profile: unknown };
  writeFileSync(values.alloc, JSON.stringify(profile));
  heapSession.disconnect();
}
if (session && values.prof) {
  const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
  writeFileSync(values.prof, JSON.stringify(profile));
  session.disconnect();
}

const load = (await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ');
const ping = summarize((acc.get('ping') ?? { samples: [] }).samples);
process.stdout.write(`load average ${load}; node ${process.version}; ${rounds} rounds, ${n} per op per round (handoffs ${Math.ceil(n / 10)}); run ${randomUUID().slice(0, 8)}\n\n`);
process.stdout.write('| op | what | p50 µs | p99 µs | user CPU µs/op | sys CPU µs/op | p50 ÷ PING |\n|---|---|---|---|---|---|---|\n');
for (const name of names) {
  const a = acc.get(name) as Acc;
  const s = summarize(a.samples);
  const ratio = Number.isNaN(ping.p50) ? '' : (s.p50 / ping.p50).toFixed(2);
  process.stdout.write(`| ${name} | ${(OPS[name] as Op).what} | ${s.p50.toFixed(0)} | ${s.p99.toFixed(0)} | ${(a.user / a.count).toFixed(1)} | ${(a.system / a.count).toFixed(1)} | ${ratio} |\n`);
}

await ours.close();
await theirs?.close();
await Promise.all(((bareHerd as LockClient[] | null) ?? []).map((c) => c.close()));
await client.shutdown();
await before?.shutdown();
await Promise.all([raw.quit(), mutexRedis.quit(), app.quit(), bare.close(), nodeRedis.close()]);
await server.stop();
