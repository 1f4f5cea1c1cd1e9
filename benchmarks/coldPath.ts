/**
 * The path to the wire after idleness (issue 29): for a lock call made after `--idle-ms` of doing nothing (as a
 * request handler's after a quiet spell, or the bench's handoff holder after its 10 ms settle), the µs from the call
 * to its first command reaching ioredis' `sendCommand` (all of it synchronous JavaScript), and to the call
 * resolving; beside the same calls made back to back ("hot"), a raw PING, and the bare-protocol control's acquire
 * and release. Medians (and the number of calls behind each) over `--n` rounds, rounded up to blocks of 50 back to
 * back then 50 after idleness; each round makes every call once; the first 10 of each back-to-back block are not counted.
 *
 *   tsx benchmarks/coldPath.ts [--n 400] [--idle-ms 10]
 *
 * redisson-ts is loaded from its build (dist/, `node scripts/build.mjs` first), as users get it.
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { bareProtocol } from './adapters/bareProtocol.js';
import { library } from './library.js';
import { sleep, summarize } from './stats.js';
import { toolRedis } from './toolRedis.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '400' }, 'idle-ms': { type: 'string', default: '10' } } });
const n = Number(values.n);
const idleMs = Number(values['idle-ms']);
if (!(n >= 10) || !(idleMs >= 1)) throw new Error('--n ≥ 10, --idle-ms ≥ 1');

const server = await toolRedis();
const { url } = server;
const { Redisson } = await library();
const client = Redisson.create({ redis: url });
const bare = await bareProtocol.open({ url });
const raw = new Redis(url);

// The first command a call hands to ioredis: its time from the call's start (every client here is an ioredis Redis).
const proto = Redis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown };
const sendCommand = proto.sendCommand;
let started = 0;
let firstSend = -1;
let watching = false;
proto.sendCommand = function (this: unknown, ...args: unknown[]): unknown {
  if (watching && firstSend < 0) firstSend = performance.now() - started;
  return sendCommand.apply(this, args);
};

const samples = new Map<string, { send: number[]; total: number[] }>();
async function measure(kind: string, idle: boolean, call: () => Promise<unknown>, counted: boolean): Promise<void> {
  if (idle) await sleep(idleMs);
  firstSend = -1;
  watching = true;
  started = performance.now();
  const pending = call();
  watching = false;
  const send = firstSend;
  await pending;
  const total = performance.now() - started;
  // Warm-up calls may wait for a connection; every counted call hands its first command to ioredis synchronously
  // (a miss would count as -1 ms).
  if (!counted) return;
  if (send < 0) throw new Error(`${kind}: no command reached ioredis' sendCommand synchronously`);
  const key = `${kind}${idle ? `, after ${idleMs} ms idle` : ', hot'}`;
  const s = samples.get(key) ?? samples.set(key, { send: [], total: [] }).get(key);
  s?.send.push(send * 1_000);
  s?.total.push(total * 1_000);
}

const lock = client.getLock('cold:ours');
const handle = bare.handle('cold:bare');
const kinds: [string, () => Promise<unknown>][] = [
  ['raw PING', () => raw.ping()],
  ['redisson-ts lock()', () => lock.lock()],
  ['redisson-ts unlock()', () => lock.unlock()],
  ['control acquire', () => handle.acquire()],
  ['control release', () => handle.release()],
];
// Warm-up, back to back: every path optimised before anything is measured.
for (let i = 0; i < 3_000; i++) for (const [kind, call] of kinds) await measure(kind, false, call, false);
// Blocks of each: 50 rounds back to back ("hot": no sleep in the block), then 50 with a sleep before every call.
// A sleep leaves the next few hundred µs slow too, so the first 10 rounds of a hot block (after the idle block
// before it) are not counted.
const BLOCK = 50;
for (let done = 0; done < n; done += BLOCK) {
  for (let i = 0; i < BLOCK; i++) for (const [kind, call] of kinds) await measure(kind, false, call, i >= 10);
  for (let i = 0; i < BLOCK; i++) for (const [kind, call] of kinds) await measure(kind, true, call, true);
}
proto.sendCommand = sendCommand;
await client.shutdown();
await bare.close();
raw.disconnect();
await server.stop();

console.log(`p50 µs; "to the wire": from the call to its first command in ioredis' sendCommand (synchronous)\n`);
console.log('| call | calls | to the wire | resolved |');
console.log('|---|---|---|---|');
for (const [key, s] of [...samples].sort(([a], [b]) => (a.endsWith('hot') === b.endsWith('hot') ? 0 : a.endsWith('hot') ? 1 : -1))) {
  console.log(`| ${key} | ${s.send.length} | ${summarize(s.send).p50.toFixed(1)} | ${summarize(s.total).p50.toFixed(1)} |`);
}
