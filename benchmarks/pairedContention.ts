/**
 * Paired contention (issue 29): the contention rows' ratio of one implementation to another (by default
 * redisson-ts to the bare-protocol control), measured in alternating short slices instead of one run each.
 *
 * In `npm run bench` each contention row is one 2.5 s run per implementation, and the runs being compared
 * are tens of seconds apart (every other implementation runs in between). On a shared 2-core VM the
 * machine's speed drifts over that time, and the ratio of two such runs moved by up to ±40 % between
 * full runs (benchmarks/README.md, issue 29). Here the two implementations run in turns, A B B A A B …
 * (each on its own pair of worker processes, kept for the whole run), and every turn of A is divided by the
 * turn of B next to it: drift slower than a slice cancels out of each ratio. The median of those ratios is
 * the figure; their range says how far one pair of slices can be trusted.
 *
 *   tsx benchmarks/pairedContention.ts                              # every layout, W = 2, 16, 64, 8 slices of 1 s
 *   tsx benchmarks/pairedContention.ts --layouts shared --w 16 --slices 12
 *   tsx benchmarks/pairedContention.ts --a redisson-ts --b redisson-ts   # A/A: the method's own noise
 *   tsx benchmarks/pairedContention.ts --b redisson-ts --b-env KEY=VALUE  # one build, a switch on one side
 *
 * Layouts: `shared` (W owners over 2 processes, one client per process: the bench's "Contention" table),
 * `own-2` (a client per owner, over 2 processes), `own-1` (a client per owner, 1 process). The owners do
 * what the bench's owners do (worker.ts `contend`: GET, then SET value+1 under the lock), and the counter is
 * checked after every slice. redisson-ts is loaded from its build (dist/, made here first).
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { IMPLEMENTATIONS, type ImplName } from './adapters/index.js';
import { buildLibrary } from './library.js';
import { WorkerProcess } from './rpc.js';
import { toolRedis } from './toolRedis.js';
import { median } from './stats.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'redisson-ts' },
    b: { type: 'string', default: 'bare-protocol' },
    layouts: { type: 'string', default: 'shared,own-2,own-1' },
    w: { type: 'string', default: '2,16,64' },
    slices: { type: 'string', default: '8' },
    'slice-ms': { type: 'string', default: '1000' },
    /** `KEY=VALUE,…` added to side A's (B's) worker environment: the same build with a switch on one side. */
    'a-env': { type: 'string' },
    'b-env': { type: 'string' },
  },
});

for (const impl of [values.a, values.b]) {
  if (!(IMPLEMENTATIONS as readonly string[]).includes(impl)) throw new Error(`unknown implementation ${impl} (known: ${IMPLEMENTATIONS.join(', ')})`);
}
const [implA, implB] = [values.a as ImplName, values.b as ImplName];

interface Layout {
  readonly processes: 1 | 2;
  readonly clientPerOwner: boolean;
  readonly what: string;
}
const LAYOUTS: Record<string, Layout> = {
  shared: { processes: 2, clientPerOwner: false, what: 'W owners over 2 processes, a client each' },
  'own-2': { processes: 2, clientPerOwner: true, what: 'a client per owner, 2 processes' },
  'own-1': { processes: 1, clientPerOwner: true, what: 'a client per owner, 1 process' },
};
const layouts = values.layouts.split(',').map((l) => {
  const layout = LAYOUTS[l.trim()];
  if (!layout) throw new Error(`unknown layout ${l} (known: ${Object.keys(LAYOUTS).join(', ')})`);
  return [l.trim(), layout] as const;
});
const counts = values.w.split(',').map(Number);
const slices = Number(values.slices);
const sliceMs = Number(values['slice-ms']);
// Owners are split evenly over the processes, as in the bench.
if (counts.some((w) => !Number.isInteger(w) || w < 2 || w % 2 !== 0) || !(slices >= 2) || !(sliceMs >= 100)) throw new Error('--w: even integers ≥ 2; --slices ≥ 2; --slice-ms ≥ 100');

interface Part {
  ops: number[];
  late: number;
  stuck: number;
  cpuUs: number;
  errors: string[];
}
interface Slice {
  opsPerSec: number;
  cpuPerOp: number;
  minOps: number;
  maxOps: number;
}

