/**
 * A buyer process of the demo, started with `child_process.fork` (so it runs under tsx or from dist/
 * alike). It runs `spec.buyers` concurrent buyers of one strategy and reports every sale to the parent;
 * see `protocol.ts` for the conversation.
 */
import { Redis } from 'ioredis';
import { BuyerProcessState } from './buyerState.js';
import { BUYERS } from './buyers.js';
import type { BuyerSpec, FromBuyer, ToBuyer } from './protocol.js';

function send(message: FromBuyer, then?: () => void): void {
  // The parent may be gone already (it killed us, or was interrupted): nothing left to tell.
  if (!process.connected) return then?.();
  process.send?.(message, undefined, {}, () => then?.());
}

async function run(spec: BuyerSpec): Promise<void> {
  const factory = BUYERS[spec.strategy];
  if (!factory) throw new Error(`unknown strategy ${spec.strategy}`);
  const redis = new Redis(spec.redisUrl, { maxRetriesPerRequest: 1 });
  const impl = factory(spec, () => send({ type: 'lostLock' }));
  const state = new BuyerProcessState(spec, redis, impl, (message) => send(message));
  const go = new Promise<void>((resolve) => {
    process.on('message', (message: ToBuyer) => {
      if (message.type === 'go') resolve();
      else state.handle(message);
    });
  });
  await redis.ping();
  send({ type: 'ready' });
  await go;
  const stuck = await state.runBuyers();
  // Report first: closing connections is not part of the measured run.
  send({ type: 'done', stuck });
  await impl.close?.();
  await redis.quit();
  process.exit(0);
}

if (!process.send) {
  console.error('buyerWorker: this module is started by `redisson-ts demo`, not directly');
  process.exit(2);
}
// Orphaned (the demo exited or was killed): stop at once.
process.on('disconnect', () => process.exit(0));
process.once('message', (message: ToBuyer) => {
  if (message.type !== 'start') return;
  run(message.spec).catch((error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) }, () => process.exit(1));
  });
});
