/**
 * `redisson-ts bench`: runs the benchmark suite (`benchmarks/run.ts`) with tsx. Benchmarks are not
 * published, so this needs a source checkout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutRoot } from './checkout.js';
import { CliError, EXIT_OK, type CliIo } from './CliError.js';

export const BENCH_HELP = `Usage: redisson-ts bench [benchmark options]

Runs the benchmarks (benchmarks/run.ts) with tsx; every argument is passed on, e.g. --quick.
Needs a source checkout of redisson-ts (benchmarks are not part of the published package).`;

/** benchmarks/run.ts of the checkout this CLI runs from, or `undefined` for an installed CLI. */
export function benchmarkFile(): string | undefined {
  const root = checkoutRoot();
  return root === undefined ? undefined : join(root, 'benchmarks', 'run.ts');
}

export async function benchCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h') {
    io.stdout.write(`${BENCH_HELP}\n`);
    return EXIT_OK;
  }
  const file = benchmarkFile();
  if (file === undefined || !existsSync(file)) {
    throw new CliError('bench: the benchmarks run from a source checkout of redisson-ts (npm ci, then npm run bench); an installed CLI does not carry them');
  }
  let tsx: string;
  try {
    tsx = import.meta.resolve('tsx');
  } catch {
    throw new CliError('bench: tsx is not installed (run npm install in the source checkout)');
  }
  const child = spawn(process.execPath, ['--import', tsx, file, ...args], { stdio: 'inherit' });
  const unregister = io.onInterrupt(() => void child.kill('SIGINT'));
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', (error) => reject(new CliError(`bench: ${error.message}`)));
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    unregister();
  }
}
