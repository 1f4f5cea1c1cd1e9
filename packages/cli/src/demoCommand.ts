/**
 * `redisson-ts demo`: the oversell story, each strategy measured live.
 */
import { intOption, parse } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './CliError.js';
import { loadJava } from './demo/javaPeer.js';
import { RLOCK_JAVA, rlockJavaStrategy } from './demo/javaStrategy.js';
import { formatTable, toRow, type NotRun } from './demo/report.js';
import { runDemo } from './demo/runDemo.js';
import { REDLOCK, REDLOCK_DELAYED, redlockStrategies } from './demo/redlockStrategy.js';
import { FENCED, fencedStrategy } from './demo/fencedStrategy.js';
import { DEFAULT_STRATEGIES, type Strategy } from './demo/strategies.js';
import { hasRedisServerBinary, INSTALL_HINT } from './RedisServerProcess.js';
import { paintFor } from './colour.js';
import { createProgressLine } from './progress.js';
import { openTarget } from './redisTarget.js';

export const DEMO_HELP = `Usage: redisson-ts demo [options]

Sells a stock of units to concurrent buyers spread over several processes, once per locking strategy,
and prints what each strategy did: units sold, oversold, buyers stuck, lost locks, throughput, p99.

Strategies: ${DEFAULT_STRATEGIES.map((s) => s.id).join(', ')}, ${RLOCK_JAVA.id}, ${REDLOCK.id}, ${REDLOCK_DELAYED.id}, ${FENCED.id}
  ${RLOCK_JAVA.id} puts half the buyers in a JVM running Java Redisson on the same lock. It needs java and
  mvn on PATH (the first run fetches Redisson from Maven Central); without them its row says why it did
  not run. The Java peer ships with the CLI (a source checkout uses test/interop's).
  ${REDLOCK.id} and ${REDLOCK_DELAYED.id} take the lock with RedLock on 5 throwaway redis-servers they start
  (also with --redis), kill two of them, then crash one under a holder: restarted at once, or after a lease.
  ${FENCED.id} repeats owner-checked's stalled holder with a FencedLock and a stock that refuses stale tokens.

Options:
  --stock N          units in stock (default 100)
  --buyers W         concurrent buyers (default 50)
  --processes P      OS processes the buyers are spread over (default 2, at least 2)
  --only IDS         run only these strategies, comma-separated (e.g. --only naive,rlock)
  --no-java          leave out ${RLOCK_JAVA.id} (no JVM is started)
  --redis URL        Redis to use (default: $REDIS_URL, else a throwaway redis-server)
  --json             print the rows as a JSON array on stdout, no progress
  -h, --help         show this help

Exit status: 0 when the demo ran (whatever the verdicts), 1 on a runtime failure, 2 on bad arguments.`;

/** How many strategies a plain `demo` (no --only, no --no-java) runs, the help's count. */
export function demoStrategyCount(): number {
  return selectStrategiesCount(selectStrategies(undefined, false));
}

function selectStrategiesCount(s: ReturnType<typeof selectStrategies>): number {
  const redlock = s.redlock === 'all' ? 2 : s.redlock === false ? 0 : s.redlock.length;
  return s.strategies.length + (s.java ? 1 : 0) + redlock + (s.fenced ? 1 : 0);
}

/** A run with no sale for this long is declared stuck; above the RLock strategy's stall and lease. */
export const STUCK_AFTER_MS = 3_000;

