/**
 * Object listeners on keyspace notifications: Redisson's `ObjectListener` family (`ExpiredObjectListener`,
 * `DeletedObjectListener`) as `RObject.addListener` registers them — a PSUBSCRIBE of Redisson's pattern
 * (`__keyevent@*:expired`, `__keyevent@*:del`) whose messages (the key that expired or was deleted) are passed
 * on when they name the object's key.
 */
import type { ClientContext } from './ClientContext.js';
import { isServerRefusal } from './connection/classify.js';
import { InvalidArgumentError, KeyspaceNotificationsDisabledError } from './errors.js';

/**
 * Called when the object's key expired (Redis' `expired` keyspace event). Redisson's `ExpiredObjectListener`;
 * the server's `notify-keyspace-events` must contain `E` and `x` (or `A`).
 */
export interface ExpiredObjectListener {
  /**
   * Called once per expiry of the object's key.
   * @param name the object's key (its name as mapped by the client's NameMapper).
   */
  onExpired(name: string): void;
}

/**
 * Called when the object's key was deleted (`DEL`: `delete()`, a lock's `forceUnlock()` or last `unlock()`).
 * Redisson's `DeletedObjectListener`; `notify-keyspace-events` must contain `E` and `g` (or `A`).
 */
export interface DeletedObjectListener {
  /**
   * Called once per deletion of the object's key.
   * @param name the object's key (its name as mapped by the client's NameMapper).
   */
  onDeleted(name: string): void;
}

/** A listener `addListener` takes: Redisson's `ObjectListener` subtypes that every object supports. */
export type ObjectListener = ExpiredObjectListener | DeletedObjectListener;

/** What a listener kind subscribes to and needs. */
export interface ListenerKind {
  /** Redisson's pattern for it (all databases). */
  readonly pattern: string;
  /** The keyspace event. */
  readonly event: string;
  /** The `notify-keyspace-events` flags it needs (`A` stands for every class letter). */
  readonly flags: string;
  /** Calls the listener with the key's name. */
  readonly call: (listener: ObjectListener, name: string) => void;
}

const EXPIRED: ListenerKind = {
  pattern: '__keyevent@*:expired',
  event: 'expired',
  flags: 'Ex',
  call: (l, name) => (l as ExpiredObjectListener).onExpired(name),
};
const DELETED: ListenerKind = {
  pattern: '__keyevent@*:del',
  event: 'del',
  flags: 'Eg',
  call: (l, name) => (l as DeletedObjectListener).onDeleted(name),
};

/** Every pattern an object's listener may be under: `removeListener` looks in each, as Redisson. */
export const LISTENER_PATTERNS: readonly string[] = [EXPIRED.pattern, DELETED.pattern];

/**
 * The kind of `listener`, as Redisson decides it (`instanceof ExpiredObjectListener` first): an object with an
 * `onExpired` method, else one with `onDeleted`.
 * @throws InvalidArgumentError for anything else, before anything is sent.
 */
export function listenerKind(listener: unknown): ListenerKind {
  const has = (method: string): boolean => typeof (listener as Record<string, unknown> | null)?.[method] === 'function';
  if (typeof listener === 'object' && listener !== null) {
    if (has('onExpired')) return EXPIRED;
    if (has('onDeleted')) return DELETED;
  }
  throw new InvalidArgumentError(
    'addListener(listener): expected an ExpiredObjectListener ({ onExpired(name) }) or a DeletedObjectListener ({ onDeleted(name) }), got ' +
      (listener === null ? 'null' : typeof listener),
  );
}

/** Whether a `notify-keyspace-events` value enables `flags` (`A` is every class letter: `g$lshzxetd`). */
export function notificationsEnable(setting: string, flags: string): boolean {
  return [...flags].every((flag) => setting.includes(flag) || (flag !== 'E' && flag !== 'K' && setting.includes('A')));
}

/**
 * Checks with `CONFIG GET notify-keyspace-events` that the server holding `rawName` (in a cluster, the master of
 * its slot: the node that publishes its events) publishes `kind`'s event. A server that refuses CONFIG (an ACL
 * without `+config|get`, a managed service that renames it) is not checked: the listener is added, as Redisson
 * always does.
 * @throws KeyspaceNotificationsDisabledError when it does not.
 */
export async function checkNotifications(ctx: ClientContext, objectName: string, rawName: string, kind: ListenerKind): Promise<void> {
  const connection = ctx.executor.connection;
  const master = connection.masterOf(rawName);
  const send = master === undefined ? undefined : connection.commandOn(master);
  let reply: unknown;
  try {
    reply = await ctx.executor.run((c) => (send ?? c.call.bind(c))('CONFIG', 'GET', 'notify-keyspace-events'));
  } catch (error) {
    if (isServerRefusal(error)) return;
    throw error;
  }
  // [name, value] (RESP2), or { name: value } (ioredis 6's RESP3 map replies).
  const value: unknown = Array.isArray(reply) ? (reply as unknown[])[1] : (reply as Record<string, unknown> | null)?.['notify-keyspace-events'];
  if (typeof value !== 'string' && !Buffer.isBuffer(value)) return;
  const setting = String(value);
  if (!notificationsEnable(setting, kind.flags)) {
    throw new KeyspaceNotificationsDisabledError(objectName, kind.event, kind.flags, setting, master === undefined || master === '' ? ctx.executor.address : master);
  }
}
