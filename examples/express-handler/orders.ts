/**
 * An Express router that serialises work per order across every instance of the service — and across
 * Java services using Redisson on the same Redis — with one lock per order id.
 *
 * `POST /orders/:id/pay` takes `order:<id>` for the duration of the payment: a second request for the
 * same order gets `409 Conflict` at once instead of charging twice; different orders run in parallel.
 * The lock is always released, also when the payment throws; if it is lost meanwhile (Redis lost the key,
 * the event loop stalled past the lease), `hold.signal` aborts the payment.
 */
import { Router } from 'express';
import type { Redisson } from 'redisson-ts';

/** The payment itself; gets the hold's signal, aborted if the lock is lost. */
export type Pay = (orderId: string, signal: AbortSignal) => Promise<string>;

export function ordersRouter(client: Redisson, pay: Pay): Router {
  const router = Router();
  // Express 5 passes a rejected handler's error to the error middleware: no try/catch needed for that.
  router.post('/orders/:id/pay', async (req, res) => {
    const orderId = req.params.id;
    // One attempt, no wait: a concurrent payment of the same order answers 409 rather than queueing.
    // Without a lease the watchdog keeps the lock alive for as long as the payment takes.
    const hold = await client.getLock(`order:${orderId}`).tryAcquire();
    if (hold === null) {
      res.status(409).type('text').send(`order ${orderId} is being paid\n`);
      return;
    }
    try {
      res.type('text').send(`${await pay(orderId, hold.signal)}\n`);
    } finally {
      await hold.release();
    }
  });
  return router;
}
