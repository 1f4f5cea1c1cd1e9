/**
 * The service: Express with the orders router, one redisson-ts client for the process, shut down with
 * the server on SIGINT/SIGTERM.
 *
 *   npm install && REDIS_URL=redis://127.0.0.1:6379 npm start
 *   curl -X POST localhost:3000/orders/42/pay     # from two terminals: the second gets 409
 *
 * Environment: REDIS_URL, PORT (default 3000; 0 picks a free one), PAY_MS (how long a payment takes,
 * default 2000).
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type ErrorRequestHandler } from 'express';
import { Redisson } from 'redisson-ts';
import { ordersRouter, type Pay } from './orders.js';

const client = Redisson.create({ redis: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
const payMs = Number(process.env['PAY_MS'] ?? 2_000);
// The payment provider; aborted (and so answered 500) if the order's lock is lost meanwhile.
const pay: Pay = async (orderId, signal) => {
  await sleep(payMs, undefined, { signal });
  return `order ${orderId} paid`;
};

const app = express();
app.use(ordersRouter(client, pay));
const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
  res.status(500).type('text').send(`${error.message}\n`);
};
app.use(onError);

const server = app.listen(Number(process.env['PORT'] ?? 3000), () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    void client.shutdown().then(() => console.log('stopped'));
  });
}
