/**
 * `RedissonModule.forRoot(options)` / `forRootAsync({ imports, inject, useFactory })`: one named client per
 * call (call it once per client), global by default. The client is made and answers `PING` while the
 * application starts, so a Redis that cannot be reached fails start-up with `RedisConnectionError` within the
 * client's `timeout`; it is shut down with the application.
 */
import { Inject, Module, type DynamicModule, type OnModuleInit, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { Redisson } from 'redisson-ts';
import { bindHost, usesClient } from './bindings.js';
import type { RedissonClientConfig, RedissonModuleAsyncOptions, RedissonModuleOptions } from './options.js';
import { connectClient, RedissonHost } from './RedissonHost.js';
import { DEFAULT_CLIENT_NAME, getRedissonHostToken, getRedissonOptionsToken, getRedissonToken } from './tokens.js';

/** Binds the module's client to the instances whose `@WithLock` methods name it (see bindings.ts). */
class WithLockBinder implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly host: RedissonHost,
  ) {}

  onModuleInit(): void {
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      const instance: unknown = wrapper.instance;
      if (instance !== null && typeof instance === 'object' && usesClient(instance, this.host.name)) bindHost(instance, this.host);
    }
  }
}

function requireName(name: unknown): string {
  if (name === undefined) return DEFAULT_CLIENT_NAME;
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('RedissonModule: name must be a non-empty string');
  return name;
}

function providersFor(name: string, options: Provider): Provider[] {
  const hostToken = getRedissonHostToken(name);
  return [
    options,
    {
      provide: hostToken,
      useFactory: async (config: RedissonClientConfig) => new RedissonHost(name, await connectClient(config)),
      inject: [getRedissonOptionsToken(name)],
    },
    { provide: getRedissonToken(name), useFactory: (host: RedissonHost): Redisson => host.client, inject: [hostToken] },
    { provide: `RedissonWithLockBinder:${name}`, useFactory: (d: DiscoveryService, host: RedissonHost) => new WithLockBinder(d, host), inject: [DiscoveryService, hostToken] },
  ];
}

@Module({})
export class RedissonModule {
  /** A client from `Redisson.create` options (`{ options }`) or a Redisson YAML/JSON file (`{ config }`). */
  static forRoot(options: RedissonModuleOptions): DynamicModule {
    const name = requireName(options?.name);
    const { name: _name, isGlobal, ...config } = options;
    const providers = providersFor(name, { provide: getRedissonOptionsToken(name), useValue: config });
    return { module: RedissonModule, global: isGlobal ?? true, imports: [DiscoveryModule], providers, exports: [getRedissonToken(name), getRedissonHostToken(name)] };
  }

  /** The same, the config made by `useFactory` with `inject` (e.g. `ConfigService` from `@nestjs/config`). */
  static forRootAsync(options: RedissonModuleAsyncOptions): DynamicModule {
    const name = requireName(options?.name);
    if (typeof options.useFactory !== 'function') throw new TypeError('RedissonModule.forRootAsync: useFactory must be a function');
    const providers = providersFor(name, { provide: getRedissonOptionsToken(name), useFactory: options.useFactory, inject: options.inject ?? [] });
    return {
      module: RedissonModule,
      global: options.isGlobal ?? true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers,
      exports: [getRedissonToken(name), getRedissonHostToken(name)],
    };
  }
}

/** Injects the client named `name` (default: the default client): `constructor(@InjectRedisson() redisson: Redisson)`. */
export function InjectRedisson(name?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getRedissonToken(requireName(name)));
}
