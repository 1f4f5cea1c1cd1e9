/**
 * The closing summary line of a test run (test/support/summaryReporter.ts): run for real in a child
 * vitest without Java, an interop file is counted — and listed — as skipped, not as passed. With Java
 * present (this machine, CI) the same file's tests pass and nothing is skipped; both are exercised by
 * pointing the peer at a missing `java` binary.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('counts an interop file as skipped, and names it, when Java is not available', () => {
  const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [vitest, 'run', 'test/interop/rlock-3.17.7.test.ts', 'test/unit/keys.test.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: '', JAVA_PEER_JAVA: '/nonexistent/java', NO_COLOR: '1' },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const summary = r.stdout.split('\n').filter((l) => l.startsWith('tests: ') || l.startsWith('  skipped: '));
  // vitest's own summary counts the placeholder as skipped too, not as passed.
  expect(r.stdout).toMatch(/Tests\s+\d+ passed \| 1 skipped \(/);
  expect(summary).toEqual(['  skipped: test/interop/rlock-3.17.7.test.ts', expect.stringMatching(/^tests: [1-9]\d* passed, 0 failed, 1 skipped \(1 file not run: see "skipped:" above\)$/)]);
}, 150_000);
