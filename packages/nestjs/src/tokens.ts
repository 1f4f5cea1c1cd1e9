/** Injection tokens and the names behind them. */

/** The name of the client `RedissonModule.forRoot()` makes when none is given. */
export const DEFAULT_CLIENT_NAME = 'default';

/**
 * The injection token of the client named `name` (default: the default client), for `@Inject()`,
 * `moduleRef.get()` or a factory's `inject` list. `@InjectRedisson(name)` is `@Inject(getRedissonToken(name))`.
 */
export function getRedissonToken(name: string = DEFAULT_CLIENT_NAME): string {
  return name === DEFAULT_CLIENT_NAME ? 'RedissonClient' : `RedissonClient:${name}`;
}

/** Token of the object that owns the named client's lifecycle (connect, locks taken by `@WithLock`, shutdown). */
export function getRedissonHostToken(name: string = DEFAULT_CLIENT_NAME): string {
  return `RedissonHost:${name}`;
}

/** Token of the options a `forRootAsync` factory resolved, per name. */
export function getRedissonOptionsToken(name: string = DEFAULT_CLIENT_NAME): string {
  return `RedissonModuleOptions:${name}`;
}
