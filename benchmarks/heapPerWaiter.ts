/**
 * Heap per parked waiter (issue 29), in one process: a second client holds `--locks` locks, then
 * `--waiters` owners call `getLock(name).lock()` on them (a new lock object each, as a request handler
 * does) and park. Heap after GC before and while they wait, per waiter; with `--snapshot`, two heap
 * snapshots and the growth per waiter by object kind (constructor name), largest first.
 *
 *   node --expose-gc --import tsx benchmarks/heapPerWaiter.ts [--waiters 10000] [--locks 1000] [--snapshot [--keep]]
 *
 * `--keep` leaves the two snapshot files (their paths are printed) for a closer look, e.g. in Chrome DevTools.
 * redisson-ts is loaded from its build (dist/, `node scripts/build.mjs` first), or from `--dist DIR`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { library } from './library.js';
import { sleep } from './stats.js';
import { toolRedis } from './toolRedis.js';

const { values } = parseArgs({
  options: { waiters: { type: 'string', default: '10000' }, locks: { type: 'string', default: '1000' }, snapshot: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false }, dist: { type: 'string' } },
});
const waiters = Number(values.waiters);
const locks = Number(values.locks);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Self size by node name (constructor, or the string / code kind) of a heap snapshot. */
function bySelfSize(file: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = snap.snapshot.meta.node_fields;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt] as number] ?? '?';
    const name = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt] as number] ?? ''}` : type;
    const e = out.get(name) ?? { size: 0, count: 0 };
    e.size += snap.nodes[i + sizeAt] as number;
    e.count++;
    out.set(name, e);
  }
  return out;
}

const server = await toolRedis();
const { url } = server;
const { Redisson } =
  values.dist === undefined ? await library() : ((await import(pathToFileURL(`${values.dist}/index.js`).href)) as typeof import('../src/index.js'));
const holder = Redisson.create({ redis: url });
const client = Redisson.create({ redis: url });
const prefix = `heap:${process.pid}:`;
const held = Array.from({ length: locks }, (_, i) => holder.getLock(`${prefix}${i}`));
await Promise.all(held.map((l) => l.lock()));
await client.ping();
await sleep(200);

const snapshots: string[] = [];
const h0 = heap();
if (values.snapshot) snapshots.push(writeHeapSnapshot(join(tmpdir(), `waiters-0-${process.pid}.heapsnapshot`)));
const h0b = heap();
const done: Promise<void>[] = [];
for (let i = 0; i < waiters; i++) {
  const lock = client.getLock(`${prefix}${i % locks}`);
  done.push(lock.lock().then(() => lock.unlock()));
}
// Parked: every channel subscribed, heap stable.
let last = 0;
for (let i = 0; i < 40; i++) {
  await sleep(100);
  const h = heap();
  if (i > 5 && Math.abs(h - last) < 16_384) break;
  last = h;
}
const h1 = heap();
process.stdout.write(`${waiters} waiters on ${locks} locks: heap +${h1 - h0b} B = ${((h1 - h0b) / waiters).toFixed(0)} B per waiter (node ${process.version})\n`);
if (values.snapshot) {
  snapshots.push(writeHeapSnapshot(join(tmpdir(), `waiters-1-${process.pid}.heapsnapshot`)));
  const [a, b] = [bySelfSize(snapshots[0] as string), bySelfSize(snapshots[1] as string)];
  const rows = [...b].map(([name, e]) => ({ name, size: e.size - (a.get(name)?.size ?? 0), count: e.count - (a.get(name)?.count ?? 0) })).sort((x, y) => y.size - x.size);
  process.stdout.write('\n| kind | bytes per waiter | count per waiter |\n|---|---|---|\n');
  for (const r of rows.slice(0, 30)) process.stdout.write(`| ${r.name} | ${(r.size / waiters).toFixed(0)} | ${(r.count / waiters).toFixed(2)} |\n`);
  if (values.keep) process.stdout.write(`\nsnapshots kept: ${snapshots.join(' ')}\n`);
  else for (const s of snapshots) rmSync(s);
}
void h0;
await Promise.all(held.map((l) => l.unlock()));
await Promise.all(done);
await Promise.all([holder.shutdown(), client.shutdown()]);
await server.stop();
