/**
 * When a waiter parks: the public `redisson-ts:wait` tracing channel starts a trace each time an acquire begins to
 * wait for a release message, after its attempt that followed the subscription answered. A test that must act on a
 * parked waiter (not on one still attempting) listens here before calling the acquire.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

export interface Parked {
  /** Resolves at the first wait whose channel `matches` accepted. */
  readonly started: Promise<void>;
  /** Stops listening (done by itself at the first match). */
  readonly stop: () => void;
}

/** Listens for the first wait on a channel that `matches` accepts (any channel when omitted). */
export function waitStarted(matches: (channel: string) => boolean = () => true): Parked {
  const traced = diagnosticsChannel.tracingChannel<unknown, { channel: string }>('redisson-ts:wait');
  const none = (): void => undefined;
  let resolve = none;
  const started = new Promise<void>((r) => (resolve = r));
  const handlers = {
    start: (context: { channel: string }): void => {
      if (!matches(context.channel)) return;
      stop();
      resolve();
    },
    end: none,
    asyncStart: none,
    asyncEnd: none,
    error: none,
  };
  let listening = true;
  const stop = (): void => {
    if (listening) traced.unsubscribe(handlers);
    listening = false;
  };
  traced.subscribe(handlers);
  return { started, stop };
}
