/**
 * Reads `.cpuprofile` files (`node --cpu-prof`) and prints self time per function, and per group (this
 * library, ioredis, Node's internals, GC, …), as µs per operation when `--ops N` says how many operations
 * the profile covers (issue 29). A sample's time is the gap to the next sample; idle time is left out.
 *
 *   tsx benchmarks/profileSummary.ts /tmp/prof/CPU.*.cpuprofile --ops 20000 [--top 25] [--group redisson-ts]
 *
 * With `--alloc`, reads sampling heap profiles instead (`cpuPerOp.ts --alloc`, young garbage included) and prints
 * bytes allocated per operation, by group and by function. An allocation made by a native or Node-internal frame
 * (a `Map`'s table, a `Promise`, a string builtin) is charged to the nearest frame of the groups above it, named
 * `caller > builtin`.
 *
 *   tsx benchmarks/profileSummary.ts --alloc /tmp/pair.heapprofile --ops 4000
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly Node[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { ops: { type: 'string' }, top: { type: 'string', default: '25' }, group: { type: 'string' }, alloc: { type: 'boolean', default: false } },
});
const ops = values.ops === undefined ? NaN : Number(values.ops);
const top = Number(values.top);

/** Which part of the process a frame belongs to. */
function group(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)' || name === '(program)' || name === '(root)') return name;
  if (url.includes('/dist-before/') || url.includes('/.before-dist/')) return 'redisson-ts (--before build)';
  if (url.includes('/dist/') || url.includes('/src/')) return url.includes('node_modules') ? 'dependencies' : 'redisson-ts';
  if (url.includes('node_modules/ioredis') || url.includes('node_modules/redis-parser') || url.includes('node_modules/denque') || url.includes('node_modules/cluster-key-slot')) return 'ioredis';
  if (url.includes('node_modules/redis-semaphore')) return 'redis-semaphore';
  if (url.includes('/benchmarks/')) return 'benchmark';
  if (url.includes('node_modules')) return 'dependencies';
  if (url.startsWith('node:') || url === '') return 'node (internals, native)';
  return 'other';
}

interface HeapNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

/** Name of a frame as printed: function, file (shortened) and line. */
function frameName(functionName: string, url: string, lineNumber: number): string {
  const short = url.replace(/^.*\/(node_modules\/[^/]+|dist|src|benchmarks)\//, '$1/');
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}

/** `--alloc`: bytes per op from sampling heap profiles, natives charged to their nearest JS caller. */
function allocSummary(files: readonly string[]): void {
  const byFn = new Map<string, number>();
  const byGrp = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, caller: { name: string; group: string } | null): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const g = group(url, functionName);
    const internal = g === 'node (internals, native)';
    const here = internal ? caller : { name: frameName(functionName, url, lineNumber), group: g };
    if (node.selfSize > 0) {
      total += node.selfSize;
      const name = internal ? (caller ? `${caller.name} > ${functionName || '(native)'}` : frameName(functionName, url, lineNumber)) : (here?.name ?? '');
      const grp = here?.group ?? g;
      if (values.group === undefined || values.group === grp) byFn.set(name, (byFn.get(name) ?? 0) + node.selfSize);
      byGrp.set(grp, (byGrp.get(grp) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  for (const file of files) walk((JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head, null);
  const per = (bytes: number): string => (Number.isNaN(ops) ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / ops).toFixed(0)} B/op`);
  process.stdout.write(`allocated ${per(total)} (sampled; young garbage included)\n\n| group | allocated |\n|---|---|\n`);
  for (const [g, b] of [...byGrp].sort((a, b2) => b2[1] - a[1])) process.stdout.write(`| ${g} | ${per(b)} |\n`);
  process.stdout.write('\n| function | allocated |\n|---|---|\n');
  for (const [f, b] of [...byFn].sort((a, b2) => b2[1] - a[1]).slice(0, top)) process.stdout.write(`| ${f} | ${per(b)} |\n`);
}

if (values.alloc) {
  allocSummary(positionals);
  process.exit(0);
}

const byFunction = new Map<string, number>();
const byGroup = new Map<string, number>();
let busy = 0;
let idle = 0;
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i] as number);
    // A sample stands for the time until the next one.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const g = group(url, functionName);
    if (g === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    const key = frameName(functionName, url, lineNumber);
    if (values.group === undefined || values.group === g) byFunction.set(key, (byFunction.get(key) ?? 0) + dt);
    byGroup.set(g, (byGroup.get(g) ?? 0) + dt);
  }
}

const per = (us: number): string => (Number.isNaN(ops) ? `${(us / 1_000).toFixed(1)} ms` : `${(us / ops).toFixed(2)} µs/op`);
const share = (us: number): string => `${((100 * us) / busy).toFixed(1)} %`;
process.stdout.write(`busy ${(busy / 1_000).toFixed(0)} ms, idle ${(idle / 1_000).toFixed(0)} ms${Number.isNaN(ops) ? '' : `; busy ${per(busy)}`}\n\n`);
process.stdout.write('| group | self | share |\n|---|---|---|\n');
for (const [g, us] of [...byGroup].sort((a, b) => b[1] - a[1])) process.stdout.write(`| ${g} | ${per(us)} | ${share(us)} |\n`);
process.stdout.write('\n| function | self | share |\n|---|---|---|\n');
for (const [f, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`| ${f} | ${per(us)} | ${share(us)} |\n`);
