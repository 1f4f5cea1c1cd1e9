/**
 * Classic or sharded pub/sub (docs/protocol.md §1.5): PUBLISH/SUBSCRIBE, or SPUBLISH/SSUBSCRIBE in a cluster.
 * Decided here, in the connection layer: the subscriber connection subscribes with it and the command executor
 * puts the matching publish command into every script that publishes.
 */

/** Classic or sharded pub/sub. */
export type PubSubTransport = 'classic' | 'sharded';

/** A deployment's transport: fixed, or found by a probe run once when first needed (a cluster's `AUTO`). */
export class TransportChoice {
  #known: PubSubTransport | null;
  #pending: Promise<PubSubTransport> | null = null;
  readonly #probe: (() => Promise<PubSubTransport>) | null;

  constructor(transport: PubSubTransport | (() => Promise<PubSubTransport>) = 'classic') {
    this.#known = typeof transport === 'function' ? null : transport;
    this.#probe = typeof transport === 'function' ? transport : null;
  }

  /** The transport, or null while a probe has not answered. */
  get known(): PubSubTransport | null {
    return this.#known;
  }

  /** The transport, probing once when not yet known. A probe that failed (no connection) is tried again by the next caller. */
  resolve(): Promise<PubSubTransport> {
    if (this.#known !== null) return Promise.resolve(this.#known);
    this.#pending ??= (this.#probe as () => Promise<PubSubTransport>)().then(
      (t) => (this.#known = t),
      (error: unknown) => {
        this.#pending = null;
        throw error;
      },
    );
    return this.#pending;
  }

  /** `PUBLISH`, or `SPUBLISH` with sharded pub/sub; a promise of it while the probe has not answered. */
  publishCommand(): string | Promise<string> {
    const command = (t: PubSubTransport): string => (t === 'sharded' ? 'SPUBLISH' : 'PUBLISH');
    return this.#known !== null ? command(this.#known) : this.resolve().then(command);
  }
}
