/**
 * The one test an interop file registers when Java/Maven is missing: skipped (vitest's own summary and
 * ours count it so, and name the file), or failed under CI=true, where interop is required.
 */
import { it } from 'vitest';
import { SKIPPED_PREFIX } from '../../support/summaryReporter.js';

export function javaMissingPlaceholder(label: string, reason: string): void {
  const ci = process.env['CI'] === 'true';
  it(`${ci ? 'FAILED (CI=true requires Java and Maven)' : SKIPPED_PREFIX} Java/Maven not available – ${reason} [${label}]`, (ctx) => {
    console.warn(`[${label}] ${ci ? 'FAILED' : 'SKIPPED'}: Java/Maven not available – ${reason}`);
    if (ci) throw new Error(`CI=true: the interop suite needs Java and Maven (${reason})`);
    ctx.skip(reason);
  });
}