buildLibrary();
const server = await toolRedis();
const { url } = server;
const admin = new Redis(url);
// Each side on its own two workers for the whole run (the same processes in every slice; an A/A run too).
function envOf(given: string | undefined): Record<string, string> | undefined {
  if (given === undefined) return undefined;
  return Object.fromEntries(
    given.split(',').map((kv) => {
      const at = kv.indexOf('=');
      if (at <= 0) throw new Error(`--a-env / --b-env: expected KEY=VALUE, got ${kv}`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
}
const [envA, envB] = [envOf(values['a-env']), envOf(values['b-env'])];
// Each side on its own two workers for the whole run (the same processes in every slice; an A/A run too).
const pairs: Record<'A' | 'B', WorkerProcess[]> = { A: [], B: [] };
let sliceNo = 0;
async function slice(side: 'A' | 'B', layout: Layout, w: number): Promise<Slice> {
  const impl = side === 'A' ? implA : implB;
  const procs = pairs[side].slice(0, layout.processes);
  const tag = `${side}:${w}:${layout.processes}:${layout.clientPerOwner ? 'own' : 'shared'}:${sliceNo++}`;
  const counter = `paired:counter:${tag}`;
  const parts = await Promise.all(
    procs.map((worker) =>
      worker.call<Part>('contend', {
        impl,
        url,
        name: `paired:lock:${side}:${w}:${layout.processes}:${layout.clientPerOwner ? 'own' : 'shared'}`,
        counter,
        workers: w / procs.length,
        durationMs: sliceMs,
        graceMs: 4_000,
        clientPerOwner: layout.clientPerOwner,
        users: false,
      }),
    ),
  );
  const ops = parts.flatMap((p) => p.ops);
  const total = ops.reduce((s, n) => s + n, 0);
  const late = parts.reduce((s, p) => s + p.late, 0);
  const value = Number((await admin.get(counter)) ?? '0');
  await admin.del(counter);
  const errors = parts.flatMap((p) => p.errors);
  if (errors.length > 0 || parts.some((p) => p.stuck > 0)) throw new Error(`${impl} W=${w}: ${errors[0] ?? 'owners stuck'}`);
  if (value !== total + late) throw new Error(`${impl} W=${w}: counter ${value} after ${total + late} ops: mutual exclusion broken`);
  return { opsPerSec: total / (sliceMs / 1_000), cpuPerOp: parts.reduce((s, p) => s + p.cpuUs, 0) / total, minOps: Math.min(...ops), maxOps: Math.max(...ops) };
}

const fmt = (x: number, d = 2): string => x.toFixed(d);
const range = (xs: number[]): string => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;

try {
  for (const side of ['A', 'B'] as const) {
    const env = side === 'A' ? envA : envB;
    for (const i of [1, 2]) pairs[side].push(await WorkerProcess.start(`paired-${side}-${i}`, env));
  }
  console.log(`A = ${implA}${envA ? ` (${values['a-env']})` : ''}, B = ${implB}${envB ? ` (${values['b-env']})` : ''}; ${slices} pairs of ${sliceMs} ms slices per row, alternated (A B, B A, …); ratios A ÷ B per pair: median (range)\n`);
  console.log('| layout | W | ops/s A / B (median) | ops/s A ÷ B | client CPU µs/op A / B | CPU A ÷ B | owner ops min / max, A | the same, B |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, layout] of layouts) {
    for (const w of counts) {
      // One warm-up slice each (JIT, scripts, subscriptions), not counted.
      await slice('A', layout, w);
      await slice('B', layout, w);
      const a: Slice[] = [];
      const b: Slice[] = [];
      for (let i = 0; i < slices; i++) {
        // A B, B A, A B, …: each side goes first as often as second.
        const order: ('A' | 'B')[] = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
        for (const side of order) (side === 'A' ? a : b).push(await slice(side, layout, w));
        process.stderr.write(`\r${name} W=${w}: ${i + 1}/${slices} `);
      }
      process.stderr.write('\n');
      const opsRatios = a.map((s, i) => s.opsPerSec / (b[i] as Slice).opsPerSec);
      const cpuRatios = a.map((s, i) => s.cpuPerOp / (b[i] as Slice).cpuPerOp);
      const fair = (s: Slice[]): string => `${Math.min(...s.map((x) => x.minOps))} / ${Math.max(...s.map((x) => x.maxOps))}`;
      // Each row as it is measured: a failure later keeps the rows before it.
      console.log(
        `| ${layout.what} | ${w} | ${Math.round(median(a.map((s) => s.opsPerSec)))} / ${Math.round(median(b.map((s) => s.opsPerSec)))} | ` +
          `**${fmt(median(opsRatios))}** (${range(opsRatios)}) | ${Math.round(median(a.map((s) => s.cpuPerOp)))} / ${Math.round(median(b.map((s) => s.cpuPerOp)))} | ` +
          `**${fmt(median(cpuRatios))}** (${range(cpuRatios)}) | ${fair(a)} | ${fair(b)} |`,
      );
    }
  }
} finally {
  await Promise.all([...pairs.A, ...pairs.B].map((p) => p.stop()));
  admin.disconnect();
  await server.stop();
}
