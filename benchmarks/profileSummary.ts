/**
 * Reads `.cpuprofile` files (`node --cpu-prof`) and prints self time per function, and per group (this
 * library, ioredis, Node's internals, GC, …), as µs per operation when `--ops N` says how many operations
 * the profile covers (issue 29). A sample's time is the gap to the next sample; idle time is left out.
 *
 *   tsx benchmarks/profileSummary.ts /tmp/prof/CPU.*.cpuprofile --ops 20000 [--top 25] [--group redisson-ts]
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

const { values, positionals } = parseArgs({ allowPositionals: true, options: { ops: { type: 'string' }, top: { type: 'string', default: '25' }, group: { type: 'string' } } });
const ops = values.ops === undefined ? NaN : Number(values.ops);
const top = Number(values.top);

/** Which part of the process a frame belongs to. */
function group(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)' || name === '(program)' || name === '(root)') return name;
  if (url.includes('/dist-before/')) return 'redisson-ts (--before build)';
  if (url.includes('/dist/') || url.includes('/src/')) return url.includes('node_modules') ? 'dependencies' : 'redisson-ts';
  if (url.includes('node_modules/ioredis') || url.includes('node_modules/redis-parser') || url.includes('node_modules/denque') || url.includes('node_modules/cluster-key-slot')) return 'ioredis';
  if (url.includes('node_modules/redis-semaphore')) return 'redis-semaphore';
  if (url.includes('/benchmarks/')) return 'benchmark';
  if (url.includes('node_modules')) return 'dependencies';
  if (url.startsWith('node:') || url === '') return 'node (internals, native)';
  return 'other';
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
    const short = url.replace(/^.*\/(node_modules\/[^/]+|dist|src|benchmarks)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
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
