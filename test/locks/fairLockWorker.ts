/**
 * A separate OS process with fair lock waiters, for the multi-process FIFO test and the interop `kill -9`
 * scenario. Forked with `node --import tsx`; argv: `<mode> <JSON options>`; reports over IPC
 * (`{ type, … }`) and exits when the parent goes away.
 *
 * Modes:
 * - `queue`: one client with `waiters` fair lock objects (one thread id each); reports `ready` with their
 *   owner fields. On `{ type: 'go', index }` waiter `index` calls `lock()`; once it holds the lock it appends
 *   its field to the list `logKey`, unlocks, and reports `done`.
 * - `hold`: `lock()` with the watchdog (`lockWatchdogTimeout`), reports `locked` with its field, then idles
 *   until killed.
 */
// The node-redis leg's connections (REDISSON_TEST_DRIVER=node-redis); nothing otherwise.
import '../support/driverLeg.js';
import { Redis } from 'ioredis';
import { Redisson } from '../../src/index.js';

export interface QueueOptions {
  readonly url: string;
  readonly name: string;
  readonly logKey: string;
  readonly waiters: number;
}

export interface HoldOptions {
  readonly url: string;
  readonly name: string;
  readonly lockWatchdogTimeout: number;
}

function send(message: Record<string, unknown>): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

async function queue(o: QueueOptions): Promise<void> {
  const client = Redisson.create({ redis: o.url });
  const locks = Array.from({ length: o.waiters }, () => client.getFairLock(o.name));
  // The log is written on a connection of its own: the client's may be another driver's (the node-redis leg).
  const log = new Redis(o.url);
  await client.ping();
  process.on('message', (m: unknown) => {
    const { type, index } = m as { type?: unknown; index?: unknown };
    const lock = typeof index === 'number' ? locks[index] : undefined;
    if (type !== 'go' || !lock) return;
    const field = `${client.getId()}:${lock.threadId}`;
    void (async () => {
      await lock.lock();
      try {
        await log.rpush(o.logKey, field);
      } finally {
        await lock.unlock();
      }
      await send({ type: 'done', index });
    })().catch((error: unknown) => send({ type: 'error', message: String(error) }));
  });
  await send({ type: 'ready', fields: locks.map((l) => `${client.getId()}:${l.threadId}`) });
}

async function hold(o: HoldOptions): Promise<void> {
  const client = Redisson.create({ redis: o.url, lockWatchdogTimeout: o.lockWatchdogTimeout });
  const lock = client.getFairLock(o.name);
  await lock.lock();
  await send({ type: 'locked', field: `${client.getId()}:${lock.threadId}` });
}

process.on('disconnect', () => process.exit(0));
const [mode, json] = process.argv.slice(2);
const options: unknown = JSON.parse(json ?? '{}');
// The IPC channel keeps the process alive after the mode has started; it ends when killed or orphaned.
(mode === 'queue' ? queue(options as QueueOptions) : mode === 'hold' ? hold(options as HoldOptions) : Promise.reject(new Error(`unknown mode ${String(mode)}`))).catch(
  async (error: unknown) => {
    await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  },
);
