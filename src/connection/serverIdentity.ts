/**
 * Which server a key lives on, as an identity two clients can compare (`INFO server` `run_id`, plus the
 * connection's database): how a RedLock or MultiLock finds one lock given twice through two clients. Asked once
 * per client connection (per master in a cluster) and forgotten when that connection closes or the topology
 * changes: a restarted server has a new `run_id`.
 */
import type { CommandExecutor } from './CommandExecutor.js';

/** A probe of one server: its answer (`undefined` when it failed) and when it failed, if it did. */
interface Probe {
  readonly answer: Promise<string | undefined>;
  failedAt?: number;
}

/** Connection states in which nothing can be asked. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/** A server that did not answer is asked again after this long (or once its connection is ready again). */
const RETRY_FAILED_PROBE_MS = 1_000;

// Per client connection: the probe of each master ('' on a single server or Sentinel), by master address.
const probes = new WeakMap<CommandExecutor, Map<string, Probe>>();

/**
 * `run_id … db N` of the server holding `rawName` (unprefixed) for `executor`'s connection, `undefined` when it
 * cannot be known now.
 */
export function serverIdentity(executor: CommandExecutor, rawName: string): Promise<string | undefined> {
  const connection = executor.connection;
  // A connection that is down (between reconnect attempts, or closed) cannot answer: compare without it now
  // rather than make the acquisition wait for it (its member's own acquire fails fast the same way).
  if (DOWN.has(connection.status)) return Promise.resolve(undefined);
  const master = connection.masterOf(rawName);
  const ask = master === undefined ? undefined : connection.infoOf(master);
  if (master === undefined || ask === undefined) return Promise.resolve(undefined);
  const cache = probesOf(executor);
  const cached = cache.get(master);
  if (cached && (cached.failedAt === undefined || performance.now() - cached.failedAt < RETRY_FAILED_PROBE_MS)) return cached.answer;
  const db = connection.database;
  const probe: Probe = {
    answer: executor.run(() => ask('server')).then(
      (info) => {
        const runId = /^run_id:(\w+)/m.exec(info)?.[1];
        if (runId === undefined) probe.failedAt = performance.now();
        return runId === undefined ? undefined : `run_id ${runId}, db ${db}`;
      },
      () => {
        probe.failedAt = performance.now();
        return undefined;
      },
    ),
  };
  cache.set(master, probe);
  return probe.answer;
}

function probesOf(executor: CommandExecutor): Map<string, Probe> {
  let cache = probes.get(executor);
  if (cache === undefined) {
    const fresh = new Map<string, Probe>();
    // A closed connection may come back to another server (a restart: a new run_id; a Sentinel failover).
    const forget = (): void => fresh.clear();
    executor.connection.on('close', forget);
    executor.connection.on('ready', forget);
    // A cluster's masters move with its topology.
    executor.connection.onTopologyChange(forget);
    probes.set(executor, (cache = fresh));
  }
  return cache;
}
