/**
 * Output of a run: a markdown report (also printed), the JSON it was made from, and an SVG chart of
 * handoff latency per implementation on a log scale, drawn by hand (no chart dependency).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMPLEMENTATIONS, type ImplName } from './adapters/index.js';
import type { Environment } from './env.js';
import type { TopologyResult } from './scenarios/topology.js';
import type { JavaInJvmContentionResult, JavaInJvmHandoffResult, JavaInJvmResult } from './scenarios/javaInJvm.js';
import type { ContentionResult, ContentionRow } from './scenarios/contention.js';
import type { FamilyResult } from './scenarios/family.js';
import type { HandoffResult, HandoffRow } from './scenarios/handoff.js';
import type { ManyLocksResult } from './scenarios/manyLocks.js';
import type { ManyWaitersResult } from './scenarios/manyWaiters.js';
import type { UncontendedResult } from './scenarios/uncontended.js';
import { evaluateTargets, type TargetCheck } from './targets.js';

export interface BenchResults {
  readonly env: Environment;
  readonly quick: boolean;
  readonly skipped: Partial<Record<ImplName, string>>;
  readonly failures: string[];
  uncontended?: UncontendedResult;
  handoff?: HandoffResult;
  contention?: ContentionResult;
  manyLocks?: ManyLocksResult;
  manyWaiters?: ManyWaitersResult;
  family?: FamilyResult;
  /** Contention with a client per owner (see contention.ts `runClients`). */
  clients?: ContentionResult;
  /** The users' shape (see contention.ts `runUsers`). */
  users?: ContentionResult;
  /** Java Redisson's pair timed inside its JVM, beside its own round trip. */
  javaInJvm?: JavaInJvmResult;
  /** Java Redisson's handoff timed inside two JVMs (and one). */
  javaInJvmHandoff?: JavaInJvmHandoffResult;
  /** Java Redisson's contention loop as Java threads in two JVMs. */
  javaInJvmContention?: JavaInJvmContentionResult;
  /** redisson-ts on a single server, through Sentinel and in a cluster (`--topology`). */
  topology?: TopologyResult;
  /** Scenario → why it is absent for an implementation (e.g. Java many waiters). */
  readonly notMeasured: Record<string, Partial<Record<ImplName, string>>>;
}

const us = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x >= 10_000 ? `${(x / 1000).toFixed(1)} ms` : `${Math.round(x)} µs`);
const ratio = (x: number, ping: number): string => (Number.isFinite(x / ping) ? `${(x / ping).toFixed(2)}×` : 'n/a');
const num = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : 'n/a');
const mb = (bytes: number | null): string => (bytes === null ? 'n/a (JVM)' : `${(bytes / 2 ** 20).toFixed(1)} MB`);

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function notRun(res: BenchResults, scenario: string, columns: number): string[][] {
  const rows: string[][] = [];
  for (const impl of IMPLEMENTATIONS) {
    const why = res.skipped[impl] ?? res.notMeasured[scenario]?.[impl];
    if (why) rows.push([impl, `not measured (${why})`, ...Array<string>(columns - 2).fill('')]);
  }
  return rows;
}

