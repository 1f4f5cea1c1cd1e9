/** Child processes of the package tests: spawn with captured output, killed if the suite ends first. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without what an enclosing `npm test` / vitest sets (npm_* redirects npm; VITEST* a nested vitest). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|VITEST)/i.test(key) && !['INIT_CWD', 'TEST', 'NODE_OPTIONS', 'JEST_WORKER_ID'].includes(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

export const running = new Set<ChildProcess>();

export function run(cmd: string, args: string[], options: SpawnOptions): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function mustRun(cmd: string, args: string[], options: SpawnOptions): Promise<string> {
  const r = await run(cmd, args, options);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Runs `fn` and logs how long it took. */
export async function timed<T>(label: string, step: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    console.log(`${label}: ${step} took ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}
