/**
 * The examples as a user runs them: each folder of examples/ copied out of the repository, installed with
 * `npm install` of the packed tarballs (test/support/pack.ts), and its `start` script run as a process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, exec, ROOT } from '../support/pack.js';

/** Copies `examples/<name>` into `work` and installs it with `tarballs` in place of the registry's. */
export async function installExample(name: string, work: string, tarballs: string[]): Promise<string> {
  const dir = join(work, name);
  cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (from) => !/[\\/]node_modules$/.test(from) });
  // The other dependencies come from the cache `npm ci` filled (the same pinned versions as the repository's).
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], dir);
  return dir;
}

/** A running example: its output so far, and its exit. */
export interface Running {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output (rejects if the process exits first). */
  match(pattern: RegExp): Promise<RegExpMatchArray>;
  readonly exit: Promise<{ code: number | null; output: string }>;
}

const children = new Set<ChildProcess>();

/** Kills the examples still running (a test that failed half-way). */
export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** Runs the example's `npm start` command (`node --import tsx <entry>`) in `dir`, with `env` added. */
export function startExample(dir: string, env: Record<string, string>): Running {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [cmd, ...args] = scripts.start.split(' ');
  if (cmd !== 'node') throw new Error(`unexpected start script ${scripts.start}`);
  const child = spawn(process.execPath, args, { cwd: dir, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const waiters: (() => void)[] = [];
  const onData = (d: Buffer): void => {
    output += d.toString();
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exit = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => {
      children.delete(child);
      for (const wake of waiters.splice(0)) wake();
      resolve({ code, output });
    }),
  );
  const match = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (;;) {
      const found = pattern.exec(output);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`example exited before printing ${pattern}:\n${output}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, output: () => output, match, exit };
}