export function renderMarkdown(res: BenchResults, targets: TargetCheck[] = evaluateTargets(res)): string {
  const e = res.env;
  const ping = res.uncontended?.ping.p50 ?? NaN;
  const out: string[] = [];
  out.push(`## Lock benchmark (${res.quick ? 'quick' : 'full'} run)`);
  out.push('');
  out.push(`\`${e.command}\` on ${e.date}: ${e.cpu}, ${e.cores} cores, ${e.memoryGiB} GiB, ${e.os}; Node ${e.node}; Redis ${e.redis} (${e.redisSource}); Java ${e.java}. Load average (1 min) at start ${e.loadAverage.start}, at end ${e.loadAverage.end ?? 'n/a'} on ${e.cores} cores.`);
  out.push('');
  out.push(`Versions: ${Object.entries(e.libraries).map(([k, v]) => `${k} \`${v}\``).join(', ')}.`);
  out.push('');
  out.push('Times are µs unless marked; "× PING" is the ratio to raw PING p50 on the same kind of connection.');
  out.push('');
  if (res.uncontended?.rows['bare-protocol'] ?? res.handoff?.rows['bare-protocol'] ?? res.contention?.['bare-protocol'] ?? res.clients?.['bare-protocol']) {
    out.push(
      "`bare-protocol` is a control, not a library: Redisson's lock protocol (our `tryLockInner` / `unlockInner` scripts, the latch `DEL`, one subscription per channel, a message waking the client's longest waiter) with nothing else around it: no watchdog (a 30 s lease), no reentrancy, abort, reconnect or lost-reply handling. Where it too misses a target, the protocol on ioredis misses it on this machine, not our code around it.",
    );
    out.push('');
  }

  if (res.uncontended || res.handoff) {
    out.push('### Latency: uncontended lock+unlock pair, and handoff between processes');
    out.push('');
    const rows: string[][] = [];
    if (res.uncontended) {
      const u = res.uncontended;
      rows.push(['raw PING', us(u.ping.p50), us(u.ping.p99), '1.00×', '0', '1', '', '', '', '', '', '']);
      rows.push(['raw EVALSHA `return 1`', us(u.evalsha.p50), us(u.evalsha.p99), ratio(u.evalsha.p50, ping), '1', '1', '', '', '', '', '', '']);
    }
    if (res.handoff) {
      const { relay, idlePing } = res.handoff;
      rows.push(['raw PING after 10 ms idle', us(idlePing.p50), us(idlePing.p99), ratio(idlePing.p50, ping), '0', '1', '', '', '', '', '', '1.00×']);
      rows.push(['raw PUBLISH → other process', '', '', '', '', '', us(relay.p50), us(relay.p99), us(relay.max), String(relay.n), ratio(relay.p50, ping), ratio(relay.p50, idlePing.p50)]);
    }
    for (const impl of IMPLEMENTATIONS) {
      const p = res.uncontended?.rows[impl];
      const h = res.handoff?.rows[impl];
      if (!p && !h) continue;
      const name = p?.transport ? `${impl} ¹` : impl;
      rows.push([
        name,
        us(p?.pair.p50),
        us(p?.pair.p99),
        p ? ratio(p.pair.p50, ping) : 'n/a',
        p ? num(p.scriptsPerPair, 2) : 'n/a',
        p ? num(p.commandsPerPair, 2) : 'n/a',
        us(h?.p50),
        us(h?.p99),
        us(h?.max),
        h ? (h.timeouts ? `${h.n} (**${h.timeouts} not woken** ²)` : String(h.n)) : 'n/a',
        h ? ratio(h.p50, ping) : 'n/a',
        h && res.handoff ? ratio(h.p50, res.handoff.idlePing.p50) : 'n/a',
      ]);
    }
    rows.push(...notRun(res, 'latency', 12));
    out.push(table(['implementation', 'pair p50', 'pair p99', 'pair × PING', 'scripts/pair', 'commands/pair', 'handoff p50', 'handoff p99', 'handoff max', 'n', 'handoff × PING', 'handoff × idle PING'], rows));
    out.push(
      '',
      'A handoff wakes processes that were idle (the holder, Redis, the waiter), a hot PING loop does not; "idle PING" is a PING sent after the same 10 ms of idleness, and "PUBLISH → other process" the bare notification hop any pub/sub wake-up pays.',
    );
    const java = res.uncontended?.rows['java-redisson']?.transport;
    if (java) {
      out.push('');
      out.push(`¹ Java rows are driven through the interop peer: each lock call crosses a JSON stdin/stdout pipe to the JVM and back (a no-op \`ping\` over it: p50 ${us(java.p50)}, p99 ${us(java.p99)}). A pair pays it twice, a handoff once each way.`);
    }
    if (IMPLEMENTATIONS.some((i) => res.handoff?.rows[i]?.timeouts)) {
      out.push('', '² a waiter not woken within the sample timeout (a lost wake-up: it would have waited out the lease); counted at the timeout, a lower bound.');
    }
    if (res.handoff) out.push('', `Handoff clock: host-wide monotonic clock; worst disagreement with the parent's send/receive window in the check: ${res.handoff.clockCheckUs.toFixed(1)} µs.`);
    out.push('');
    const local = res.handoff?.local ?? {};
    const localRows = IMPLEMENTATIONS.flatMap((impl) => {
      const h = local[impl];
      if (!h || !res.handoff) return [];
      return [[impl, us(h.p50), us(h.p99), us(h.max), String(h.n), ratio(h.p50, ping), ratio(h.p50, res.handoff.idlePing.p50), h.timeouts ? String(h.timeouts) : '0']];
    });
    if (localRows.length > 0) {
      out.push('#### Handoff within one process: holder and waiter on the same client');
      out.push('');
      out.push(table(['implementation', 'handoff p50', 'handoff p99', 'handoff max', 'n', 'handoff × PING', 'handoff × idle PING', 'not woken'], localRows));
      out.push('', "The same samples as above with both owners in one worker process (the release's message returns to the releasing client's own subscriber): the handoff without a process hop.", '');
    }
  }

  if (res.contention) {
    out.push('### Contention: W owners over 2 processes, read-modify-write under one lock');
    out.push('');
    out.push(table(CONTENTION_HEAD, [...contentionRows(res.contention, ping), ...notRun(res, 'contention', CONTENTION_HEAD.length)]));
    out.push(
      '',
      '"late": ops blocked at the deadline that finished after it (in the counter check, not in ops/s); "stuck": owners still blocked after a grace period, abandoned (they release without touching the counter). "wait": each acquire call until it resolved. "CPU µs/op": CPU time (user + system) over the timed window per counted op, of the owners\' processes together (`process.cpuUsage()`; not measured for the JVM) and of the server (`INFO cpu`); with 2 cores, the three processes together cannot exceed 2 × 10⁶ µs per second.',
    );
    out.push('');
  }

  if (res.clients) {
    out.push('### Contention with a client per owner: N service instances on one hot lock');
    out.push('');
    out.push(table(['processes', ...CONTENTION_HEAD], contentionRows(res.clients, ping, true)));
    out.push('', 'Each owner has its own client (its own connections, and for the pub/sub libraries its own subscriber), in one process or split over two; otherwise as above. Java is not run here (a JVM per client).');
    out.push('');
  }

  if (res.users) out.push(...usersSection(res.users, ping));

  if (res.javaInJvm || res.javaInJvmHandoff || res.javaInJvmContention) out.push(...javaInJvmSection(res, ping));

  if (res.topology) {
    out.push('### Topologies: redisson-ts pair latency on a single server, through Sentinel, in a cluster');
    out.push('');
    const single = res.topology.rows[0]?.pair.p50 ?? NaN;
    const byUrl = res.topology.rows.find((r) => r.label.startsWith('Sentinel master by URL'))?.pair.p50;
    const sentinel = res.topology.rows.find((r) => r.label.startsWith('Sentinel (WAIT'))?.pair.p50;
    out.push(
      table(
        ['deployment', 'PING p50', 'pair p50', 'pair p99', 'pair / PING', 'pair / single server', 'WAIT after writes'],
        res.topology.rows.map((r) => [r.label, us(r.ping.p50), us(r.pair.p50), us(r.pair.p99), ratio(r.pair.p50, r.ping.p50), ratio(r.pair.p50, single), r.wait ? 'yes' : 'no']),
      ),
    );
    if (byUrl !== undefined && sentinel !== undefined) {
      out.push('', `WAIT's cost: ${us(sentinel - byUrl)} per pair (two WAITs: after the lock script and after the unlock script), the Sentinel client against the same master without WAIT.`);
    }
    out.push('', 'Measured in the benchmark process itself (no worker pipe); the deployments are spawned on this machine, so replicas acknowledge over loopback.');
    out.push('');
  }

  if (res.manyLocks) {
    out.push('### Many locks: 10 000 held at once, watchdog lease 3 s');
    out.push('');
    const rows: string[][] = [];
    for (const impl of IMPLEMENTATIONS) {
      const r = res.manyLocks[impl];
      if (!r) continue;
      rows.push([
        impl,
        `${num(r.acquireMs)} ms (${ratio((r.acquireMs * 1000) / r.locks, ping)})`,
        `${r.periodMs} ms (${num(r.passes, 2)} in ${num(r.windowMs / 1000, 1)} s)`,
        num(r.scriptsPerPeriod, 1),
        num(r.scriptsPer100Locks, 2),
        num(r.commandsPerPeriod, 0),
        mb(r.heapBytes),
        r.heapBytes === null ? 'n/a' : num(r.heapBytes / r.locks, 0),
        String(r.connections),
      ]);
    }
    rows.push(...notRun(res, 'many locks', 9));
    out.push(table(['implementation', 'acquire all (µs per lock × PING)', 'renewal period (passes seen)', 'scripts/period', 'scripts/period per 100 locks', 'commands/period', 'heap', 'bytes/lock', 'connections'], rows));
    out.push('');
  }

  if (res.manyWaiters) {
    out.push('### Many waiters: 10 000 waiters on 1 000 locks in one process');
    out.push('');
    const rows: string[][] = [];
    for (const impl of IMPLEMENTATIONS) {
      const r = res.manyWaiters[impl];
      if (!r) continue;
      rows.push([
        impl,
        String(r.connections),
        String(r.subscriberConnections),
        num(r.subscriptions),
        `${mb(r.heapBytes)} (${num(r.heapBytes / r.waiters)} B/waiter)`,
        r.finished ? `yes, ${num(r.drainMs)} ms (${ratio((r.drainMs * 1000) / (r.waiters / r.locks), ping)})` : `NO (${num(r.drainMs)} ms timeout)`,
        r.errors ? `${r.errors}: ${r.firstError ?? ''}` : '0',
        String(r.timersLeft),
        String(r.subscriptionsLeft),
        mb(r.heapLeftBytes),
      ]);
    }
    rows.push(...notRun(res, 'many waiters', 10));
    out.push(table(['implementation', 'connections', 'subscriber conns', 'channel subs', 'heap while waiting', 'all acquired (per handoff × PING)', 'errors', 'timers left', 'subs left', 'heap left'], rows));
    out.push('');
  }

  if (res.family) out.push(...familySection(res.family));

  out.push('### Targets (ratios from this run)');
  out.push('');
  out.push(table(['target', 'measured', 'status'], targets.map((t) => [t.target, t.measured, t.met === null ? 'not evaluated' : t.met ? 'met' : '**missed**'])));
  if (res.failures.length) out.push('', 'Failures:', ...res.failures.map((f) => `- ${f.split('\n')[0] ?? ''}`));
  out.push('');
  out.push('Settings per implementation:', '');
  for (const [impl, s] of Object.entries(e.settings)) out.push(`- ${impl}: ${s}`);
  out.push('');
  return out.join('\n');
}

