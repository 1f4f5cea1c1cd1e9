// Renders the interop matrix of COMPATIBILITY.md from the interop suite's results
// (test/interop/results/<redisson version>.json, written by `npm run test:interop`).
//
//   node scripts/interop-matrix.mjs           rewrite the region between the interop-matrix markers
//   node scripts/interop-matrix.mjs --check   exit 1 (with a diff) when COMPATIBILITY.md differs
//   node scripts/interop-matrix.mjs --print   print the rendered region
//
// The suite runs `--check` itself after each version's file, so the matrix cannot drift from the tests.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS_DIR = path.join(ROOT, 'test', 'interop', 'results');
const DOC = path.join(ROOT, 'COMPATIBILITY.md');
const START = '<!-- interop-matrix:start -->';
const END = '<!-- interop-matrix:end -->';
const DIRECTIONS = [
  ['java-to-ts', 'J→T'],
  ['ts-to-java', 'T→J'],
];
const SYMBOL = { pass: '✓', fail: '✗', 'n/a': 'n/a' };

// Fixed text under the table: the limits of what the suite shows (the differences on purpose are listed
// further down in COMPATIBILITY.md, by hand).
const NOT_COVERED = [
  'Differences on purpose are listed under "RLock → Differences on purpose" below. Not yet covered by the interop suite:',
  '',
  '- MultiLock/RedLock and FasterMultiLock: their interop runs in files of their own and is not in this matrix — MultiLock/RedLock over three servers (test/interop/multilock.test.ts, 4.7.0 and 3.52.0), FasterMultiLock with `StringCodec` and `LongCodec` values (test/interop/fasterMultiLock.test.ts, 4.7.0 and 3.52.0; 3.17.7 has no such lock);',
  '- deployments other than one standalone server: Sentinel (4.7.0), Cluster (4.7.0 and 3.52.0 sharded, 4.7.0 OFF and 3.17.7 classic) and replicated mode (4.7.0, one `replicatedServersConfig` file for both sides, a manual promotion included) interop run in their own files (test/interop/sentinel.test.ts, test/interop/cluster.test.ts, test/interop/replicated.test.ts) and are not in this matrix;',
  '- a Java `RLock` object reused across calls: the peer calls `getLock(name)` per call, so a reentrant unlock re-expires to `lockWatchdogTimeout` on both sides (the per-object lease of Redisson 3.27.2+ is not exercised);',
  '- `nameMapper` / ioredis `keyPrefix` shared with Java, `lockInterruptibly`, Java\'s async and reactive APIs, and reconnects or failover during a wait.',
];

/** Newest first, by numeric version parts. */
function compareVersionsDesc(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pb[i] ?? 0) - (pa[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function loadResults(dir = RESULTS_DIR) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')))
    .sort((a, b) => compareVersionsDesc(a.redisson, b.redisson));
}

const escapeCell = (text) => String(text).replace(/\|/g, '\\|');

/** The markdown between the markers (without them), deterministic for the same results. */
export function renderMatrix(results) {
  if (results.length === 0) return '_No interop results yet: run `npm run test:interop`, then `npm run interop:matrix`._';
  const rows = [];
  const seen = new Set();
  for (const r of results) {
    for (const s of r.scenarios) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      rows.push({ id: s.id, primitive: s.primitive, title: s.title });
    }
  }
  const notes = [];
  const noteNumber = (text) => {
    let i = notes.indexOf(text);
    if (i < 0) i = notes.push(text) - 1;
    return i + 1;
  };
  const header = ['Primitive', 'Scenario', ...results.flatMap((r) => DIRECTIONS.map(([, label]) => `${r.redisson} ${label}`))];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const cells = [escapeCell(row.primitive), escapeCell(row.title)];
    for (const r of results) {
      const scenario = r.scenarios.find((s) => s.id === row.id);
      for (const [direction] of DIRECTIONS) {
        const cell = scenario?.cells[direction];
        if (!cell) {
          cells.push('–');
          continue;
        }
        const mark = SYMBOL[cell.outcome] ?? '?';
        cells.push(cell.note ? `${mark} [${noteNumber(`${r.redisson}: ${cell.note}`)}]` : mark);
      }
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  const deployments = [...new Set(results.map((r) => r.deployment))].join('; ');
  const out = [
    `Measured by \`npm run test:interop\` (\`test/interop/rlock-<version>.test.ts\`): real Java Redisson next to redisson-ts on ${deployments}.`,
    'Generated from `test/interop/results/*.json` by `npm run interop:matrix`; the suite fails when this table differs from its results.',
    '',
    '**J→T**: Java holds the lock or acts, redisson-ts is excluded or woken. **T→J**: the reverse. ✓ passed, ✗ failed or did not finish, n/a not applicable; [n] refers to a note below.',
    '',
    ...lines,
  ];
  if (notes.length > 0) {
    out.push('', 'Notes (observed differences and remarks):', '');
    notes.forEach((text, i) => out.push(`${i + 1}. ${text}`));
  }
  out.push('', ...NOT_COVERED);
  return out.join('\n');
}

function splitDoc(text) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no ${START} … ${END} region`);
  return { before: text.slice(0, start + START.length), region: text.slice(start + START.length, end), after: text.slice(end) };
}

function main(argv) {
  const rendered = `\n${renderMatrix(loadResults())}\n`;
  if (argv.includes('--print')) {
    process.stdout.write(rendered);
    return 0;
  }
  const doc = readFileSync(DOC, 'utf8');
  const { before, region, after } = splitDoc(doc);
  if (argv.includes('--check')) {
    if (region === rendered) return 0;
    const want = rendered.split('\n');
    const have = region.split('\n');
    const diff = [];
    for (let i = 0; i < Math.max(want.length, have.length); i++) {
      if (want[i] !== have[i]) diff.push(`line ${i + 1}:\n  COMPATIBILITY.md: ${have[i] ?? '(none)'}\n  results:          ${want[i] ?? '(none)'}`);
    }
    process.stderr.write(
      `COMPATIBILITY.md interop matrix differs from test/interop/results/*.json; run \`npm run interop:matrix\`.\n${diff.slice(0, 6).join('\n')}\n`,
    );
    return 1;
  }
  if (region !== rendered) writeFileSync(DOC, `${before}${rendered}${after}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
