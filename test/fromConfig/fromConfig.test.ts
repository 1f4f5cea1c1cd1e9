/**
 * `Redisson.fromConfig` / `readRedissonConfig` over real Redisson config files (test/fixtures/config):
 * the client a file describes connects where the file says (address, ACL user, password, database) and
 * applies its lock settings and NameMapper, seen in the data on a real redis-server; fields without meaning
 * here become warnings; unknown and unsupported ones one typed error listing them all, before connecting.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ConstantDelay, Redisson, RedissonConfigError, readRedissonConfig, type NameMapper } from '../../src/index.js';
import { startRedis, uniqueName, type TestRedis } from '../support/redis.js';
import { optionsFromConfig } from '../../src/fromConfig.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));
const PASSWORD = 'sesame-open';

let server: TestRedis;
let admin: Redis;
const clients: Redisson[] = [];
const track = (c: Redisson): Redisson => (clients.push(c), c);

beforeAll(async () => {
  server = await startRedis({ own: true, args: ['--requirepass', PASSWORD] });
  admin = new Redis({ port: server.port, password: PASSWORD });
  await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-pass', '~*', '&*', '+@all');
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.shutdown()));
  await admin?.quit();
  await server?.stop();
});

describe('Redisson.fromConfig with a real server', () => {
  it("connects with Redisson's documented single-server example and locks; ignored defaults give no warning", async () => {
    await admin.config('SET', 'requirepass', '');
    try {
      const warnings: string[] = [];
      const client = track(Redisson.fromConfig(fixture('redisson-documented.yaml'), { env: { REDIS_PORT: String(server.port) }, onWarning: (w) => warnings.push(w) }));
      const name = uniqueName('cfg');
      const lock = client.getLock(name);
      await lock.lock();
      expect(await admin.hget(name, `${client.id}:${lock.threadId}`)).toBe('1');
      expect(await admin.pttl(name)).toBeGreaterThan(25_000); // Redisson's default watchdog lease, 30 s
      await lock.unlock();
      expect(warnings).toEqual([]);
    } finally {
      await admin.config('SET', 'requirepass', PASSWORD);
    }
  });

  it('uses the file\'s ACL user, password, database, client name and lock settings; warns about fields with no effect', async () => {
    const warnings: string[] = [];
    const env = { REDIS_PORT: String(server.port), REDIS_PASSWORD: 'app-pass' };
    const client = track(Redisson.fromConfig(pathToFileURL(fixture('credentials.yaml')), { env, onWarning: (w) => warnings.push(w) }));
    const name = uniqueName('cfg');
    const lock = client.getLock(name);
    await lock.lock();
    await admin.select(3);
    try {
      expect(await admin.hget(name, `${client.id}:${lock.threadId}`)).toBe('1');
      const ttl = await admin.pttl(name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(12_000); // lockWatchdogTimeout from the file
      const list = await admin.client('LIST');
      expect(String(list)).toMatch(/name=orders-node .*user=app/);
    } finally {
      await admin.select(0);
    }
    expect(await admin.exists(name)).toBe(0);
    await lock.unlock();
    expect(warnings).toHaveLength(1); // `codec` is never a warning: no codec touches the synchronizers' data
    expect(warnings.join('\n')).toMatch(/`threads` has no effect .*`4`/);
    // retryInterval (before Redisson 3.35) is a ConstantDelay, as Redisson's setRetryInterval makes it.
    expect(client.options.retryDelay).toEqual(new ConstantDelay(1_000));
    const read = readRedissonConfig(fixture('credentials.yaml'), { env, onWarning: () => undefined });
    expect(read).toMatchObject({
      mode: 'single',
      options: {
        lockWatchdogTimeout: 12_000,
        lockWatchdogBatchSize: 50,
        fairLockWaitTimeout: 60_000,
        timeout: 2000,
        retryAttempts: 2,
        subscriptionTimeout: 6000,
        redis: { host: '127.0.0.1', port: server.port, username: 'app', password: 'app-pass', db: 3, connectionName: 'orders-node', connectTimeout: 5000 },
      },
    });
    expect(read.options.nameMapper).toBeUndefined(); // Redisson's DefaultNameMapper: identity
  });

  it("maps a NameMapper class of the user's own through `nameMappers`, with the fields the JSON config gives it", async () => {
    await admin.config('SET', 'requirepass', '');
    try {
      const prefixMapper = ({ prefix }: Readonly<Record<string, unknown>>): NameMapper => ({
        map: (n) => `${String(prefix)}${n}`,
        unmap: (n) => n.slice(String(prefix).length),
      });
      const options = { env: { REDIS_PORT: String(server.port) }, nameMappers: { 'com.acme.redis.PrefixNameMapper': prefixMapper } };
      const client = track(Redisson.fromConfig(fixture('prefix-mapper.json'), options));
      const name = uniqueName('cfg');
      const lock = client.getLock(name);
      await lock.lock();
      expect(await admin.exists(`orders:${name}`)).toBe(1);
      expect(await admin.exists(name)).toBe(0);
      await lock.unlock();
      expect(() => Redisson.fromConfig(fixture('prefix-mapper.json'), { env: options.env })).toThrow(
        /`nameMapper` is the class com\.acme\.redis\.PrefixNameMapper, which has no counterpart here/,
      );
    } finally {
      await admin.config('SET', 'requirepass', PASSWORD);
    }
  });
});

describe('readRedissonConfig: problems are reported, not ignored', () => {
  it('lists every unknown and unsupported field of a file in one RedissonConfigError, with suggestions', () => {
    let error: unknown;
    try {
      Redisson.fromConfig(fixture('unknown-and-unsupported.yaml'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RedissonConfigError);
    const problems = (error as RedissonConfigError).problems.map((p) => p.path);
    expect(problems).toEqual(['lockWatchdogTimout', 'commandMapper', 'singleServerConfig.adress', 'singleServerConfig.sslTruststore', 'singleServerConfig.address']);
    expect((error as Error).message).toMatch(/`lockWatchdogTimout` is not a Redisson config field \(did you mean `lockWatchdogTimeout`\?\)/);
    expect((error as Error).message).toMatch(/`singleServerConfig.sslTruststore` is not supported: TLS material/);
  });

  it("maps Redisson's checkLockSyncedSlaves and slavesSyncTimeout (top level) into the client's options, without a warning", () => {
    const warnings: string[] = [];
    const tree = { checkLockSyncedSlaves: false, slavesSyncTimeout: '2500', sentinelServersConfig: { masterName: 'm', sentinelAddresses: ['redis://127.0.0.1:26379'] } };
    const read = readRedissonConfig(tree, { onWarning: (w) => warnings.push(w) });
    expect(read.options).toMatchObject({ checkLockSyncedSlaves: false, slavesSyncTimeout: 2500 });
    expect(warnings).toEqual([]);
    // Jackson's string spelling of a boolean is taken too; anything else is a problem, named by its path.
    expect(readRedissonConfig({ ...tree, checkLockSyncedSlaves: 'true' }).options.checkLockSyncedSlaves).toBe(true);
    expect(() => readRedissonConfig({ ...tree, checkLockSyncedSlaves: 'yes' })).toThrow(/`checkLockSyncedSlaves` must be true or false, got/);
    expect(() => readRedissonConfig({ ...tree, slavesSyncTimeout: 1.5 })).toThrow(/`slavesSyncTimeout` must be an integer/);
  });

  it('reads a sentinel config into typed servers, and makes ioredis Sentinel options of it', () => {
    const warnings: string[] = [];
    const read = readRedissonConfig(fixture('sentinel.yaml'), { onWarning: (w) => warnings.push(w) });
    expect(read).toMatchObject({
      mode: 'sentinel',
      options: { lockWatchdogTimeout: 20_000, timeout: 3000, retryAttempts: 4 },
      sentinel: {
        masterName: 'mymaster',
        sentinels: [
          { host: '127.0.0.1', port: 26379, tls: false },
          { host: '127.0.0.1', port: 26389, tls: false },
        ],
        connection: { password: 's3cret', db: 2, connectTimeout: 10_000 },
      },
    });
    // Only the one field not at Redisson's default (the documented example subscribes on slaves).
    expect(warnings).toEqual([expect.stringMatching(/`sentinelServersConfig.subscriptionMode` has no effect in redisson-ts \(set to `'SLAVE'`/)]);
    expect(optionsFromConfig(fixture('sentinel.yaml'), { onWarning: () => undefined })).toMatchObject({
      lockWatchdogTimeout: 20_000,
      redis: {
        name: 'mymaster',
        sentinels: [
          { host: '127.0.0.1', port: 26379 },
          { host: '127.0.0.1', port: 26389 },
        ],
        password: 's3cret',
        db: 2,
      },
    });
  });

  it('reads a cluster config into typed nodes (TLS from rediss://) and makes cluster options of it, shardedSubscriptionMode included', () => {
    const read = readRedissonConfig(fixture('cluster.yaml'), { onWarning: () => undefined });
    expect(read.mode).toBe('cluster');
    expect(read.mode === 'cluster' && read.cluster.nodes).toEqual([
      { host: '127.0.0.1', port: 7004, tls: false },
      { host: '127.0.0.1', port: 7001, tls: false },
      { host: '127.0.0.1', port: 7000, tls: true },
    ]);
    expect(optionsFromConfig(fixture('cluster.yaml'), { onWarning: () => undefined })).toMatchObject({
      timeout: 3000,
      redis: {
        clusterNodes: [
          { host: '127.0.0.1', port: 7004 },
          { host: '127.0.0.1', port: 7001 },
          { host: '127.0.0.1', port: 7000 },
        ],
        clusterOptions: { redisOptions: { connectTimeout: 10_000, tls: {} } },
      },
    });
    const off = { clusterServersConfig: { nodeAddresses: ['redis://127.0.0.1:7000'], shardedSubscriptionMode: 'OFF' } };
    expect(optionsFromConfig(off)).toMatchObject({ shardedSubscriptionMode: 'OFF' });
    expect(() => optionsFromConfig({ clusterServersConfig: { nodeAddresses: ['redis://127.0.0.1:7000'], shardedSubscriptionMode: 'SOMETIMES' } })).toThrow(/shardedSubscriptionMode.*must be AUTO, ON or OFF/);
  });

  it('accepts a parsed object and reports bad values, a missing variable, no server section and an unreadable file', () => {
    expect(readRedissonConfig({ singleServerConfig: { address: 'redis://[::1]:7000', timeout: '2500' } })).toMatchObject({
      options: { timeout: 2500, redis: { host: '::1', port: 7000 } },
    });
    expect(() => readRedissonConfig({ singleServerConfig: { address: '127.0.0.1:6379', database: 'two' } })).toThrow(
      /`singleServerConfig.database` must be an integer.*`singleServerConfig.address` must be a redis:\/\/ or rediss:\/\/ address/,
    );
    expect(() => readRedissonConfig({ singleServerConfig: { address: 'redis://u:p@h:1/2' } })).toThrow(/give credentials and database as/);
    expect(() => readRedissonConfig({ lockWatchdogTimeout: 1 })).toThrow(/must name exactly one of/);
    expect(() => readRedissonConfig(fixture('credentials.yaml'), { env: {} })).toThrow(/\$\{REDIS_PORT\}` has no value in the environment/);
    expect(() => readRedissonConfig(fixture('missing.yaml'))).toThrow(RedissonConfigError);
    expect(() => readRedissonConfig(42 as unknown as string)).toThrow(TypeError);
  });

  it('rejects bad option values through Redisson.create before connecting', () => {
    expect(() => Redisson.fromConfig({ singleServerConfig: { address: 'redis://127.0.0.1:1' }, lockWatchdogTimeout: 0 })).toThrow(RangeError);
  });
});