const CONTENTION_HEAD = ['implementation', 'W', 'ops/s', 'µs per op × PING', 'per-owner ops min / max', 'wait p50 / p99', 'scripts/op', '(un)subscribes/op', 'CPU µs/op: clients / server', 'late / stuck', 'counter', 'errors'];

function contentionRows(result: ContentionResult, ping: number, withProcesses = false): string[][] {
  const rows: string[][] = [];
  for (const impl of IMPLEMENTATIONS) {
    for (const r of result[impl] ?? []) {
      rows.push([
        ...(withProcesses ? [String(r.processes)] : []),
        impl,
        String(r.workers),
        num(r.opsPerSec),
        ratio(1e6 / r.opsPerSec, ping),
        `${r.minOps} / ${r.maxOps}`,
        `${us(r.waitP50Us)} / ${us(r.waitP99Us)}`,
        num(r.scriptsPerOp, 2),
        num(r.subscribesPerOp, 2),
        // The JVM's CPU is not the worker's: Java's client side is not measured.
        `${impl === 'java-redisson' ? 'n/a' : num(r.clientCpuUsPerOp)} / ${num(r.serverCpuUsPerOp)}`,
        r.stuck ? `${r.late} / **${r.stuck} stuck**` : String(r.late),
        r.exact ? 'exact' : `WRONG (${r.counter} ≠ ${r.ops + r.late})`,
        r.errors.length ? (r.errors[0]?.split('\n')[0] ?? '') : '',
      ]);
    }
  }
  return rows;
}

