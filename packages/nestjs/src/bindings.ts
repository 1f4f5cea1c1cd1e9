/**
 * Which client a `@WithLock` method uses. A method decorator runs when its class is defined, before any
 * container exists; each `RedissonModule` client binds itself, once the application's instances are made,
 * to every controller and provider whose class has `@WithLock` methods naming it. So several applications
 * in one process (tests) each use their own client.
 */
import type { RedissonHost } from './RedissonHost.js';

// Classes with @WithLock methods → the client names they use.
const classes = new WeakMap<object, Set<string>>();
// Instance → client name → host.
const bound = new WeakMap<object, Map<string, RedissonHost>>();

/** Records (at decoration) that `prototype`'s class uses the client `name`. */
export function noteClientUse(prototype: object, name: string): void {
  let names = classes.get(prototype);
  if (!names) classes.set(prototype, (names = new Set()));
  names.add(name);
}

/** True when `instance`'s class (or a base class) has a `@WithLock` method using `name`. */
export function usesClient(instance: object, name: string): boolean {
  for (let proto: unknown = Object.getPrototypeOf(instance); proto !== null && typeof proto === 'object'; proto = Object.getPrototypeOf(proto)) {
    if (classes.get(proto)?.has(name)) return true;
  }
  return false;
}

export function bindHost(instance: object, host: RedissonHost): void {
  let hosts = bound.get(instance);
  if (!hosts) bound.set(instance, (hosts = new Map<string, RedissonHost>()));
  hosts.set(host.name, host);
}

export function hostOf(instance: unknown, name: string): RedissonHost | undefined {
  return instance !== null && typeof instance === 'object' ? bound.get(instance)?.get(name) : undefined;
}
