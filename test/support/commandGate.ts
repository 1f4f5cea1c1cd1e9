/**
 * Holds chosen commands of one ioredis connection at two points — before the command is written, and after
 * its reply arrived but before the caller sees it — so a test can put other commands (on the same
 * connection) in between, in an order it chooses. Every command still runs on the real server, unchanged;
 * only when it is written and when its reply is handed on is decided by the test. A proxy cannot do this
 * on one connection: it would hold every later reply behind the held one.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LUA_SCRIPTS, type LuaScriptId } from '../../src/generated/lua.js';

/** One intercepted command. */
export interface HeldCommand {
  /** Writes the command; resolves once its reply has arrived (not yet handed to the caller). */
  send(): Promise<unknown>;
  /** Hands the reply (or error) to the caller; call after {@link send}. */
  deliver(): void;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function defer<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The SHA1 ioredis sends in `EVALSHA` for script `id`. */
export function scriptSha(id: LuaScriptId): string {
  return createHash('sha1').update(LUA_SCRIPTS[id].source).digest('hex');
}

/** ioredis' `Redis#sendCommand`, as far as the gate uses it. */
type SendCommand = (command: { readonly name: string; readonly args: readonly unknown[] }, stream?: unknown) => unknown;

export class CommandGate {
  readonly #redis: Redis;
  readonly #hadOwn: boolean;
  readonly #held: HeldCommand[] = [];
  readonly #waiting: Array<(held: HeldCommand) => void> = [];

  private constructor(redis: Redis, match: (name: string, args: readonly unknown[]) => boolean) {
    this.#redis = redis;
    this.#hadOwn = Object.hasOwn(redis, 'sendCommand');
    const target = redis as unknown as { sendCommand: SendCommand };
    const original: SendCommand = target.sendCommand.bind(redis);
    target.sendCommand = (command, stream) => {
      if (!match(command.name, command.args)) return original(command, stream);
      const sendGate = defer<void>();
      const arrived = defer<{ ok: boolean; value: unknown }>();
      const deliverGate = defer<void>();
      this.#hold({
        send: () => {
          sendGate.resolve();
          return arrived.promise.then((r) => r.value);
        },
        deliver: () => deliverGate.resolve(),
      });
      return (async () => {
        await sendGate.promise;
        const reply = await Promise.resolve(original(command, stream)).then(
          (value: unknown) => ({ ok: true, value }),
          (value: unknown) => ({ ok: false, value }),
        );
        arrived.resolve(reply);
        await deliverGate.promise;
        if (!reply.ok) throw reply.value;
        return reply.value;
      })();
    };
  }

  /** Holds every command of `redis` for which `match(name, args)` is true, until uninstalled. */
  static install(redis: Redis, match: (name: string, args: readonly unknown[]) => boolean): CommandGate {
    return new CommandGate(redis, match);
  }

  /** Holds the `EVALSHA`s of scripts `ids` (as ioredis names them before writing). */
  static scripts(redis: Redis, ids: readonly LuaScriptId[]): CommandGate {
    const shas = new Set(ids.map(scriptSha));
    return new CommandGate(redis, (name, args) => (name === 'evalsha' || name === 'eval') && shas.has(String(args[0])));
  }

  /** The next held command (already intercepted, or the next one to be). */
  next(): Promise<HeldCommand> {
    const held = this.#held.shift();
    if (held) return Promise.resolve(held);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** How many intercepted commands wait to be taken by {@link next}. */
  get pending(): number {
    return this.#held.length;
  }

  /** Stops intercepting; commands already held stay held until sent and delivered. */
  uninstall(): void {
    // The instance had no method of its own: the prototype's is used again.
    if (!this.#hadOwn) delete (this.#redis as { sendCommand?: unknown }).sendCommand;
  }

  #hold(held: HeldCommand): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter(held);
    else this.#held.push(held);
  }
}