/**
 * The users' shape: per layout and W, each implementation's op latency and ops/s, and its ratios to
 * redis-semaphore's and to the control's of the same row.
 */
function usersSection(result: ContentionResult, ping: number): string[] {
  const rows: string[][] = [];
  const find = (impl: ImplName, r: ContentionRow): ContentionRow | undefined =>
    result[impl]?.find((x) => x.workers === r.workers && x.clientPerOwner === r.clientPerOwner);
  for (const layout of [true, false]) {
    for (const impl of IMPLEMENTATIONS) {
      for (const r of (result[impl] ?? []).filter((x) => x.clientPerOwner === layout)) {
        const sem = find('redis-semaphore', r);
        const bare = find('bare-protocol', r);
        const vs = (other: ContentionRow | undefined): string =>
          other ? `${(r.opsPerSec / other.opsPerSec).toFixed(2)} / ${((r.opP50Us ?? NaN) / (other.opP50Us ?? NaN)).toFixed(2)}` : '';
        rows.push([
          r.workers === 1 ? 'one owner' : layout ? 'client per owner' : 'one client',
          impl,
          String(r.workers),
          num(r.opsPerSec),
          `${us(r.opP50Us ?? NaN)} / ${us(r.opP99Us ?? NaN)}`,
          ratio(r.opP50Us ?? NaN, ping),
          vs(sem),
          vs(bare),
          `${r.minOps} / ${r.maxOps}`,
          num(r.scriptsPerOp, 2),
          num(r.clientCpuUsPerOp),
          r.stuck ? `${r.late} / **${r.stuck} stuck**` : String(r.late),
          r.exact ? 'exact' : `WRONG (${r.counter} ≠ ${r.ops + r.late})`,
        ]);
      }
    }
  }
  return [
    '### The way users measure: one process, a new lock object per acquisition, GET + SET inside',
    '',
    table(
      ['layout', 'implementation', 'W', 'ops/s', 'op p50 / p99', 'op p50 × PING', 'ops/s / op p50 ÷ redis-semaphore', 'ops/s / op p50 ÷ control', 'per-owner ops min / max', 'scripts/op', 'client CPU µs/op', 'late / stuck', 'counter'],
      rows,
    ),
    '',
    "All owners in one process. Each acquisition takes a new lock object (`getLock(name)`, redis-semaphore's `new Mutex`, the control's handle) and does `GET` and `SET` of the counter on a connection of the owner's own between acquire and release, as a request handler does. *client per owner*: N service instances, each with its lock client; *one client*: one service with W concurrent requests on its one lock client; *one owner*: W = 1, an op alone (the uncontended request). An op is acquire → release resolved. Ratios > 1 in ops/s and < 1 in p50 are better than the other.",
    '',
  ];
}

