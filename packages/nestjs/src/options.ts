/** What `RedissonModule.forRoot` / `forRootAsync` take. */
import type { FromConfigOptions, RedissonConfigSource, RedissonOptions } from 'redisson-ts';
import type { FactoryProvider, ModuleMetadata } from '@nestjs/common';

/**
 * How to make one client: `Redisson.create` options, **or** a Redisson YAML/JSON config (a file path,
 * a `file:` URL or the parsed object) read by `Redisson.fromConfig` — the same file the Java services use.
 * Sentinel, Cluster, replicated and master/slave deployments are configured either way (`redis: { sentinels,
 * name }` / `{ clusterNodes }` / `{ replicatedNodes }` / `{ masterAddress }`, or the file's `sentinelServersConfig`
 * / `clusterServersConfig` / `replicatedServersConfig` / `masterSlaveServersConfig`).
 */
export type RedissonClientConfig =
  | { readonly options: RedissonOptions; readonly config?: never }
  | { readonly config: RedissonConfigSource; readonly fromConfigOptions?: FromConfigOptions; readonly options?: never };

/** Options of the client's place in the application. */
export interface RedissonModuleScope {
  /** The client's name: `@InjectRedisson(name)`, `@WithLock(…, { client: name })`. Default `'default'`. */
  readonly name?: string;
  /** Register the client in the global scope (every module can inject it). Default `true`, as Spring's bean. */
  readonly isGlobal?: boolean;
}

/** `RedissonModule.forRoot(options)`. */
export type RedissonModuleOptions = RedissonClientConfig & RedissonModuleScope;

/** `RedissonModule.forRootAsync(options)`: the config comes from a factory (e.g. over `ConfigService`). */
export interface RedissonModuleAsyncOptions extends RedissonModuleScope {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: (...args: never[]) => RedissonClientConfig | Promise<RedissonClientConfig>;
}
