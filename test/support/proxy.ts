/**
 * A TCP proxy in front of a real redis-server, for forcing timings: it can hold back the server's replies
 * for a chosen time (a slow handshake, a delayed message) and drop every connection at a chosen moment.
 * Bytes pass through unchanged and in order; nothing is parsed or answered by the proxy.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export class RedisProxy {
  /** Server→client bytes are held back this long (ms) before they are passed on; 0 passes at once. */
  replyDelayMs = 0;
  /**
   * Per connection, by the order the proxy accepted them (0 first): a delay that overrides
   * {@link replyDelayMs} for that connection only (e.g. a client's command connection, not its subscriber).
   */
  readonly replyDelayOf = new Map<number, number>();
  #accepted = 0;
  #holdAfter: { readonly marker: string; readonly ms: number } | null = null;
  #closeOn: string | null = null;
  #listenPort = 0;
  // Connections whose server→client bytes are held until the client half-closes, and what was held.
  readonly #heldUntilEnd = new Map<number, Buffer[]>();
  readonly #passedAfterEnd = new Map<number, string>();
  // Connections whose client→server bytes are held (until releaseWrites), and what was held.
  readonly #heldWrites = new Map<number, Buffer[]>();
  // Server→client bytes per connection (latin1, the first 64 KB), for read().
  readonly #read = new Map<number, string>();
  // What each connection wrote (upper-cased, the first 64 KB), for wrote().
  readonly #written = new Map<number, string>();
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  readonly #byIndex = new Map<number, [Socket, Socket]>();

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a proxy on a free loopback port forwarding to `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<RedisProxy> {
    // Half-open sockets: a client that closes its side (ioredis' `disconnect()` is a FIN) can still be sent
    // what the server wrote, as a real connection can (see holdUntilClientEnds).
    const server = createServer({ allowHalfOpen: true });
    const proxy = new RedisProxy(server);
    server.on('connection', (client) => proxy.#pipe(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy.#listenPort = (server.address() as AddressInfo).port;
    return proxy;
  }

  get port(): number {
    return this.#listenPort;
  }

  /**
   * Arms a one-shot: when the server's bytes to a connection first contain `marker` (case-sensitive, say `MOVED`),
   * the proxy stops listening before it passes them on, so that what the client does on reading them meets a
   * refused connect; the connections open stay. {@link listenAgain} listens on the same port again.
   */
  stopListeningOnReply(marker: string): void {
    this.#closeOn = marker;
  }

  /** Listens again on the port the proxy had (after {@link stopListeningOnReply}). */
  async listenAgain(): Promise<void> {
    if (this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.listen(this.#listenPort, '127.0.0.1', resolve));
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Number of client connections open through the proxy. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** Destroys every connection through the proxy (the clients see a dropped socket). */
  dropAll(): void {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /**
   * Arms a one-shot hold: the next connection that writes a chunk containing `marker` (a command's name, say
   * `EVAL`, case-insensitive) has the server's replies to it held back `ms` from then on (that connection only).
   */
  holdRepliesAfter(marker: string, ms: number): void {
    this.#holdAfter = { marker: marker.toUpperCase(), ms };
  }

  /**
   * From now on, the server's bytes to connection `index` (by the order the proxy accepted them) are held until
   * the client closes its side (a FIN); then they are passed on, and the connection is closed. This forces what
   * a client otherwise meets by chance: a server push read after the client already let the connection go.
   */
  holdUntilClientEnds(index: number): void {
    if (!this.#heldUntilEnd.has(index)) this.#heldUntilEnd.set(index, []);
  }

  /** What {@link holdUntilClientEnds} passed to connection `index` after its client had closed its side (latin1). */
  passedAfterEnd(index: number): string {
    return this.#passedAfterEnd.get(index) ?? '';
  }

  /**
   * From now on, what the client of connection `index` writes is held (not sent to the server, but recorded for
   * {@link wrote}) until {@link releaseWrites}: a command the client counts as sent stays unanswered meanwhile.
   */
  holdWrites(index: number): void {
    if (!this.#heldWrites.has(index)) this.#heldWrites.set(index, []);
  }

  /** Sends what {@link holdWrites} held for connection `index`, in order, and stops holding. */
  releaseWrites(index: number): void {
    const held = this.#heldWrites.get(index);
    if (held === undefined) return;
    this.#heldWrites.delete(index);
    const upstream = this.#byIndex.get(index)?.[1];
    for (const chunk of held) upstream?.write(chunk);
  }

  /** What the server wrote to connection `index` so far (latin1, the first 64 KB). */
  read(index: number): string {
    return this.#read.get(index) ?? '';
  }

  /** The connections (by the order the proxy accepted them) that wrote `marker` (case-insensitive) so far. */
  wrote(marker: string): number[] {
    const upper = marker.toUpperCase();
    return [...this.#written].filter(([, text]) => text.includes(upper)).map(([index]) => index);
  }

  /**
   * Resets every connection through the proxy: the clients' sockets get an RST (they read `ECONNRESET`), not
   * the orderly close of {@link dropAll}.
   */
  resetAll(): void {
    for (const [client, upstream] of this.#pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Destroys one connection, by the order the proxy accepted them (0 first); the others stay. */
  drop(index: number): void {
    const pair = this.#byIndex.get(index);
    if (!pair) return;
    for (const socket of pair) socket.destroy();
    this.#pairs.delete(pair);
  }

  async stop(): Promise<void> {
    this.dropAll();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #pipe(client: Socket, targetPort: number): void {
    const index = this.#accepted++;
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    this.#byIndex.set(index, pair);
    const close = (): void => {
      this.#pairs.delete(pair);
      this.#byIndex.delete(index);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    // The server closing ends both sides at once, as before half-open sockets (held bytes are dropped).
    upstream.on('end', close);
    client.on('end', () => {
      const held = this.#heldUntilEnd.get(index);
      if (held === undefined) {
        close();
        return;
      }
      // The client let go: what the server wrote meanwhile reaches it now, then both sides close.
      this.#heldUntilEnd.delete(index);
      const text = Buffer.concat(held).toString('latin1');
      this.#passedAfterEnd.set(index, text);
      for (const chunk of held) client.write(chunk);
      client.end();
      upstream.end();
    });
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').toUpperCase();
      const before = this.#written.get(index) ?? '';
      if (before.length < 65_536) this.#written.set(index, before + text);
      const hold = this.#holdAfter;
      if (hold !== null && text.includes(hold.marker)) {
        this.#holdAfter = null;
        this.replyDelayOf.set(index, hold.ms);
      }
      const heldWrites = this.#heldWrites.get(index);
      if (heldWrites !== undefined) heldWrites.push(chunk);
      else upstream.write(chunk);
    });
    // Held-back chunks keep their order: one queue per connection, drained by one timer at a time.
    const queue: Array<{ readonly at: number; readonly chunk: Buffer }> = [];
    let timer: NodeJS.Timeout | null = null;
    const drain = (): void => {
      timer = null;
      while (queue.length > 0 && (queue[0] as { at: number }).at <= Date.now()) {
        const next = queue.shift() as { chunk: Buffer };
        if (!client.destroyed) client.write(next.chunk);
      }
      const head = queue[0];
      if (head) timer = setTimeout(drain, Math.max(0, head.at - Date.now()));
    };
    upstream.on('data', (chunk: Buffer) => {
      const read = this.#read.get(index) ?? '';
      if (read.length < 65_536) this.#read.set(index, read + chunk.toString('latin1'));
      if (this.#closeOn !== null && chunk.toString('latin1').includes(this.#closeOn)) {
        this.#closeOn = null;
        this.#server.close();
      }
      const held = this.#heldUntilEnd.get(index);
      if (held !== undefined) {
        held.push(chunk);
        return;
      }
      const delay = this.replyDelayOf.get(index) ?? this.replyDelayMs;
      if (delay <= 0 && queue.length === 0) {
        client.write(chunk);
        return;
      }
      queue.push({ at: Date.now() + delay, chunk });
      timer ??= setTimeout(drain, Math.max(0, (queue[0] as { at: number }).at - Date.now()));
    });
  }
}
