/**
 * Running npm and apps in the package tests' fresh projects (drivers.test.ts, driversTopology.test.ts): the
 * environment without an enclosing `npm test`'s variables or a driver leg's NODE_OPTIONS, a command's exit code and
 * output, and what npm prints when a peer range does not admit what is installed beside us.
 */
import { spawn } from 'node:child_process';
import { cleanEnv as packEnv } from '../support/pack.js';

/** What npm prints when the peer range does not admit the driver installed beside us. */
export const PEER_TROUBLE = /ERESOLVE|peer dep|overriding peer|Conflicting peer|invalid: /i;

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** pack.ts' environment (no `npm_*` variables of an enclosing `npm test`) without a driver leg's NODE_OPTIONS. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = packEnv(extra);
  delete env['NODE_OPTIONS'];
  return env;
}

/** Runs `cmd` to its end in `cwd`: its exit code and output. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm install` of `deps` in `cwd`, from the cache where it can. */
export const npmInstall = (cwd: string, deps: string[]): Promise<Result> => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn', ...deps], cwd);
