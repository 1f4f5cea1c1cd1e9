/**
 * The listener helpers: which kind a listener is (Redisson's `instanceof` order), and which
 * `notify-keyspace-events` values publish what each kind needs.
 */
import { expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/index.js';
import { LISTENER_PATTERNS, listenerKind, notificationsEnable } from '../../src/listeners.js';

it("a listener's kind: onExpired first (Java's instanceof order), then onDeleted; anything else is refused", () => {
  expect(listenerKind({ onExpired: () => undefined }).pattern).toBe('__keyevent@*:expired');
  expect(listenerKind({ onDeleted: () => undefined }).pattern).toBe('__keyevent@*:del');
  expect(listenerKind({ onExpired: () => undefined, onDeleted: () => undefined }).event).toBe('expired');
  class Listener {
    onDeleted(): void {}
  }
  expect(listenerKind(new Listener()).event).toBe('del');
  for (const bad of [null, undefined, 42, 'x', {}, { onExpired: 1 }, () => undefined]) expect(() => listenerKind(bad)).toThrow(InvalidArgumentError);
  expect(LISTENER_PATTERNS).toEqual(['__keyevent@*:expired', '__keyevent@*:del']);
});

it('notify-keyspace-events: E and the class letter, or A for every class; K alone is not enough', () => {
  expect(notificationsEnable('Ex', 'Ex')).toBe(true);
  expect(notificationsEnable('xE', 'Ex')).toBe(true);
  expect(notificationsEnable('AE', 'Ex')).toBe(true);
  expect(notificationsEnable('AKE', 'Eg')).toBe(true);
  expect(notificationsEnable('Egx', 'Eg')).toBe(true);
  expect(notificationsEnable('', 'Ex')).toBe(false);
  expect(notificationsEnable('Kx', 'Ex')).toBe(false);
  expect(notificationsEnable('KA', 'Eg')).toBe(false);
  expect(notificationsEnable('Ex', 'Eg')).toBe(false);
  expect(notificationsEnable('Eg', 'Ex')).toBe(false);
});
