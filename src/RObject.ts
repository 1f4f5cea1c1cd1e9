/**
 * What every object of the client shares: Redisson's `RedissonObject`. Its name as given and as mapped to the
 * Redis key, the client context it talks to Redis through, its identity in diagnostics, and the `RObject`
 * methods that only need its keys: `isExists`, `delete`, `sizeInMemory`.
 */
import type { ClientContext } from './ClientContext.js';
import { mapName } from './config.js';
import type { DiagnosticsTarget } from './diagnostics.js';
import type { LuaScriptId } from './generated/lua.js';

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
   * Runs one of the `object/` scripts as Redisson sends its `RedissonObject`/`RedissonExpirable` scripts: a
   * plain write (`evalWriteAsync`), never followed by `WAIT` with replicas, sent once like any command.
   */
  protected objectScript(id: LuaScriptId, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.ctx.executor.evalPlain(id, keys, args);
  }
}
