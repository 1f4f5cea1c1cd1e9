/**
 * How the demo's results are shown: the table with a paragraph under each row that failed, and the
 * `--json` rows.
 */
import { verdictOf, type StrategyResult, type Verdict } from './strategies.js';
import { noPaint, type Paint } from '../colour.js';

/** One row of `--json`. */
export interface ResultRow {
  readonly strategy: string;
  readonly id: string;
  readonly verdict: Verdict;
  readonly sold: number;
  readonly oversold: number;
  readonly stuck: number;
  readonly lostLocks: number;
  readonly opsPerSec: number;
  readonly p99Ms: number;
}

export function toRow(r: StrategyResult): ResultRow {
  return {
    strategy: r.strategy.title.replace(/^\d+\.\s*/, ''),
    id: r.strategy.id,
    verdict: verdictOf(r),
    sold: r.sold,
    oversold: r.oversold,
    stuck: r.stuck,
    lostLocks: r.lostLocks,
    opsPerSec: Math.round(r.opsPerSec),
    p99Ms: Math.round(r.p99Ms * 10) / 10,
  };
}

const VERDICT_LABEL: Record<Verdict, string> = { oversold: 'OVERSOLD', stuck: 'STUCK', incomplete: 'INCOMPLETE', correct: 'correct' };

/** Wraps `text` at `width` columns, each line prefixed with `indent`. */
export function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}

/** The strategy's own paragraph, or a plain statement when this run did not show what it is there to show. */
export function explanation(r: StrategyResult): string {
  const verdict = verdictOf(r);
  if (verdict === r.strategy.expected) return r.strategy.explain(r);
  return `This run did not show what this strategy is here to show (${VERDICT_LABEL[r.strategy.expected]}); it measured ${VERDICT_LABEL[verdict]}: ${r.sold} sold of ${r.stock}, ${r.oversold} oversold, ${r.stuck} stuck. Timing-dependent failures need enough concurrent buyers: try more --buyers.`;
}

/** A strategy that was selected but could not run (strategy 7 without Java, say). */
export interface NotRun {
  readonly title: string;
  readonly reason: string;
  /** What would make it run, printed under the row. */
  readonly hint: string;
}

const VERDICT_COLOUR: Record<Verdict, 'red' | 'green' | 'yellow'> = { oversold: 'red', stuck: 'red', incomplete: 'yellow', correct: 'green' };

/**
 * The table plus explanations, as printed by `demo`; strategies that could not run come last. `paint` colours
 * the verdicts (see colour.ts); the columns are measured without it.
 */
export function formatTable(results: readonly StrategyResult[], width = 100, notRun: readonly NotRun[] = [], paint: Paint = noPaint): string {
  const header = ['strategy', 'sold', 'oversold', 'stuck', 'lost locks', 'ops/s', 'p99 ms', 'verdict'];
  const rows = results.map((r) => {
    const row = toRow(r);
    return [r.strategy.title, String(row.sold), String(row.oversold), String(row.stuck), String(row.lostLocks), String(row.opsPerSec), row.p99Ms.toFixed(1), VERDICT_LABEL[row.verdict]];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), ...(i === 0 ? notRun.map((n) => n.title.length) : [])));
  const fmt = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const out = [fmt(header), widths.map((w) => '─'.repeat(w)).join('  ')];
  results.forEach((r, i) => {
    const line = fmt(rows[i] ?? []);
    // The verdict is the last cell and nothing follows it on the line.
    const verdict = verdictOf(r);
    const label = VERDICT_LABEL[verdict];
    out.push(`${line.slice(0, line.length - label.length)}${paint(label, VERDICT_COLOUR[verdict])}`);
    out.push(wrap(explanation(r), width, '    '), '');
  });
  for (const n of notRun) {
    out.push(`${n.title.padEnd(widths[0] ?? 0)}  not run (${n.reason})`);
    out.push(wrap(n.hint, width, '    '), '');
  }
  return out.join('\n').trimEnd();
}
