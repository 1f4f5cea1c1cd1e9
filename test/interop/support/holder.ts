/**
 * A redisson-ts process that takes a watchdog lock and then just keeps running, so that a test can
 * `kill -9` it while it holds the lock (the mirror image of killing the Java peer).
 *
 *   node --import tsx test/interop/support/holder.ts <redis url> <lock name> <lockWatchdogTimeout ms>
 *
 * Prints one JSON line `{"clientId":…,"threadId":…}` once the lock is held.
 */
// The node-redis leg's connections (REDISSON_TEST_DRIVER=node-redis); nothing otherwise.
import '../../support/driverLeg.js';
import { Redisson } from '../../../src/index.js';

const [url, name, watchdog] = process.argv.slice(2);
if (url === undefined || name === undefined || watchdog === undefined) {
  process.stderr.write('usage: holder.ts <redis url> <lock name> <lockWatchdogTimeout ms>\n');
  process.exit(2);
}
const client = Redisson.create({ redis: url, lockWatchdogTimeout: Number(watchdog) });
const lock = client.getLock(name);
await lock.lock();
process.stdout.write(`${JSON.stringify({ clientId: client.getId(), threadId: lock.threadId })}\n`);
// Stay alive (the renewal timer is unref'd); the test ends this process with SIGKILL.
setInterval(() => undefined, 60_000);
