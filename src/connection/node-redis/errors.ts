/**
 * How node-redis reports what went wrong, for the one classifier (`../classify.ts`). node-redis leaves every
 * error's `name` at `"Error"`, so its errors are told apart by their classes' names (walking up the prototype
 * chain: `SimpleError` → `ErrorReply`), which holds for a client from any copy of `redis` 5.x or 6.x.
 */
import type { DriverErrorClass } from '../driver.js';

/** The driver's own refusal of a command while the client is not ready (see `NodeRedisConnection`). */
export class NodeRedisNotReadyError extends Error {
  constructor() {
    super('The node-redis client is not ready: the command was not sent');
    this.name = 'NodeRedisNotReadyError';
  }
}

// Refused before the command was written: it never ran.
const NOT_WRITTEN = new Set(['ClientOfflineError', 'ClientClosedError', 'TimeoutError', 'CommandTimeoutDuringMaintenanceError', 'NodeRedisNotReadyError']);
// Written, then the socket went away (or a reply timer of `rejectInFlight` fired): whether it ran is unknown.
const CLOSED = new Set(['SocketClosedUnexpectedlyError', 'DisconnectsClientError', 'TimeoutReadError', 'AbortReadError', 'SocketTimeoutError', 'SocketTimeoutDuringMaintenanceError', 'CommandTimeoutReadDuringMaintenanceError', 'MaxCommandRedirectionsError']);

/** The class names of `error`, most derived first, up to (not including) `Error`. */
function classNames(error: Error): string[] {
  const names: string[] = [];
  for (let p: unknown = Object.getPrototypeOf(error); p !== null && p !== Error.prototype && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const name = (p as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** What `error`, thrown by node-redis (or this driver), is; null when it is not one of theirs. */
export function classifyNodeRedisError(error: Error): DriverErrorClass | null {
  const names = classNames(error);
  if (names.includes('ErrorReply')) return { kind: 'reply', code: /^\S+/.exec(error.message)?.[0] ?? '' };
  for (const name of names) {
    if (NOT_WRITTEN.has(name)) return { kind: 'not-writable' };
    if (CLOSED.has(name)) return { kind: 'closed' };
    if (name === 'RootNodesUnavailableError') return { kind: 'cluster-unreachable' };
  }
  return null;
}