/** The family table: every kind against the same implementation's plain lock of the same rounds. */
function familySection(f: FamilyResult): string[] {
  const ping = f.ping.p50;
  const rows = f.rows.map((r) => {
    const lock = f.rows.find((x) => x.impl === r.impl && x.kind === 'lock');
    const h = r.handoff;
    return [
      r.impl,
      r.kind,
      us(r.pair.p50),
      us(r.pair.p99),
      ratio(r.pair.p50, ping),
      num(r.scriptsPerPair, 2),
      us(h.p50),
      us(h.p99),
      h.timeouts ? `${h.n} (**${h.timeouts} not woken**)` : String(h.n),
      ratio(h.p50, ping),
      lock && r.kind !== 'lock' ? `${(h.p50 - lock.handoff.p50 >= 0 ? '+' : '')}${((h.p50 - lock.handoff.p50) / ping).toFixed(2)}` : '',
    ];
  });
  return [
    '### Lock family and synchronizers: pair and handoff per kind',
    '',
    table(['implementation', 'kind', 'pair p50', 'pair p99', 'pair × PING', 'scripts/pair', 'handoff p50', 'handoff p99', 'n', 'handoff × PING', 'handoff − lock handoff (PINGs)'], rows),
    '',
    `PING p50 in these rounds: ${us(ping)}. Kinds: \`fair\` FairLock, \`read\`/\`write\` ReadWriteLock halves (the read handoff is a reader woken by a writer's release), \`semaphore\` a semaphore of 1 permit (redis-semaphore: its \`Semaphore\`, polling), \`latch\` a CountDownLatch of 1 (pair: close with trySetCount, open with countDown; handoff: countDown → an awaiter resolving). The last column is the kind's handoff p50 minus the same implementation's plain lock handoff p50 in the same rounds, in PINGs.`,
    '',
  ];
}

