/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary, so
 * that CI logs state the count in a runner-independent form.
 *
 * A suite that cannot run here (the Java interop suites without Java/Maven) registers one placeholder test
 * named `SKIPPED: <reason>` that skips itself (it fails under CI=true instead). It is counted as skipped, not
 * passed, and its file is listed, so that the summary says what did not run.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** Prefix of the placeholder test a suite registers when its prerequisites are missing. */
export const SKIPPED_PREFIX = 'SKIPPED:';

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  /** Files whose tests were skipped as a whole (a `SKIPPED:` placeholder), relative to the root. */
  readonly skippedFiles: string[];
}

/** Counts the outcome of a run. */
export function summarize(testModules: ReadonlyArray<TestModule>): Summary {
  const summary: Summary = { passed: 0, failed: 0, skipped: 0, skippedFiles: [] };
  for (const module of testModules) {
    let placeholder = false;
    const failedBefore = summary.failed;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if ((state === 'passed' || state === 'skipped') && test.name.startsWith(SKIPPED_PREFIX)) {
        summary.skipped++;
        placeholder = true;
      } else if (state === 'passed') summary.passed++;
      else if (state === 'failed') summary.failed++;
      else summary.skipped++;
    }
    if (placeholder) summary.skippedFiles.push(module.relativeModuleId);
    // A file that failed outside its tests (a hook, an import) counts once, even with its tests skipped.
    if (module.state() === 'failed' && summary.failed === failedBefore) summary.failed++;
  }
  return summary;
}

/** The closing line (and the skipped files, one per line). */
export function formatSummary(s: Summary): string {
  const files = s.skippedFiles.map((f) => `  skipped: ${f}\n`).join('');
  return `\n${files}tests: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${s.skippedFiles.length > 0 ? ` (${s.skippedFiles.length} file${s.skippedFiles.length === 1 ? '' : 's'} not run: see "skipped:" above)` : ''}\n`;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    process.stdout.write(formatSummary(summarize(testModules)));
  }
}
