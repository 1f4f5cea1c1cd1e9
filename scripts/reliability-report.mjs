// Renders the Reliability guide's tables (docs/guides/reliability.md) from the fault suite's figures (test/faults/).
//
//   npm run reliability:report                 run the fault suite, keep its figures, rewrite the guide's section
//   npm run reliability:report -- --no-run     keep the figures of the last run (test/faults/results/last-run.json)
//                                              and rewrite the guide's section
//   npm run reliability:report -- --render     rewrite the guide's section from the kept figures only
//   npm run reliability:report -- --check      exit 1 when the guide's section differs from the kept figures
//   npm run reliability:report -- --print      print the rendered section
//
// Every run of the suite (also inside `npm test`) writes last-run.json, which git ignores; this script
// copies it to reliability.json, which is committed, so the guide's table is reproducible from the clone.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = path.join(ROOT, 'test', 'faults', 'results');
const LAST_RUN = path.join(RESULTS, 'last-run.json');
const KEPT = path.join(RESULTS, 'reliability.json');
const README = path.join(ROOT, 'docs', 'guides', 'reliability.md');
const SUITE = 'test/faults/faults.history.test.ts';
// The family's rows (issue 24): one figures file per test file, last-run.<suite>.json.
const FAMILY = ['locks', 'sync', 'topologies'];
const LABELS = { fairLock: 'FairLock', readWrite: 'ReadWriteLock', fencedLock: 'FencedLock', semaphore: 'RSemaphore', pes: 'RPermitExpirableSemaphore', latch: 'RCountDownLatch', redLock: 'RedLock (3 servers)' };

/** The primitive's own figure: FIFO, tokens, permits, latch releases. */
function ownFigure(s) {
  const x = s.extra ?? {};
  if (x.fifoViolations !== undefined) return `FIFO violations ${x.fifoViolations}`;
  if (x.tokens) return `tokens ${x.tokens.first}…${x.tokens.last}, out of order ${x.tokens.regressions}, restarted low after a data loss ${x.tokens.restartsLow}×`;
  if (x.latch) return `${x.latch.awaits} awaits, ${x.latch.released} released, stuck ${x.latch.stuck}, released early ${x.latch.early}, slowest release ${ms(x.latch.maxReleaseMs)}`;
  if (x.permitsAtEnd !== undefined) return `most holders at once ${x.maxHolders ?? '—'}; permits left at the end ${x.permitsAtEnd ?? '—'}`;
  return '—';
}

