/**
 * How a node-redis cluster client follows its topology: node-redis asks for the slot map only after a MOVED (6.x
 * also when a node keeps reconnecting), so the client asks too — every `scanInterval` (Redisson's, 5 s by
 * default), at once after a MOVED our executor saw, and when a node errs or reconnects (a few times, 250 ms apart,
 * as the other nodes may still name the old master). When the masters changed: the replica counts are forgotten,
 * the subscriber cluster asks for its map too (node-redis then moves the subscriptions of a node that left or was
 * demoted), the patterns follow the masters, and every waiter retries once — after each master of the new map
 * answers a PING, so that no retry goes to a dead node (at most ~20 s; a waiter's TTL bounds its wait meanwhile).
 */
import type { CommandGate, WaiterWaker } from '../driver.js';
import type { NodeRedisClusterPatterns } from './clusterPatterns.js';
import { rediscover, type NodeRedisClusterConnection } from './NodeRedisClusterConnection.js';
import type { NodeRedisCluster } from './types.js';

/** Whether every master of `cluster`'s slot map answers a PING within 500 ms. */
async function reachable(cluster: NodeRedisCluster): Promise<boolean> {
  const masters = cluster.masters;
  if (masters.length === 0) return false;
  const answers = await Promise.all(
    masters.map((node) => {
      const client = node.client;
      if (client?.isReady !== true) return Promise.resolve(false);
      let timer: NodeJS.Timeout | undefined;
      const ping = client.sendCommand(['PING']).then(
        () => true,
        () => false,
      );
      return Promise.race([ping, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 500)))]).finally(() => clearTimeout(timer));
    }),
  );
  return answers.every(Boolean);
}

/**
 * Starts following; returns the stop switch.
 * @param scanInterval ms between two requests for the slot map.
 */
export function followNodeRedisCluster(
  command: NodeRedisClusterConnection,
  subscriber: NodeRedisCluster,
  patterns: NodeRedisClusterPatterns,
  gate: CommandGate,
  waker: WaiterWaker,
  closed: () => boolean,
  scanInterval: number,
): () => void {
  let stopped = false;
  const over = (): boolean => stopped || closed();
  const whenReachable = (wake: () => void, tries = 0): void => {
    if (over()) return;
    void command.refreshTopology().then(async () => {
      const ok = await reachable(command.cluster);
      if (over()) return;
      if (ok || tries >= 20) wake();
      else setTimeout(() => whenReachable(wake, tries + 1), 1_000).unref();
    });
  };
  waker.setWakeGate((wake) => whenReachable(wake));
  const offChange = command.onTopologyChange(() => {
    gate.forgetReplicas();
    patterns.sync();
    if (subscriber.isOpen) void rediscover(subscriber).catch(() => undefined);
    whenReachable(() => waker.wakeAll());
  });

  // One look at a time; a signal during it asks for one more.
  let looking = false;
  let again = false;
  const signal = (): void => {
    if (over()) return;
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    const before = command.topologyChanges;
    const look = (tries: number): void => {
      void command.refreshTopology().then(() => {
        if (!over() && command.topologyChanges === before && tries < 12) {
          setTimeout(() => look(tries + 1), 250).unref();
          return;
        }
        looking = false;
        if (again) {
          again = false;
          signal();
        }
      });
    };
    look(0);
  };
  gate.onMoved(signal);
  const cluster = command.cluster;
  cluster.on('node-error', signal);
  cluster.on('node-reconnecting', signal);
  const scan = setInterval(() => {
    if (!over()) void command.refreshTopology();
  }, scanInterval).unref();
  return () => {
    stopped = true;
    clearInterval(scan);
    offChange();
    cluster.off('node-error', signal);
    cluster.off('node-reconnecting', signal);
  };
}
