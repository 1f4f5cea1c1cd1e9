/**
 * `NODE_DEBUG=redisson-ts` logs every traced operation to stderr through `util.debuglog` (no dependency):
 * a real process locks and unlocks against a real redis-server and its stderr names each event in order.
 * Without NODE_DEBUG it logs nothing.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { uniqueName, useRedis } from '../support/redis.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const suite = useRedis();

/** Runs a lock/unlock in a child process; resolves with its stderr. */
function run(name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `
    import { Redisson } from './src/index.ts';
    const client = Redisson.create({ redis: ${JSON.stringify(suite.redis.url)} });
    const lock = client.getLock(${JSON.stringify(name)});
    await lock.lock();
    await lock.unlock();
    await client.shutdown();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stderr) : reject(new Error(`exit ${String(code)}: ${stderr}`))));
  });
}

it('logs acquire and release events with NODE_DEBUG=redisson-ts, and nothing without it', async () => {
  const name = uniqueName('debug');
  const logged = await run(name, { NODE_DEBUG: 'redisson-ts' });
  const lines = logged.split('\n').filter((l) => l.startsWith('REDISSON-TS'));
  expect(lines.map((l) => /REDISSON-TS \d+: (\w+ \w+)/.exec(l)?.[1])).toEqual(['acquire start', 'acquire asyncEnd', 'release start', 'release asyncEnd']);
  expect(lines[1]).toContain(`name="${name}"`);
  expect(lines[1]).toContain('acquired=true');
  expect(lines[3]).toContain('released=true');
  const quiet = await run(uniqueName('debug'), { NODE_DEBUG: '' });
  expect(quiet).not.toContain('REDISSON-TS');
}, 60_000);
