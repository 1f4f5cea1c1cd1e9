// Renders the driver matrix of COMPATIBILITY.md (driver × version × protocol × topology → tests passed per
// part) from the driver legs' results (test/package/driver-results/<leg>.json, written by a whole run of
// `node scripts/driver-leg.mjs <leg>`, i.e. `npm run test:<leg>` without `--fast` or filters).
//
//   node scripts/driver-matrix.mjs           rewrite the region between the driver-matrix markers
//   node scripts/driver-matrix.mjs --check   exit 1 (with both versions) when COMPATIBILITY.md differs
//   node scripts/driver-matrix.mjs --print   print the rendered region
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const RESULTS_DIR = path.join(ROOT, 'test', 'package', 'driver-results');
const DOC = path.join(ROOT, 'COMPATIBILITY.md');
const START = '<!-- driver-matrix:start -->';
const END = '<!-- driver-matrix:end -->';
const TOPOLOGIES = ['single', 'Sentinel', 'Cluster'];

/** The topology a test runs on, from its file and its names: Sentinel, Cluster, else one server. */
export function topologyOf(file, fullName) {
  const text = `${file} ${fullName}`;
  if (/sentinel/i.test(text)) return 'Sentinel';
  if (/cluster/i.test(text)) return 'Cluster';
  return 'single';
}

/** Passed and failed tests per topology in one vitest JSON report (skipped ones are not counted). */
export function countByTopology(report) {
  const counts = Object.fromEntries(TOPOLOGIES.map((t) => [t, { passed: 0, failed: 0 }]));
  for (const file of report.testResults ?? []) {
    const name = path.relative(ROOT, file.name ?? '');
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'passed' && test.status !== 'failed') continue;
      counts[topologyOf(name, test.fullName ?? test.title ?? '')][test.status] += 1;
    }
  }
  return counts;
}

export function loadResults(dir = RESULTS_DIR) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
}

const cell = (part, topology) => {
  if (!part) return 'not run';
  const c = part.counts?.[topology];
  if (!c) return part.ok ? 'no report' : '✗ (no report)';
  if (c.passed === 0 && c.failed === 0) return '—';
  return c.failed === 0 ? `✓ ${c.passed}` : `✗ ${c.failed} failed, ${c.passed} passed`;
};

/** The markdown between the markers (without them), deterministic for the same results. */
export function renderMatrix(results) {
  if (results.length === 0) return '_No driver results yet: run a driver leg (`npm run test:<leg>`), then `npm run driver:matrix`._';
  const parts = [...new Set(results.flatMap((r) => r.parts.map((p) => p.part)))];
  const lines = [
    `| driver | version | protocol | command | topology | ${parts.join(' | ')} |`,
    `|---|---|---|---|---|${parts.map(() => '---').join('|')}|`,
  ];
  for (const r of results) {
    for (const topology of TOPOLOGIES) {
      const byPart = parts.map((name) => cell(r.parts.find((p) => p.part === name), topology));
      if (byPart.every((c) => c === '—' || c === 'not run')) {
        lines.push(`| ${r.driver} | ${r.version} | ${r.protocol} | \`${r.command}\` | ${topology} | ${parts.map(() => 'not run').join(' | ')} |`);
        continue;
      }
      lines.push(`| ${r.driver} | ${r.version} | ${r.protocol} | \`${r.command}\` | ${topology} | ${byPart.join(' | ')} |`);
    }
  }
  lines.push('', 'Numbers are tests passed in the last whole run of each leg (`—`: the part has no test on that topology).');
  return lines.join('\n');
}

function region(doc) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`COMPATIBILITY.md has no ${START} … ${END} region`);
  return { start: start + START.length, end };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const rendered = `\n${renderMatrix(loadResults())}\n`;
  const doc = readFileSync(DOC, 'utf8');
  const { start, end } = region(doc);
  if (process.argv.includes('--print')) {
    process.stdout.write(rendered);
  } else if (process.argv.includes('--check')) {
    if (doc.slice(start, end) !== rendered) {
      console.error('COMPATIBILITY.md: the driver matrix is stale; run `npm run driver:matrix`.');
      console.error(`--- in COMPATIBILITY.md\n${doc.slice(start, end)}\n--- rendered\n${rendered}`);
      process.exit(1);
    }
  } else {
    writeFileSync(DOC, doc.slice(0, start) + rendered + doc.slice(end));
  }
}
