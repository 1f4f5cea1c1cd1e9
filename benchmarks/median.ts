/**
 * The targets over several full runs (issue 29's "median of three full runs"): each run's results are
 * evaluated as `npm run bench` does (targets.ts), and a target that bounds a ratio is judged on the median of
 * its runs' ratios; a yes/no target says in how many runs it was met.
 *
 *   tsx benchmarks/median.ts DIR|FILE.json ... [--out FILE.md]
 *
 * A directory stands for its `bench-full.json` (the file `npm run bench -- --out DIR` writes).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchResults } from './report.js';
import { evaluateTargets, type TargetCheck } from './targets.js';
import { median } from './stats.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
if (positionals.length === 0) throw new Error('usage: tsx benchmarks/median.ts DIR|FILE.json ... [--out FILE.md]');

const runs = positionals.map((given) => {
  const file = statSync(given).isDirectory() ? join(given, 'bench-full.json') : given;
  if (!existsSync(file)) throw new Error(`${file}: no results (run \`npm run bench -- --out DIR\` first)`);
  const res = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  if (res.quick) throw new Error(`${file}: a quick run; the median is taken over full runs`);
  return { file, res, checks: evaluateTargets(res) };
});


const r2 = (x: number): string => x.toFixed(2);
// Targets in the order of the first run that has them.
const names: string[] = [];
for (const run of runs) for (const c of run.checks) if (!names.includes(c.target)) names.push(c.target);

const lines: string[] = [];
lines.push(`| target | ${runs.map((_, i) => `run ${i + 1}`).join(' | ')} | median | status |`);
lines.push(`| --- | ${runs.map(() => '---').join(' | ')} | --- | --- |`);
let met = 0;
let missed = 0;
for (const name of names) {
  const checks = runs.map((run) => run.checks.find((c) => c.target === name));
  const ratios = checks.map((c) => c?.ratio);
  const cells = checks.map((c) => (c === undefined || c.met === null ? 'n/a' : c.ratio ? `${r2(c.ratio.value)}${c.met ? '' : ' ✗'}` : c.met ? 'met' : 'missed'));
  let mid = '';
  let status: string;
  const known = ratios.filter((r): r is NonNullable<TargetCheck['ratio']> => r !== undefined);
  if (known.length > 0) {
    const m = median(known.map((r) => r.value));
    const ok = known[0]?.bound === 'max' ? m <= (known[0]?.limit ?? NaN) : m >= (known[0]?.limit ?? NaN);
    mid = r2(m);
    status = ok ? 'met' : '**missed**';
    if (ok) met++;
    else missed++;
  } else {
    const judged = checks.filter((c) => c !== undefined && c.met !== null);
    const yes = judged.filter((c) => c?.met === true).length;
    status = judged.length === 0 ? 'not evaluated' : yes === judged.length ? `met in ${yes} of ${judged.length}` : `**met in ${yes} of ${judged.length}**`;
    if (judged.length > 0) {
      if (yes * 2 > judged.length) met++;
      else missed++;
    }
  }
  lines.push(`| ${name} | ${cells.join(' | ')} | ${mid} | ${status} |`);
}

const header = [
  `Targets over ${runs.length} full runs (\`tsx benchmarks/median.ts\`): a ratio target is judged on the median of its runs' ratios (✗ marks a run that missed it); a yes/no target says in how many runs it was met.`,
  '',
  ...runs.map((run, i) => `- run ${i + 1}: ${run.file}, ${run.res.env.date}, load average ${run.res.env.loadAverage.start} → ${run.res.env.loadAverage.end ?? 'n/a'}`),
  '',
];
const markdown = [...header, ...lines, '', `${met} met, ${missed} missed (by the median, or by a majority of runs).`].join('\n');
process.stdout.write(`${markdown}\n`);
if (values.out) writeFileSync(values.out, `${markdown}\n`);
