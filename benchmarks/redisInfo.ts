/** What the server says: command counts (INFO commandstats) and connections (CLIENT LIST). */
import type { Redis } from 'ioredis';

/** Command name → calls since the last CONFIG RESETSTAT (commands run by scripts included). */
export async function commandStats(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

/** CPU time (µs, user + system) the server has used since it started (INFO cpu). */
export async function serverCpuUs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (field: string): number => Number(new RegExp(`^${field}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

export async function resetStats(redis: Redis): Promise<void> {
  await redis.config('RESETSTAT');
}

/** Script invocations (EVAL/EVALSHA and their _RO forms, FCALL) among `stats`. */
export function scriptCalls(stats: Record<string, number>): number {
  return Object.entries(stats)
    .filter(([cmd]) => /^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/.test(cmd))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Every command counted, minus the INFO/CONFIG calls the benchmark itself sends. */
export function allCalls(stats: Record<string, number>): number {
  return Object.entries(stats)
    .filter(([cmd]) => cmd !== 'info' && cmd !== 'config' && cmd !== 'client')
    .reduce((sum, [, n]) => sum + n, 0);
}

export interface ClientEntry {
  readonly id: string;
  /** Channel subscriptions of this connection. */
  readonly sub: number;
  readonly psub: number;
}

export async function clientList(redis: Redis): Promise<ClientEntry[]> {
  const text = (await redis.call('CLIENT', 'LIST')) as string;
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const f = Object.fromEntries(line.trim().split(' ').map((kv) => kv.split('=', 2) as [string, string]));
      return { id: f['id'] ?? '', sub: Number(f['sub'] ?? 0), psub: Number(f['psub'] ?? 0) };
    });
}

/** Connections opened since `before` was taken (by id), with their subscription counts. */
export function newClients(before: readonly ClientEntry[], now: readonly ClientEntry[]): ClientEntry[] {
  const seen = new Set(before.map((c) => c.id));
  return now.filter((c) => !seen.has(c.id));
}

export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
}
