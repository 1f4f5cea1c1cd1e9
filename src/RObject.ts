/**
 * What every object of the client shares: Redisson's `RedissonObject`. Its name as given and as mapped to the
 * Redis key, the client context it talks to Redis through, its identity in diagnostics, and the `RObject`
 * methods that only need its keys: `isExists`, `delete`, `sizeInMemory`; and its listeners (`RObservable`).
 */
import type { ClientContext } from './ClientContext.js';
import { mapName } from './config.js';
import type { DiagnosticsTarget } from './diagnostics.js';
import type { LuaScriptId } from './generated/lua.js';
import { checkNotifications, LISTENER_PATTERNS, listenerKind, type ObjectListener } from './listeners.js';

/**
 * An object of the client, named by a key. Obtained from the client's `get…` methods.
 */
export abstract class RObject {
  /**
   * The primitive's name in diagnostics (`DiagnosticsTarget.primitive`): a constant per class, so a bundler
   * that renames classes does not rename it.
   */
  static readonly primitive: string = 'RObject';

  /** @internal the client. */
  protected readonly ctx: ClientContext;
  readonly #name: string;
  /** The Redis key: the name mapped by the client's NameMapper (Redisson's `getRawName()`). */
  protected readonly rawName: string;

  /** @internal obtained from the client's `get…` methods. */
  constructor(ctx: ClientContext, name: string) {
    this.ctx = ctx;
    this.#name = name;
    this.rawName = mapName(ctx.options.nameMapper, name);
  }

  /** The name given to the client's `get…` method. */
  getName(): string {
    return this.#name;
  }

  /**
   * Every key of this object, its own key first: what {@link delete}, {@link sizeInMemory} and the expiry
   * methods act on. An object that keeps keys beside its own (a FairLock's queue and deadlines, a FencedLock's
   * token, a PermitExpirableSemaphore's leases) lists them, as Redisson's overrides do. All share one hash
   * slot (each is named `…{N}`).
   */
  protected get objectKeys(): readonly string[] {
    return [this.rawName];
  }

  /** What the diagnostics channels report about this object. */
  protected get diagnosticsTarget(): DiagnosticsTarget {
    const primitive = (this.constructor as typeof RObject).primitive;
    return { name: this.#name, rawName: this.rawName, primitive, clientId: this.ctx.id };
  }

  /** Whether the object's key exists (`EXISTS N`). Redisson `isExists()`. */
  async isExists(): Promise<boolean> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.command('EXISTS', this.rawName)) === 1;
  }

  /**
   * Deletes the object: `DEL` of every key it has (see each primitive for what else it does: a lock's is its
   * `forceUnlock()`, a latch's publishes). Redisson `delete()`.
   * @returns true when anything was deleted.
   */
  async delete(): Promise<boolean> {
    this.ctx.ensureOpen();
    return Number(await this.ctx.executor.command('DEL', ...this.objectKeys)) > 0;
  }

  /**
   * The memory the object's keys take in Redis, in bytes (`MEMORY USAGE`, summed over its keys by the script
   * `object/sizeInMemory`); `0` when it does not exist. Redisson `sizeInMemory()`.
   */
  async sizeInMemory(): Promise<number> {
    this.ctx.ensureOpen();
    const keys = this.objectKeys;
    if (keys.length === 1) return Number((await this.ctx.executor.command('MEMORY', 'USAGE', this.rawName)) ?? 0);
    return Number(await this.objectScript('object/sizeInMemory', keys, []));
  }

  /**
   * Calls `listener` when the object's key expires (an `ExpiredObjectListener`: `{ onExpired(name) }`) or is
   * deleted (a `DeletedObjectListener`: `{ onDeleted(name) }`), from Redis' keyspace notifications: a
   * PSUBSCRIBE of Redisson's pattern `__keyevent@*:expired` / `__keyevent@*:del` on the client's subscriber
   * connection (on every master of a cluster), shared by all listeners of the client and subscribed again after a
   * reconnect or failover (events published while disconnected are lost, as in Redisson). Only the object's own
   * key counts (a FairLock's queue expiring does not), as Redisson's `getRawName()` check. Called on the event
   * loop; a listener that throws is reported as a process warning. Redisson `addListener(ObjectListener)` /
   * `addListenerAsync`.
   *
   * Needs the server's `notify-keyspace-events` to contain `Ex` (expired) or `Eg` (deleted), or `EA` for both:
   * checked first with `CONFIG GET` (skipped where CONFIG is refused), unlike Redisson, which never checks.
   * @returns the listener's id, for {@link removeListener}; unique within the client.
   * @throws InvalidArgumentError for a listener of neither kind; KeyspaceNotificationsDisabledError when the
   *   server does not publish the event (nothing is subscribed); RedisTimeoutError when the subscription is not
   *   confirmed within `subscriptionTimeout`.
   * @example
   * const id = await lock.addListener({ onExpired: (name) => console.log(`${name} expired`) });
   * await lock.removeListener(id);
   */
  async addListener(listener: ObjectListener): Promise<number> {
    const kind = listenerKind(listener);
    this.ctx.ensureOpen();
    await checkNotifications(this.ctx, this.#name, this.rawName, kind);
    // The event's message is the key as stored, driver keyPrefix included.
    const key = this.ctx.executor.connection.keyPrefix + this.rawName;
    const name = this.rawName;
    const id = await this.ctx.pubsub.addPatternListener(
      kind.pattern,
      (_channel, message) => {
        if (message !== key) return;
        try {
          kind.call(listener, name);
        } catch (error) {
          process.emitWarning(`redisson-ts: an object listener of '${name}' threw: ${String(error)}`, { code: 'REDISSON_LISTENER_ERROR', detail: error instanceof Error ? error.stack ?? '' : '' });
        }
      },
      this.ctx.options.subscriptionTimeout,
    );
    return id;
  }

  /**
   * Removes listener `listenerId` of the client (nothing when there is none), as Redisson, whose ids are not tied to
   * the object that added them; the client's last listener on
   * an event unsubscribes its pattern (PUNSUBSCRIBE), and the promise resolves once that is done. Redisson
   * `removeListener(int)` / `removeListenerAsync`.
   */
  async removeListener(listenerId: number): Promise<void> {
    // As Redisson: the id is looked for under each pattern (ids are unique within the client).
    await Promise.all(LISTENER_PATTERNS.map((pattern) => this.ctx.pubsub.removePatternListener(pattern, listenerId)));
  }

  /**
   * Runs one of the `object/` scripts as Redisson sends its `RedissonObject`/`RedissonExpirable` scripts: a
   * plain write (`evalWriteAsync`), never followed by `WAIT` with replicas, sent once like any command.
   */
  protected objectScript(id: LuaScriptId, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.ctx.executor.evalPlain(id, keys, args);
  }
}
