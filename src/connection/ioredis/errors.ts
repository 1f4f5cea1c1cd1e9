/**
 * How ioredis reports what went wrong, for the one classifier (`../classify.ts`): by error name and message,
 * since errors may come from another copy of ioredis (where `instanceof` fails).
 */
import type { DriverErrorClass } from '../driver.js';

/** ioredis' message for a command refused because the connection is not writable (no offline queue). */
const NOT_WRITABLE = "Stream isn't writeable and enableOfflineQueue options is false";

/** ioredis' message for a command rejected because the connection was closed or given up. */
const CONNECTION_CLOSED = 'Connection is closed.';

/** What `error`, thrown by ioredis, is; null when it is not one of ioredis' errors. */
export function classifyIoredisError(error: Error): DriverErrorClass | null {
  // A reply from Redis refusing the command (ACL, wrong type, MOVED, CLUSTERDOWN, …).
  if (error.name === 'ReplyError') return { kind: 'reply', code: /^\S+/.exec(error.message)?.[0] ?? '' };
  if (error.message === NOT_WRITABLE) return { kind: 'not-writable' };
  // A closed connection, or ioredis' Cluster giving up on a node that went away (a master failing over): whether
  // the command ran is unknown. So is ioredis' `AbortError`: a command its node connection's close aborted (a
  // pipelined command whose predecessors were answered; on a Cluster, whose object emits no `close` of its own
  // for one node).
  if (error.message === CONNECTION_CLOSED || error.message.startsWith('Too many Cluster redirections') || error.name === 'AbortError') return { kind: 'closed' };
  // A Cluster with no node left to try.
  if (error.name === 'ClusterAllFailedError') return { kind: 'cluster-unreachable' };
  return null;
}
