/**
 * Running the CLI in tests: as a real process (`node --import tsx packages/cli/src/main.ts …`, what `npm run demo`
 * and the `bin` do), or in-process through `main(argv, io)` with captured output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../packages/cli/src/CliError.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the CLI as a child process; `REDIS_URL` is removed from its environment unless given in `env`. */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  const { REDIS_URL: _ignored, ...inherited } = process.env;
  return spawn(process.execPath, ['--import', 'tsx', 'packages/cli/src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the exit status and the whole output of `child`. */
export function completion(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs the CLI to completion as a child process. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return completion(spawnCli(args, env));
}

/** Runs `main(argv)` in this process with captured output. */
export async function runMain(main: (argv: readonly string[], io: CliIo) => Promise<number>, args: readonly string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    onInterrupt: () => () => undefined,
  };
  const code = await main(args, io);
  return { code, signal: null, stdout, stderr };
}
