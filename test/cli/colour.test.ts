/**
 * The demo's verdicts in colour (issue 26): only on a terminal, never with NO_COLOR set, and the table's columns
 * measured without the colour codes.
 */
import { expect, it } from 'vitest';
import { ansiPaint, noPaint, paintFor } from '../../packages/cli/src/colour.js';
import { formatTable } from '../../packages/cli/src/demo/report.js';
import { DEFAULT_STRATEGIES, type StrategyResult } from '../../packages/cli/src/demo/strategies.js';

const ESC = '\u001b[';

function result(index: number, sold: number, oversold: number): StrategyResult {
  const strategy = DEFAULT_STRATEGIES[index];
  if (!strategy) throw new Error(`no strategy #${index}`);
  return {
    strategy,
    tuning: strategy.tuning,
    stock: 10,
    buyers: 4,
    sold,
    oversold,
    maxSalesOfOneUnit: oversold > 0 ? 2 : 1,
    stuck: 0,
    lostLocks: 0,
    stockLeft: 0,
    elapsedMs: 100,
    opsPerSec: 100,
    p99Ms: 3,
    soldBy: [],
  };
}

it('colours only a terminal, and NO_COLOR (any non-empty value) turns it off', () => {
  expect(paintFor({ write: () => true, isTTY: true }, {})).toBe(ansiPaint);
  expect(paintFor({ write: () => true, isTTY: true }, { NO_COLOR: '' })).toBe(ansiPaint);
  expect(paintFor({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(noPaint);
  expect(paintFor({ write: () => true }, {})).toBe(noPaint);
  expect(paintFor({ write: () => true, isTTY: false }, {})).toBe(noPaint);
});

it('OVERSOLD in bold red, correct in green; without colour the table is the same text, codes aside', () => {
  const results = [result(0, 13, 3), result(4, 10, 0)];
  const plain = formatTable(results, 100);
  const painted = formatTable(results, 100, [], ansiPaint);
  expect(plain).not.toContain(ESC);
  expect(painted).toContain(`${ESC}1;31mOVERSOLD${ESC}0m`);
  expect(painted).toContain(`${ESC}32mcorrect${ESC}0m`);
  // Strip the codes and the table is unchanged: columns are measured on the plain text.
  expect(painted.replaceAll(new RegExp(`${String.fromCharCode(27)}\\[[\\d;]*m`, 'g'), '')).toBe(plain);
});
