/**
 * Shutdown leaves nothing behind (issue 26): with Redis away, once `shutdown()` has resolved the process has
 * no socket and no timer of the client library left, so it can exit at once. ioredis 5 `disconnect()` arms a
 * 2 s socket-destroy timer that an already closed (Redis killed) or unanswered (Redis stopped) socket never
 * clears; it kept the process alive about 2 s. Each case runs in a process of its own so that what is left is
 * the client's alone.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { within } from '../support/redis.js';

const WORKER = fileURLToPath(new URL('../fixtures/shutdownWorker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const servers: RedisServerProcess[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.resume();
    await server.stop();
  }
});

async function shutDownWhileAway(mode: 'killed' | 'paused'): Promise<{ code: number | null; report: { resources: string[]; waiter: string } }> {
  const server = await RedisServerProcess.start();
  servers.push(server);
  const child = fork(WORKER, [server.url, mode], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await within(new Promise((resolve) => child.once('message', resolve)), 30_000, `the worker getting ready: ${output}`);
    if (mode === 'killed') await server.kill();
    else server.pause();
    child.send({ type: 'down' });
    // A hang guard only: the assertion is on what the child reports it still has open.
    const code = await within(exited, 30_000, 'the worker exiting');
    const line = output.trim().split('\n').at(-1) ?? '';
    return { code, report: JSON.parse(line) as { resources: string[]; waiter: string } };
  } finally {
    child.kill('SIGKILL');
  }
}

it('Redis killed, the client between reconnect attempts: after shutdown() no timer or socket is left', async () => {
  const { code, report } = await shutDownWhileAway('killed');
  expect(code).toBe(0);
  expect(report.waiter).toBe('RedissonShutdownError');
  expect(report.resources.filter((r) => r === 'Timeout' || r.startsWith('TCP'))).toEqual([]);
});

it('Redis stopped (SIGSTOP), QUIT unanswered: after shutdown() no timer or socket is left', async () => {
  const { code, report } = await shutDownWhileAway('paused');
  expect(code).toBe(0);
  expect(report.waiter).toBe('RedissonShutdownError');
  expect(report.resources.filter((r) => r === 'Timeout' || r.startsWith('TCP'))).toEqual([]);
});
