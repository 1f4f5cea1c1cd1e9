#!/usr/bin/env node
/**
 * The `redisson-ts` command line: `demo`, `inspect`, `bench`. {@link main} is the whole CLI as a function
 * of its arguments (tests call it in-process); run as a program, it also wires Ctrl-C to cleanup.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BENCH_HELP, benchCommand, benchmarkFile } from './benchCommand.js';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIo } from './CliError.js';
import { DEMO_HELP, demoCommand, demoStrategyCount } from './demoCommand.js';
import { INSPECT_HELP, inspectCommand } from './inspectCommand.js';

/** 128 + SIGINT, as shells report a Ctrl-C. */
const EXIT_INTERRUPTED = 130;

type Command = (args: readonly string[], io: CliIo) => Promise<number>;

/**
 * Every command, in the order the help lists them: the top-level help is generated from this table, so what
 * it says of each command is what the command does.
 */
export const COMMANDS: Readonly<Record<string, { run: Command; help: string; usage: string; summary: readonly string[]; available?: () => boolean }>> = {
  demo: {
    run: demoCommand,
    help: DEMO_HELP,
    usage: 'demo',
    summary: [
      `the oversell story: ${demoStrategyCount()} ways to guard a stock counter, measured live: one`,
      'with half the buyers in Java Redisson (when java and mvn are there), two with RedLock on',
      'throwaway servers; starts a throwaway redis-server unless --redis or REDIS_URL is given',
    ],
  },
  inspect: {
    run: inspectCommand,
    help: INSPECT_HELP,
    usage: 'inspect <name>',
    summary: ['who holds a lock, semaphore or latch (or every key of a pattern): owners, hold', 'counts, queue, permits, TTL, waiting subscribers; --watch, --exit-code'],
  },
  bench: {
    run: benchCommand,
    help: BENCH_HELP,
    usage: 'bench [args]',
    summary: ['run the benchmarks of this source checkout'],
    // An installed CLI carries no benchmarks: the help does not offer what would only refuse.
    available: () => benchmarkFile() !== undefined,
  },
};

/** The top-level help: the commands this CLI can run here, from {@link COMMANDS}. */
export function helpText(): string {
  const rows = Object.values(COMMANDS)
    .filter((c) => c.available?.() ?? true)
    .flatMap((c) => c.summary.map((line, i) => `  ${(i === 0 ? c.usage : '').padEnd(19)}${line}`));
  return `Usage: redisson-ts <command> [options]

Commands:
${rows.join('\n')}

Options:
  -h, --help         show help (also: redisson-ts <command> --help)
  -v, --version      print the version

Exit status: 0 ok, 1 runtime failure (e.g. Redis unreachable), 2 bad arguments.`;
}

const interruptHandlers = new Set<() => void | Promise<void>>();
// Set on SIGINT/SIGTERM: what fails afterwards (killed buyers, a closed connection) is the interrupt's doing.
let interrupted = false;

/** The process's streams; cleanups registered here run on SIGINT/SIGTERM once {@link installSignalHandlers} ran. */
export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  onInterrupt(cleanup) {
    interruptHandlers.add(cleanup);
    return () => interruptHandlers.delete(cleanup);
  },
};

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Runs the CLI with `argv` (the arguments after the program name) and resolves to the exit code.
 * Errors meant for the user are printed as one line on stderr; nothing is thrown.
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      io.stderr.write(`${helpText()}\n`);
      return EXIT_USAGE;
    }
    if (command === '--help' || command === '-h') {
      io.stdout.write(`${helpText()}\n`);
      return EXIT_OK;
    }
    if (command === 'help') {
      const topic = rest[0] === undefined ? undefined : COMMANDS[rest[0]];
      if (rest[0] !== undefined && !topic) throw new UsageError(`unknown command '${rest[0]}'`);
      io.stdout.write(`${topic?.help ?? helpText()}\n`);
      return EXIT_OK;
    }
    if (command === '--version' || command === '-v') {
      io.stdout.write(`${version()}\n`);
      return EXIT_OK;
    }
    const entry = COMMANDS[command];
    if (!entry) throw new UsageError(command.startsWith('-') ? `unknown option '${command}'` : `unknown command '${command}'`);
    return await entry.run(rest, io);
  } catch (error) {
    if (interrupted) return EXIT_INTERRUPTED;
    if (error instanceof UsageError) {
      const helpFor = command !== undefined && COMMANDS[command] ? `redisson-ts ${command} --help` : 'redisson-ts --help';
      io.stderr.write(`redisson-ts: ${error.message} (see ${helpFor})\n`);
      return error.exitCode;
    }
    if (error instanceof CliError) {
      io.stderr.write(`redisson-ts: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`redisson-ts: ${message.split('\n')[0] ?? 'unexpected error'}\n`);
    if (process.env.REDISSON_TS_DEBUG) io.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
    return EXIT_FAILURE;
  }
}

/** On SIGINT/SIGTERM: run the registered cleanups (at most 5 s), then exit 130/143. A second signal exits at once. */
export function installSignalHandlers(): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = signal === 'SIGINT' ? EXIT_INTERRUPTED : 143;
    if (interrupted) process.exit(code);
    interrupted = true;
    process.stderr.write(`\nredisson-ts: interrupted, cleaning up…\n`);
    const cleanups = [...interruptHandlers].map(async (cleanup) => cleanup());
    const deadline = new Promise((resolve) => setTimeout(resolve, 5_000).unref());
    void Promise.race([Promise.allSettled(cleanups), deadline]).then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  installSignalHandlers();
  process.exitCode = await main(process.argv.slice(2));
}
