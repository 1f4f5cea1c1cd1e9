/**
 * The one classifier of driver errors: every place that must tell a server's refusal from a dropped
 * connection, a cluster redirection from a failed script, asks here, and the command executor maps the
 * answer to our typed errors (`RedisConnectionError`, `ConnectionLostError`, …). Each driver contributes how
 * its own errors look; nothing outside `src/connection/` looks at an error's name or message.
 */
import type { DriverErrorClass } from './driver.js';
import { classifyIoredisError } from './ioredis/errors.js';
import { classifyNodeRedisError } from './node-redis/errors.js';

export type { DriverErrorClass };

// Connection refused or the host not found: the socket never opened, so nothing was written on it.
const NEVER_OPENED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTDOWN']);

/**
 * Node's own socket errors (`read ECONNRESET`, `write EPIPE`, …: an `errno` error with a `code` and a `syscall`).
 * node-redis rejects the commands of a socket that failed with its error as it is: those written before it were
 * perhaps run (`closed`); a socket that never opened wrote nothing (`not-writable`). ioredis wraps them.
 */
function classifySocketError(error: Error): DriverErrorClass | null {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return null;
  return { kind: NEVER_OPENED.has(code) ? 'not-writable' : 'closed' };
}

// One recognizer per driver, and Node's socket errors last; the first that knows an error classifies it.
const RECOGNIZERS: readonly ((error: Error) => DriverErrorClass | null)[] = [classifyIoredisError, classifyNodeRedisError, classifySocketError];

const OTHER: DriverErrorClass = { kind: 'other' };

/**
 * `UNBLOCKED … instance state changed`: Redis' answer to a blocked command (our `WAIT` after a script) when its
 * master turned replica under it — a failover. The script before it ran on the old master, and whether its write
 * survived is not known: the same as a connection lost under the command.
 */
const UNBLOCKED: DriverErrorClass = { kind: 'closed' };

/** What `error` (as a driver rejected a command with it) means. */
export function classify(error: unknown): DriverErrorClass {
  if (!(error instanceof Error)) return OTHER;
  for (const recognize of RECOGNIZERS) {
    const known = recognize(error);
    if (known !== null) return known.kind === 'reply' && known.code === 'UNBLOCKED' ? UNBLOCKED : known;
  }
  return OTHER;
}

/** A reply from Redis refusing the command (as opposed to a connection that failed under it). */
export function isServerRefusal(error: unknown): boolean {
  return classify(error).kind === 'reply';
}

/** `MOVED` or `ASK` when `error` is a cluster redirection, else undefined. */
export function redirection(error: unknown): 'MOVED' | 'ASK' | undefined {
  const c = classify(error);
  return c.kind === 'reply' && (c.code === 'MOVED' || c.code === 'ASK') ? c.code : undefined;
}

/**
 * A failure of the cluster's routing rather than an answer of the script: no node reachable, or a reply saying
 * the slot is down, being migrated or served elsewhere. A waiter tries such an attempt again.
 */
export function isRoutingFailure(error: unknown): boolean {
  const c = classify(error);
  return c.kind === 'cluster-unreachable' || (c.kind === 'reply' && ['CLUSTERDOWN', 'TRYAGAIN', 'MOVED', 'ASK'].includes(c.code));
}
