/** The machine, runtime and versions a run was measured on, for the report header. */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { IMPLEMENTATION_BY_NAME, IMPLEMENTATIONS } from './adapters/index.js';
import { packageVersion } from './adapters/versions.js';
import { redisVersion } from './redisInfo.js';

export interface Environment {
  readonly date: string;
  readonly command: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  /** 1-minute load average when the run started and when it ended: other work on the machine skews results. */
  readonly loadAverage: { start: number; end?: number };
  readonly node: string;
  readonly redis: string;
  readonly redisSource: string;
  readonly java: string;
  readonly libraries: Record<string, string>;
  readonly settings: Record<string, string>;
}

function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.error || r.status !== 0) return 'not available';
  return (r.stderr || r.stdout).split('\n')[0]?.trim() ?? 'unknown';
}

export async function describeEnvironment(admin: Redis, redisSource: string, command: string): Promise<Environment> {
  const cpus = os.cpus();
  const libraries: Record<string, string> = { ioredis: packageVersion('ioredis') };
  const settings: Record<string, string> = {};
  for (const name of IMPLEMENTATIONS) {
    libraries[name] = IMPLEMENTATION_BY_NAME[name].version();
    settings[name] = IMPLEMENTATION_BY_NAME[name].settings;
  }
  return {
    date: new Date().toISOString(),
    command,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: { start: Number((os.loadavg()[0] ?? NaN).toFixed(2)) },
    node: process.version,
    redis: await redisVersion(admin),
    redisSource,
    java: javaVersion(),
    libraries,
    settings,
  };
}
