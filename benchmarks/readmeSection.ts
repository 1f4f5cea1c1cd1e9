/**
 * Keeps the benchmark guide (docs/guides/benchmarks.md, linked from README) equal to the latest full run: the
 * run's header (machine, versions, command), its latency table, its targets table and the handoff chart,
 * between markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../docs/guides/benchmarks.md', import.meta.url));
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

/** Section of the report markdown that starts with `### <title>`, up to the next `### `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`### ${title}`);
  if (start < 0) return '';
  const next = markdown.indexOf('\n### ', start + 4);
  return markdown.slice(start, next < 0 ? undefined : next).trim();
}

/** Rewrites the guide's section from a full run's markdown; returns false when the markers are missing. */
export function updateReadme(markdown: string): boolean {
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) return false;
  const header = markdown.split('\n### ')[0]?.replace(/^## .*\n+/, '').trim() ?? '';
  const body = [
    header,
    '![Lock handoff latency per implementation, log scale](../../benchmarks/results/bench-full-handoff.svg)',
    section(markdown, 'Latency').replace(/^### /, '#### '),
    section(markdown, 'Targets').replace(/^### /, '#### '),
    'Contention, many locks and many waiters: [benchmarks/results/bench-full.md](../../benchmarks/results/bench-full.md).',
  ].join('\n\n');
  writeFileSync(README, `${readme.slice(0, from + START.length)}\n${body}\n${readme.slice(to)}`);
  return true;
}
