/**
 * A plain `node:http` service (no framework) that serialises work per order across every instance of the
 * service — and across Java services using Redisson on the same Redis — with one lock per order id.
 *
 * `POST /orders/<id>/pay` takes `order:<id>` for the duration of the payment: a second request for the
 * same order gets `409 Conflict` at once instead of charging twice; different orders run in parallel.
 * The lock is always released, also when the handler throws; if it is lost meanwhile (Redis lost the key,
 * the event loop stalled past the lease), `hold.signal` aborts the work.
 *
 * Run: `REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/http-lock/server.ts`, then
 * `curl -X POST localhost:3000/orders/42/pay` from two terminals.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Redisson } from '../../src/index.js'; // in an app: from 'redisson-ts'

/** The payment itself; gets the hold's signal, aborted if the lock is lost. */
export type Pay = (orderId: string, signal: AbortSignal) => Promise<string>;

/** The request handler: `POST /orders/<id>/pay` under the order's lock. */
export function createHandler(client: Redisson, pay: Pay): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const match = req.method === 'POST' ? /^\/orders\/([\w-]{1,64})\/pay$/.exec(req.url ?? '') : null;
    const orderId = match?.[1];
    if (orderId === undefined) {
      res.writeHead(404).end();
      return;
    }
    // One attempt, no wait: a concurrent payment of the same order answers 409 rather than queueing.
    // Without a lease the watchdog keeps the lock alive for as long as the payment takes.
    const hold = await client.getLock(`order:${orderId}`).tryAcquire();
    if (hold === null) {
      res.writeHead(409, { 'content-type': 'text/plain' }).end(`order ${orderId} is being paid\n`);
      return;
    }
    try {
      const receipt = await pay(orderId, hold.signal);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${receipt}\n`);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`);
    } finally {
      await hold.release();
    }
  };
}

/** Starts the service on `port`; `close()` stops it and the client. */
export function startServer(client: Redisson, pay: Pay, port = 0): Promise<Server> {
  const handle = createHandler(client, pay);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(503);
      res.end(String(error));
    });
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = Redisson.create({ redis: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
  const pay: Pay = async (orderId) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the payment provider
    return `order ${orderId} paid`;
  };
  const server = await startServer(client, pay, Number(process.env['PORT'] ?? 3000));
  console.log('listening on', server.address());
  process.once('SIGINT', () => {
    server.close();
    void client.shutdown();
  });
}
