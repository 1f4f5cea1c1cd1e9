/**
 * Which Redis key on which server a member lock of a RedLock or MultiLock is, so that they can refuse one lock
 * given twice (DuplicateLockMemberError). Every lock of the family registers its client and key here when it is
 * made. Two members are the same lock when they are one object, when one client made both for one key, or —
 * across clients — when their clients reach the same server (`INFO server` `run_id`, plus the connection's
 * database) and the same key (ioredis' `keyPrefix` + the mapped name). The `run_id` is asked once per client
 * connection (per master in a cluster) and forgotten when that connection closes: a restarted server has a new one.
 */
import type { ClientContext } from '../ClientContext.js';
import { serverIdentity } from '../connection/serverIdentity.js';

/** A lock's client and Redis key (the name after the client's NameMapper, before ioredis' `keyPrefix`). */
export interface MemberKey {
  readonly ctx: ClientContext;
  readonly rawName: string;
}

/** Two members that are one lock, and the server they share (`null`: known without asking one). */
export interface Duplicate {
  readonly indexes: readonly [number, number];
  readonly server: string | null;
}

const memberKeys = new WeakMap<object, MemberKey>();

/** Records what `lock` locks; called by every lock of the family when it is made. */
export function registerMemberKey(lock: object, key: MemberKey): void {
  memberKeys.set(lock, key);
}

/**
 * The first two members that are certainly one lock without asking Redis: the same object, or two objects of
 * one client for one key (one client reaches one server per key). `null` when there are none.
 */
export function knownDuplicate(members: readonly object[]): Duplicate | null {
  for (let j = 1; j < members.length; j++) {
    for (let i = 0; i < j; i++) {
      const [a, b] = [members[i] as object, members[j] as object];
      const [ka, kb] = [memberKeys.get(a), memberKeys.get(b)];
      if (a === b || (ka && kb && ka.ctx === kb.ctx && ka.rawName === kb.rawName)) return { indexes: [i, j], server: null };
    }
  }
  return null;
}

/**
 * The first two members of different clients that reach the same key on the same server, asking each client's
 * server for its identity (a read: `INFO server`). A member whose server does not answer within `timeoutMs`
 * (down, paused) cannot be compared and is not reported: the next acquisition asks again. Members of one client
 * are {@link knownDuplicate}'s. Rejects with the signal's reason when it aborts.
 */
export async function serverDuplicate(members: readonly object[], timeoutMs: number, signal: AbortSignal): Promise<Duplicate | null> {
  const keys = members.map((m) => memberKeys.get(m));
  // Only members whose key another client's member shares can be one lock: ask only their servers.
  const clientsPerKey = new Map<string, Set<ClientContext>>();
  for (const k of keys) if (k) clientsPerKey.set(fullKey(k), (clientsPerKey.get(fullKey(k)) ?? new Set()).add(k.ctx));
  const servers = await Promise.all(
    keys.map((k) => (k && (clientsPerKey.get(fullKey(k))?.size ?? 0) > 1 ? bounded(serverOf(k), timeoutMs, signal) : Promise.resolve(undefined))),
  );
  for (let j = 1; j < members.length; j++) {
    for (let i = 0; i < j; i++) {
      const [si, sj] = [servers[i], servers[j]];
      const [ki, kj] = [keys[i] as MemberKey, keys[j] as MemberKey];
      if (si !== undefined && si === sj && ki.ctx !== kj.ctx && fullKey(ki) === fullKey(kj)) return { indexes: [i, j], server: si };
    }
  }
  return null;
}

/** The key as the server sees it: the `keyPrefix` of the member's connection, then the raw name. */
function fullKey(key: MemberKey): string {
  return key.ctx.executor.connection.keyPrefix + key.rawName;
}

/** `run_id … db N` of the server holding `key`'s Redis key, `undefined` when it cannot be known. */
function serverOf(key: MemberKey): Promise<string | undefined> {
  return serverIdentity(key.ctx.executor, key.rawName);
}

/** `answer`, or `undefined` after `ms`; rejects with the signal's reason on abort. */
async function bounded(answer: Promise<string | undefined>, ms: number, signal: AbortSignal): Promise<string | undefined> {
  signal.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      answer,
      new Promise<undefined>((resolve, reject) => {
        timer = setTimeout(() => resolve(undefined), ms);
        onAbort = () => reject(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