// ------------------------------------------------------------------------------------------- SVG

const COLORS: Record<ImplName, string> = {
  'redisson-ts': '#d62728',
  'redisson-ts@no-handoff': '#ff9896',
  'redisson-ts@ioredis6': '#e377c2',
  'redisson-ts@iovalkey': '#8c564b',
  'redisson-ts@node-redis': '#bcbd22',
  'node-redisson': '#9467bd',
  'redis-semaphore': '#1f77b4',
  redlock: '#2ca02c',
  'java-redisson': '#ff7f0e',
  'bare-protocol': '#7f7f7f',
};

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Handoff latency per implementation: every sample as a dot, p50 and p99 as ticks, on a log-µs axis. */
export function renderSvg(res: BenchResults): string {
  const relay = res.handoff?.relay;
  const series: { name: string; color: string; row: HandoffRow }[] = IMPLEMENTATIONS.flatMap((i) => {
    const row = res.handoff?.rows[i];
    return row ? [{ name: i, color: COLORS[i], row }] : [];
  });
  if (relay) series.push({ name: 'raw PUBLISH relay', color: '#7f7f7f', row: relay });
  const rows = series;
  const width = 820;
  const left = 150;
  const right = 30;
  const top = 66;
  const rowH = 46;
  const height = top + rows.length * rowH + 62;
  const all = rows.flatMap((s) => s.row.samples).filter((x) => x > 0);
  const ping = res.uncontended?.ping.p50;
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all, ping ?? Infinity, 100)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all, 1000)));
  const x = (v: number): number => left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (width - left - right);
  const label = (v: number): string => (v >= 1e6 ? `${v / 1e6} s` : v >= 1e3 ? `${v / 1e3} ms` : `${v} µs`);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">Lock handoff latency between two processes (log scale)</text>`);
  parts.push(`<text x="${left}" y="34" fill="#555">release() call → waiter's acquire resolving. Dots: samples; thick tick: p50; thin tick: p99.</text>`);
  parts.push(`<text x="${left}" y="${height - 6}" fill="#555" font-size="11">${esc(res.env.command)} · ${esc(res.env.cpu)}, ${res.env.cores} cores · Node ${res.env.node} · Redis ${res.env.redis} · ${res.env.date.slice(0, 10)}</text>`);
  for (let v = lo; v <= hi; v *= 10) {
    parts.push(`<line x1="${x(v).toFixed(1)}" y1="${top - 5}" x2="${x(v).toFixed(1)}" y2="${top + rows.length * rowH}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(v).toFixed(1)}" y="${top + rows.length * rowH + 16}" text-anchor="middle" fill="#333">${label(v)}</text>`);
  }
  if (ping !== undefined && Number.isFinite(ping)) {
    parts.push(`<line x1="${x(ping).toFixed(1)}" y1="${top - 5}" x2="${x(ping).toFixed(1)}" y2="${top + rows.length * rowH}" stroke="#888" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${(x(ping) + 4).toFixed(1)}" y="${top - 8}" fill="#888">raw PING p50 ${us(ping)}</text>`);
  }
  rows.forEach(({ name, color, row: r }, i) => {
    const cy = top + i * rowH + rowH / 2;
    parts.push(`<text x="${left - 10}" y="${cy + 4}" text-anchor="end">${esc(name)}</text>`);
    r.samples.forEach((s, j) => {
      const jitter = ((j * 7919) % 17) - 8;
      parts.push(`<circle cx="${x(s).toFixed(1)}" cy="${(cy + jitter).toFixed(1)}" r="2" fill="${color}" fill-opacity="0.35"/>`);
    });
    parts.push(`<line x1="${x(r.p50).toFixed(1)}" y1="${cy - 14}" x2="${x(r.p50).toFixed(1)}" y2="${cy + 14}" stroke="${color}" stroke-width="4"/>`);
    parts.push(`<line x1="${x(r.p99).toFixed(1)}" y1="${cy - 10}" x2="${x(r.p99).toFixed(1)}" y2="${cy + 10}" stroke="${color}" stroke-width="1.5"/>`);
    parts.push(`<text x="${(x(r.p50) + 6).toFixed(1)}" y="${cy - 8}" fill="${color}">${us(r.p50)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Writes `<prefix>.md`, `<prefix>.json` and `<prefix>-handoff.svg` into `dir`; returns the paths. */
export function writeReport(res: BenchResults, dir: string, prefix: string): { markdown: string; files: string[] } {
  mkdirSync(dir, { recursive: true });
  const targets = evaluateTargets(res);
  const markdown = renderMarkdown(res, targets);
  const files = [join(dir, `${prefix}.md`), join(dir, `${prefix}.json`), join(dir, `${prefix}-handoff.svg`)];
  writeFileSync(files[0] as string, markdown);
  writeFileSync(files[1] as string, `${JSON.stringify({ ...res, targets }, null, 2)}\n`);
  writeFileSync(files[2] as string, `${renderSvg(res)}\n`);
  return { markdown, files };
}

/** Java Redisson timed inside its JVMs (no peer pipe), each figure against Java's own round trip; ours beside it. */
function javaInJvmSection(res: BenchResults, ping: number): string[] {
  const out: string[] = ['### Java Redisson without the peer pipe: timed inside the JVM', ''];
  const version = res.javaInJvm?.version ?? res.javaInJvmHandoff?.version ?? res.javaInJvmContention?.version ?? '';
  if (res.javaInJvm) {
    const j = res.javaInJvm;
    const ours = res.uncontended?.rows['redisson-ts'];
    const rows: string[][] = [[`java-redisson ${j.version} (in-JVM, one thread)`, us(j.roundTrip.p50), us(j.pair.p50), us(j.pair.p99), ratio(j.pair.p50, j.roundTrip.p50)]];
    if (ours) rows.push(['redisson-ts (worker process)', us(ping), us(ours.pair.p50), us(ours.pair.p99), ratio(ours.pair.p50, ping)]);
    out.push(table(['implementation', 'own round trip p50', 'pair p50', 'pair p99', 'pair / own round trip'], rows));
    out.push('', "Java's round trip is an `EXISTS` through its own `RBucket`, timed with `System.nanoTime` like its pairs; ours is the workers' raw `PING`. Compare the last column: each pair against its own client's round trip.");
    out.push('');
  }
  if (res.javaInJvmContention) {
    const j = res.javaInJvmContention;
    const head = CONTENTION_HEAD.map((h) => (h === 'µs per op × PING' ? 'µs per op / own round trip' : h));
    const relabel = (rows: string[][], label: string): string[][] => rows.map(([, ...rest]) => [label, ...rest]);
    const rows = [...relabel(contentionRows({ 'java-redisson': j.rows }, j.roundTrip.p50), `java-redisson ${j.version} (in-JVM, 2 JVMs)`)];
    const viaPeer = res.contention?.['java-redisson'];
    if (viaPeer) rows.push(...relabel(contentionRows({ 'java-redisson': viaPeer }, ping), 'java-redisson (through the peer pipe) ¹'));
    const ours = res.contention?.['redisson-ts'];
    if (ours) rows.push(...relabel(contentionRows({ 'redisson-ts': ours }, ping), 'redisson-ts (2 worker processes)'));
    rows.sort((a, b) => Number(a[1]) - Number(b[1]));
    out.push('#### Contention: W owners over 2 JVMs (W/2 Java threads each), read-modify-write under one lock', '');
    out.push(table(head, rows));
    out.push(
      '',
      `The contention scenario's loop (\`lock()\`, \`GET\`, \`SET\` value+1 through Java's own \`RBucket\` with \`StringCodec\`, \`unlock()\`) run by Java threads, each its own owner on its JVM's one client, ${num(res.quick ? 0.5 : 2.5, 1)} s from one start instant on the shared monotonic clock (the later JVM got its request ${us(j.lateStartUs)} past it; 0: both in time). Java's own round trip: ${us(j.roundTrip.p50)} p50 (\`EXISTS\`, back to back, in these JVMs); ours: the workers' \`PING\`, ${us(ping)}. ¹ The Java rows of the contention table above (each call through the peer's pipe), divided by the workers' \`PING\` as there. Scripts per op from \`INFO commandstats\` as above. Clock check: worst disagreement ${j.clockCheckUs.toFixed(1)} µs.`,
    );
    out.push('');
  }
  if (res.javaInJvmHandoff) {
    const j = res.javaInJvmHandoff;
    const notWoken = (h: HandoffRow): string => (h.timeouts ? `**${h.timeouts}**` : '0');
    const rows: string[][] = [
      [`java-redisson ${version} (in-JVM), holder and waiter in two JVMs`, us(j.roundTrip.p50), us(j.idleRoundTrip.p50), us(j.between.p50), us(j.between.p99), us(j.between.max), String(j.between.n), notWoken(j.between), ratio(j.between.p50, j.roundTrip.p50), ratio(j.between.p50, j.idleRoundTrip.p50)],
      [`java-redisson ${version} (in-JVM), both in one JVM`, us(j.roundTrip.p50), us(j.idleRoundTrip.p50), us(j.within.p50), us(j.within.p99), us(j.within.max), String(j.within.n), notWoken(j.within), ratio(j.within.p50, j.roundTrip.p50), ratio(j.within.p50, j.idleRoundTrip.p50)],
    ];
    const h = res.handoff;
    const idle = h?.idlePing.p50 ?? NaN;
    const viaPeer = h?.rows['java-redisson'];
    if (viaPeer) rows.push(['java-redisson (through the peer pipe), two worker processes ¹', us(ping), us(idle), us(viaPeer.p50), us(viaPeer.p99), us(viaPeer.max), String(viaPeer.n), notWoken(viaPeer), ratio(viaPeer.p50, ping), ratio(viaPeer.p50, idle)]);
    const between = h?.rows['redisson-ts'];
    const within = h?.local['redisson-ts'];
    if (between) rows.push(['redisson-ts, two worker processes', us(ping), us(idle), us(between.p50), us(between.p99), us(between.max), String(between.n), notWoken(between), ratio(between.p50, ping), ratio(between.p50, idle)]);
    if (within) rows.push(['redisson-ts, one process and client', us(ping), us(idle), us(within.p50), us(within.p99), us(within.max), String(within.n), notWoken(within), ratio(within.p50, ping), ratio(within.p50, idle)]);
    if (h) rows.push(['raw PUBLISH → other process (Node)', us(ping), us(idle), us(h.relay.p50), us(h.relay.p99), us(h.relay.max), String(h.relay.n), '', ratio(h.relay.p50, ping), ratio(h.relay.p50, idle)]);
    out.push('#### Handoff: holder unlocks, a waiter blocked in `lock()` returns', '');
    out.push(table(['handoff', 'own round trip p50', 'idle round trip p50', 'handoff p50', 'handoff p99', 'handoff max', 'n', 'not woken', 'handoff / own round trip', 'handoff / idle round trip'], rows));
    out.push(
      '',
      `Java: the waiter thread blocks in \`lock()\` for ${j.settleMs} ms, then the holder thread unlocks; the sample is \`System.nanoTime\` just before \`unlock()\` to \`System.nanoTime\` when \`lock()\` returned (one host-wide CLOCK_MONOTONIC; check: worst disagreement with Node's send/receive window ${j.clockCheckUs.toFixed(1)} µs). Its own round trip is an \`EXISTS\` through \`RBucket\`, back to back and after 10 ms of sleep; ours are the workers' \`PING\`, hot and after 10 ms idle. Our rows are the handoff scenario's (the waiter parks 10 ms). ¹ The handoff table's Java row (the release call and the waiter's event cross the peer's pipe), against the workers' \`PING\` as there.`,
    );
    out.push('');
  }
  return out;
}
