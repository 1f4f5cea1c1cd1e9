/**
 * The Redis a stand-alone benchmark tool (cpuPerOp, heapPerWaiter, coldPath, pairedContention) measures against:
 * `REDIS_URL` when set, else a throwaway `redis-server` started for the tool.
 */
import { RedisServerProcess } from '../packages/cli/src/RedisServerProcess.js';

export interface ToolRedis {
  readonly url: string;
  /** Stops the throwaway server (nothing for `REDIS_URL`). */
  stop(): Promise<void>;
}

export async function toolRedis(): Promise<ToolRedis> {
  const given = process.env['REDIS_URL'];
  if (given) return { url: given, stop: () => Promise.resolve() };
  const server = await RedisServerProcess.start();
  return { url: server.url, stop: () => server.stop() };
}
