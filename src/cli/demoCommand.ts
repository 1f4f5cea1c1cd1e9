/**
 * `redisson-ts demo`: the oversell story, each strategy measured live.
 */
import { intOption, parse } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './CliError.js';
import { formatTable, toRow } from './demo/report.js';
import { runDemo } from './demo/runDemo.js';
import { DEFAULT_STRATEGIES, type Strategy } from './demo/strategies.js';
import { createProgressLine } from './progress.js';
import { openTarget } from './redisTarget.js';

export const DEMO_HELP = `Usage: redisson-ts demo [options]

Sells a stock of units to concurrent buyers spread over several processes, once per locking strategy,
and prints what each strategy did: units sold, oversold, buyers stuck, lost locks, throughput, p99.

Strategies: ${DEFAULT_STRATEGIES.map((s) => s.id).join(', ')}

Options:
  --stock N          units in stock (default 100)
  --buyers W         concurrent buyers (default 50)
  --processes P      OS processes the buyers are spread over (default 2, at least 2)
  --only IDS         run only these strategies, comma-separated (e.g. --only naive,rlock)
  --redis URL        Redis to use (default: $REDIS_URL, else a throwaway redis-server)
  --json             print the rows as a JSON array on stdout, no progress
  -h, --help         show this help

Exit status: 0 when the demo ran (whatever the verdicts), 1 on a runtime failure, 2 on bad arguments.`;

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
  const strategies = selectStrategies(values.only);
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
    const results = await runDemo({
      settings: { stock, buyers, processes, redisUrl: target.url, stuckAfterMs: STUCK_AFTER_MS },
      redis: target.redis,
      strategies,
      progress,
      onInterrupt: (cleanup) => io.onInterrupt(cleanup),
    });
    if (json) {
      io.stdout.write(`${JSON.stringify(results.map(toRow), null, 2)}\n`);
    } else {
      const width = Math.min(110, Math.max(60, io.stdout.columns ?? 100));
      io.stdout.write(`${formatTable(results, width)}\n`);
    }
    return EXIT_OK;
  } finally {
    await target.close();
  }
}

function selectStrategies(only: string | undefined): readonly Strategy[] {
  if (only === undefined) return DEFAULT_STRATEGIES;
  const ids = only.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !DEFAULT_STRATEGIES.some((s) => s.id === id));
  if (unknown.length > 0 || ids.length === 0) {
    throw new UsageError(`--only: unknown strategy '${unknown.join(',') || only}' (known: ${DEFAULT_STRATEGIES.map((s) => s.id).join(', ')})`);
  }
  return DEFAULT_STRATEGIES.filter((s) => ids.includes(s.id));
}