export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parse({
    args: [...args],
    options: {
      stock: { type: 'string' },
      buyers: { type: 'string' },
      processes: { type: 'string' },
      only: { type: 'string' },
      redis: { type: 'string' },
      json: { type: 'boolean' },
      'no-java': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${DEMO_HELP}\n`);
    return EXIT_OK;
  }
  const stock = intOption(values.stock, 'stock', 100, 1, 100_000);
  const buyers = intOption(values.buyers, 'buyers', 50, 2, 1_000);
  const processes = intOption(values.processes, 'processes', 2, 2, 16);
  if (processes > buyers) throw new UsageError(`--processes (${processes}) cannot exceed --buyers (${buyers})`);
  const { strategies, java: wantsJava, redlock: wantsRedLock, fenced: wantsFenced } = selectStrategies(values.only, values['no-java'] ?? false);
  const json = values.json ?? false;

  const target = await openTarget(values.redis, io, true);
  try {
    const progress = createProgressLine(io.stderr, json);
    if (!json) {
      io.stdout.write(`Redis: ${target.description}\n`);
      io.stdout.write(`Selling ${stock} units to ${buyers} buyers in ${processes} processes, one strategy at a time.\n`);
      io.stdout.write('Each purchase reads the stock and, if a unit is left, works a little and writes stock − 1.\n');
      io.stdout.write('A purchase of a unit that was already sold is "oversold"; a buyer that can never get the lock is "stuck".\n\n');
    }
    const notRun: NotRun[] = [];
    const toRun = [...strategies];
    if (wantsJava) {
      const java = await loadJava((text) => progress.update(`Java peer: ${text}`));
      progress.clear();
      if (java.ok) {
        toRun.push(rlockJavaStrategy(java.java));
      } else {
        notRun.push({ ...RLOCK_JAVA, reason: java.reason, hint: 'Needs java and mvn on PATH. --no-java omits it.' });
        // No table with --json: say it once on stderr instead.
        if (json) io.stderr.write(`redisson-ts demo: ${RLOCK_JAVA.id} not run: ${java.reason}\n`);
      }
    }
    if (wantsRedLock) {
      if (hasRedisServerBinary()) toRun.push(...redlockStrategies().filter((st) => wantsRedLock === 'all' || wantsRedLock.includes(st.id)));
      else {
        for (const st of [REDLOCK, REDLOCK_DELAYED]) notRun.push({ ...st, reason: 'no redis-server binary', hint: INSTALL_HINT });
        if (json) io.stderr.write(`redisson-ts demo: ${REDLOCK.id}, ${REDLOCK_DELAYED.id} not run: no redis-server binary\n`);
      }
    }
    if (wantsFenced) toRun.push(fencedStrategy());
    const results = await runDemo({
      settings: { stock, buyers, processes, redisUrl: target.url, stuckAfterMs: STUCK_AFTER_MS },
      redis: target.redis,
      strategies: toRun,
      progress,
      onInterrupt: (cleanup) => io.onInterrupt(cleanup),
    });
    if (json) {
      io.stdout.write(`${JSON.stringify(results.map(toRow), null, 2)}\n`);
    } else {
      const width = Math.min(110, Math.max(60, io.stdout.columns ?? 100));
      io.stdout.write(`${formatTable(results, width, notRun, paintFor(io.stdout))}\n`);
    }
    return EXIT_OK;
  } finally {
    await target.close();
  }
}

/** The default strategies selected by `--only`, whether strategy 7 (Java) is wanted too, and which RedLock ones. */
function selectStrategies(only: string | undefined, noJava: boolean): { strategies: readonly Strategy[]; java: boolean; redlock: 'all' | string[] | false; fenced: boolean } {
  if (only === undefined) return { strategies: DEFAULT_STRATEGIES, java: !noJava, redlock: 'all', fenced: true };
  const redlockIds: string[] = [REDLOCK.id, REDLOCK_DELAYED.id];
  const known = [...DEFAULT_STRATEGIES.map((s) => s.id), RLOCK_JAVA.id, ...redlockIds, FENCED.id];
  const ids = only.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length > 0 || ids.length === 0) {
    throw new UsageError(`--only: unknown strategy '${unknown.join(',') || only}' (known: ${known.join(', ')})`);
  }
  const java = ids.includes(RLOCK_JAVA.id);
  if (java && noJava) throw new UsageError(`--only ${RLOCK_JAVA.id} and --no-java contradict each other`);
  const redlock = ids.filter((id) => redlockIds.includes(id));
  return { strategies: DEFAULT_STRATEGIES.filter((s) => ids.includes(s.id)), java, redlock: redlock.length > 0 ? redlock : false, fenced: ids.includes(FENCED.id) };
}