function renderFamily(scenarios) {
  if (!Array.isArray(scenarios) || scenarios.length === 0) return [];
  const lines = [
    '',
    'The rest of the family (`test/faults/faults.{locks,sync,topologies}.test.ts`, one Redis server per file, run side by side; the Cluster row on a 3-master cluster of its own): worker processes with 2 flows each sharing the process\'s one object (the shared-object pattern; RedLock: 1 flow, see its test), judged by the same checker with each primitive\'s rule (`test/faults/rules/`): no two exclusive holds together, a writer with nobody else, never more holders than permits; exclusive holds do the GET/SET counter section.',
    '',
    '| primitive | faults | workers × flows | load | holds | holds together the rule forbids (holder not told) | lost increments | stuck waiters | holds left behind | max recovery | its own figure | errors seen by the workers | asserted | result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of scenarios) {
    const latch = s.primitive === 'latch';
    lines.push(
      `| ${[
        s.id === 'cluster-failover' ? 'RLock (Redis Cluster)' : (LABELS[s.primitive] ?? s.primitive),
        s.fault,
        `${s.workers} × ${s.flows}`,
        `${s.loadMs / 1000} s`,
        latch ? '—' : s.holds,
        latch ? '—' : `${s.overlaps} (${s.unflaggedOverlaps})`,
        latch ? '—' : s.lostIncrements,
        latch ? '—' : s.stuckWaiters,
        latch ? '—' : s.leftBehind,
        ms(s.maxRecoveryMs),
        ownFigure(s),
        errorSummary(s.errors),
        s.asserts,
        s.passed ? 'pass' : '**fail**',
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  lines.push(
    '',
    '- The *recorded* rows are where a primitive *can* be broken, by design: Redis lost its data (every hold, permit, token counter and latch with it), or a holder stalled beyond its lease. What a data loss does: a lock is taken by a second owner while the first is told (`lockLost` / `LockLostError`); a FencedLock\'s tokens start again from 1 (*restarted low*) — a store that checks tokens must refuse them or be reset too; an RSemaphore or PermitExpirableSemaphore re-initialised by `trySetPermits` hands out its permits again while the old holders still hold theirs (*holds together* counts them; nobody is told) and the old holders\' releases then add permits; a latch that vanished counts as zero and releases its awaiters.',
    '- RSemaphore has no owner and no lease: a holder killed by `kill -9`, or an acquire whose reply a dropped connection lost (`ConnectionLostError`), keeps its permit for good, as in Java — its row records it; only the pub/sub fault is asserted for it.',
  );
  return lines;
}
const START = '<!-- reliability:start -->';
const END = '<!-- reliability:end -->';

const ms = (value) => (value === null || value === undefined ? '—' : `${Math.round(value)} ms`);
const cell = (text) => String(text).replace(/\|/g, '\\|');

/** `lock: ConnectionLostError ×3; unlock: LockLostError ×2`, or `—`. */
function errorSummary(errors) {
  const parts = [];
  for (const step of ['lock', 'cs', 'unlock']) {
    const entries = Object.entries(errors?.[step] ?? {}).sort(([a], [b]) => a.localeCompare(b));
    if (entries.length > 0) parts.push(`${step === 'cs' ? 'GET/SET' : step}: ${entries.map(([name, n]) => `${name} ×${n}`).join(', ')}`);
  }
  return parts.length > 0 ? parts.join('; ') : '—';
}

/** The markdown between the markers (without them); deterministic for the same figures. */
function renderSection(run) {
  if (!run || !Array.isArray(run.scenarios) || run.scenarios.length === 0) {
    return '_No fault-suite figures yet: run `npm run reliability:report`._';
  }
  const env = run.environment ?? {};
  const first = run.scenarios[0];
  const lines = [
    `\`npm run reliability:report\` on ${run.generatedAt}: ${env.cpu}, ${env.cores} cores, ${env.memGiB} GiB; Node ${env.node}; Redis ${env.redis} (throwaway redis-server, no persistence). Load average (1 min) at the end ${env.loadAvg1m}.`,
    '',
    `Each row: ${first.workers} worker OS processes loop \`lock()\` → GET counter → 3 ms of work → SET counter+1 → \`unlock()\` on one RLock for the load time while the fault strikes; the history checker (\`test/faults/history.ts\`) judges their logs.`,
    '',
    '| fault | lock | load | critical sections | overlapping holds (holder not told) | lost increments | stuck waiters | holds left behind | longest wait on a free lock | holds per worker | max recovery | errors seen by the workers | asserted | result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of run.scenarios) {
    lines.push(
      `| ${[
        s.faults.length > 0 ? `${s.fault} ×${s.faults.length}` : s.fault,
        s.lock,
        `${s.loadMs / 1000} s`,
        s.ops,
        `${s.overlaps} (${s.unflaggedOverlaps})`,
        s.lostIncrements,
        s.stuckWaiters,
        s.leftBehind,
        ms(s.maxFreeWaitMs),
        `${s.minHolds}–${s.maxHolds}`,
        ms(s.maxRecoveryMs),
        errorSummary(s.errors),
        s.asserts,
        s.passed ? 'pass' : '**fail**',
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  lines.push(
    '',
    'Every row asserts that no lock call hangs, that each fault is followed by an acquisition, that no waiter is stuck, that no hold is left behind, that no two holds overlap unless one holder was told it had lost the lock, and that `lock()`/`unlock()` reject only with the library\'s typed errors (an `untyped …` error in the table is a failure; the GET/SET calls are plain ioredis); the *asserted* column says what else. How to read the figures:',
    '',
    '- *overlapping holds*: pairs of logged holds (from `lock()` resolving to calling `unlock()`) that intersect by more than 1 ms on the host clock; in brackets, those where neither holder was told it had lost the lock (no `lockLost` event, `unlock()` succeeded). A successful `unlock()` proves the hold was continuous, so that bracket must stay 0 under every fault.',
    '- *lost increments*: confirmed critical sections that read the same counter value as another one, or the shortfall of the final counter against them — whichever is larger. A stalled holder\'s late SET rewinds the counter and loses every increment made meanwhile.',
    '- *stuck waiters*: waits during which the lock was free by the history (nobody holding, no lease a dead holder or an unanswered call may have left, Redis serving) for longer than lease + 2 s. *Longest wait on a free lock* is the largest such figure.',
    '- *holds left behind*: samples of the lock\'s hash (every 50 ms) that showed a worker\'s field while that worker was in no `lock()`/`unlock()` call, not holding, and not within a lease of a failed call or of its death — a hold nobody would release, as a lost acquire reply used to leave.',
    '- *holds per worker*: min–max over the workers that ran the whole time (not killed, not replacements).',
    '- *max recovery*: from each fault (kill, restart back up, pause over, SIGSTOP sent) to the next acquisition by another worker; after kill -9 it includes the lease the dead holder left.',
    '- CLIENT PAUSE and SIGSTOP longer than the lease are where a lease-based lock *can* be broken: their figures are recorded, not asserted to be zero. What is asserted there is that the stalled holder learns it; protecting the data itself takes a fencing token checked by the data store (a FencedLock).',
  );
  lines.push(...renderFamily(run.family));
  return lines.join('\n');
}

function readJson(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

function replaceSection(readme, body) {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/guides/reliability.md has no ${START} … ${END} region`);
  return `${readme.slice(0, from + START.length)}\n${body}\n${readme.slice(to)}`;
}

function main(args) {
  const readme = readFileSync(README, 'utf8');
  if (args.includes('--check')) {
    const expected = replaceSection(readme, renderSection(readJson(KEPT)));
    if (expected === readme) return 0;
    process.stderr.write('docs/guides/reliability.md\'s section differs from test/faults/results/reliability.json: run `npm run reliability:report -- --render`.\n');
    return 1;
  }
  if (args.includes('--print')) {
    process.stdout.write(`${renderSection(readJson(KEPT))}\n`);
    return 0;
  }
  let status = 0;
  if (!args.includes('--render')) {
    if (!args.includes('--no-run')) {
      const vitest = path.join(ROOT, 'node_modules', '.bin', 'vitest');
      const files = [SUITE, ...FAMILY.map((f) => `test/faults/faults.${f}.test.ts`)];
      status = spawnSync(vitest, ['run', ...files], { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
    }
    if (!existsSync(LAST_RUN)) {
      process.stderr.write(`no ${path.relative(ROOT, LAST_RUN)}: the fault suite did not write its figures\n`);
      return 1;
    }
    copyFileSync(LAST_RUN, KEPT);
    const kept = readJson(KEPT);
    kept.family = FAMILY.flatMap((f) => readJson(path.join(RESULTS, `last-run.${f}.json`))?.scenarios ?? []);
    writeFileSync(KEPT, `${JSON.stringify(kept, null, 2)}\n`);
  }
  writeFileSync(README, replaceSection(readme, renderSection(readJson(KEPT))));
  process.stdout.write(`docs/guides/reliability.md rewritten from ${path.relative(ROOT, KEPT)}\n`);
  return status;
}

process.exitCode = main(process.argv.slice(2));
