/**
 * AbortScope and Canceller: one wait's abort sources (the caller's signal, the client's shutdown, an
 * unlock cancelling a lock() that was not awaited) joined into one, firing once, leaving no listener.
 */
import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../../src/ClientContext.js';
import { AbortScope, Canceller, onAbort, type TrackedWaiter } from '../../src/wait/AbortScope.js';

/** The one part of a client an AbortScope uses: its registry of waiters, which shutdown aborts. */
function waiters(): { ctx: ClientContext; shutdown: (reason: Error) => void; size: () => number } {
  const tracked = new Set<TrackedWaiter>();
  const ctx = {
    trackWaiter: (waiter: TrackedWaiter) => void tracked.add(waiter),
    untrackWaiter: (waiter: TrackedWaiter) => void tracked.delete(waiter),
  } as unknown as ClientContext;
  return { ctx, shutdown: (reason) => [...tracked].forEach((waiter) => waiter.abortWait(reason)), size: () => tracked.size };
}

describe('AbortScope', () => {
  it("the caller's signal aborts it with the signal's reason, and callbacks fire once", () => {
    const { ctx } = waiters();
    const controller = new AbortController();
    const scope = new AbortScope(ctx, controller.signal);
    const seen: unknown[] = [];
    scope.onAbort((r) => seen.push(r));
    const reason = new Error('caller gave up');
    controller.abort(reason);
    controller.abort(new Error('twice'));
    expect(scope.aborted).toBe(true);
    expect(scope.reason).toBe(reason);
    expect(seen).toEqual([reason]);
    expect(() => scope.throwIfAborted()).toThrow('caller gave up');
    scope.dispose();
  });

  it("the client's shutdown aborts it", () => {
    const { ctx, shutdown } = waiters();
    const scope = new AbortScope(ctx, undefined);
    const stop = new Error('client shut down');
    shutdown(stop);
    expect(scope.reason).toBe(stop);
  });

  it('a Canceller cancels the call it binds to, even when the cancel came first', () => {
    const { ctx } = waiters();
    const early = new Canceller();
    const reason = new Error('unlocked before the lock() bound');
    early.cancel(reason);
    expect(new AbortScope(ctx, undefined, early).reason).toBe(reason);
    const late = new Canceller();
    const scope = new AbortScope(ctx, undefined, late);
    expect(scope.aborted).toBe(false);
    late.cancel(new Error('cancelled'));
    expect(scope.reason.message).toBe('cancelled');
  });

  it("an unregistered callback does not fire, and reports that it had not fired", () => {
    const { ctx, shutdown } = waiters();
    const scope = new AbortScope(ctx, undefined);
    let fired = false;
    const off = scope.onAbort(() => (fired = true));
    expect(off()).toBe(true);
    shutdown(new Error('stop'));
    expect(fired).toBe(false);
  });

  it('dispose leaves nothing behind: not tracked by the client, no listener on the signal', () => {
    const { ctx, size } = waiters();
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (added++, add(...args)));
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (removed++, remove(...args)));
    const scope = new AbortScope(ctx, signal);
    scope.onAbort(() => {});
    expect(size()).toBe(1);
    scope.dispose();
    expect(size()).toBe(0);
    expect([added, removed]).toEqual([1, 1]);
    controller.abort();
    expect(scope.aborted).toBe(false);
  });
});

describe('onAbort', () => {
  it('works on a plain AbortSignal and on an AbortScope, and can be undone', () => {
    const { ctx, shutdown } = waiters();
    const controller = new AbortController();
    const seen: string[] = [];
    const offSignal = onAbort(controller.signal, () => seen.push('signal'));
    onAbort(new AbortScope(ctx, undefined), (r) => seen.push(`scope: ${r.message}`));
    offSignal();
    controller.abort();
    shutdown(new Error('stop'));
    expect(seen).toEqual(['scope: stop']);
  });
});
