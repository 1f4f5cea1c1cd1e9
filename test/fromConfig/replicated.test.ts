/**
 * `readRedissonConfig` / `optionsFromConfig` for `replicatedServersConfig` and `masterSlaveServersConfig`
 * (test/fixtures/config/replicated.yaml, master-slave.yaml): a test per field that has a meaning here. The
 * clients these options make are exercised on real servers in test/replicated/ and test/interop/replicated.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readRedissonConfig, RedissonConfigError } from '../../src/index.js';
import { optionsFromConfig } from '../../src/fromConfig.js';
import { resolveOptions } from '../../src/config.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));
const quiet = { onWarning: (): void => undefined };
const replicated = (fields: Record<string, unknown>, top: Record<string, unknown> = {}): ReturnType<typeof optionsFromConfig> =>
  optionsFromConfig({ ...top, replicatedServersConfig: { nodeAddresses: ['redis://10.0.0.1:6379'], ...fields } }, quiet);

describe('replicatedServersConfig', () => {
  it("reads Redisson's replicated example into a replicated group; only fields with no effect warn", () => {
    const warnings: string[] = [];
    const read = readRedissonConfig(fixture('replicated.yaml'), { onWarning: (w) => warnings.push(w) });
    expect(read.mode).toBe('replicated');
    expect(warnings).toEqual([expect.stringMatching(/`replicatedServersConfig.subscriptionMode` has no effect in redisson-ts \(set to `'SLAVE'`/)]);
    const options = optionsFromConfig(fixture('replicated.yaml'), quiet);
    expect(options).toEqual({
      lockWatchdogTimeout: 20_000,
      checkLockSyncedSlaves: false,
      slavesSyncTimeout: 1_500,
      timeout: 2_500,
      retryAttempts: 2,
      redis: {
        replicatedNodes: ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'],
        scanInterval: 500,
        redisOptions: { username: 'app', password: 's3cret', db: 1, connectTimeout: 5_000, connectionName: 'orders' },
      },
    });
    // What it makes is a valid Redisson.create option.
    expect(resolveOptions(options).redis).toMatchObject({ scanInterval: 500 });
  });

  it('nodeAddresses: each address kept (TLS as rediss://, IPv6 in brackets); an empty list or a bad address is a problem named by its path', () => {
    expect(replicated({ nodeAddresses: ['rediss://cache.example:6380', 'redis://[::1]:7000'] }).redis).toMatchObject({ replicatedNodes: ['rediss://cache.example:6380', 'redis://[::1]:7000'] });
    expect(() => replicated({ nodeAddresses: [] })).toThrow(/replicatedServersConfig.nodeAddresses.*must be a non-empty list/);
    expect(() => replicated({ nodeAddresses: ['10.0.0.1:6379'] })).toThrow(/replicatedServersConfig.nodeAddresses\[0\].*redis:\/\//);
  });

  it("scanInterval: mapped; absent, the client's default (Redisson's 1000) applies; not an integer is a problem", () => {
    expect(replicated({ scanInterval: '250' }).redis).toMatchObject({ scanInterval: 250 });
    expect(replicated({}).redis).not.toHaveProperty('scanInterval');
    expect(resolveOptions(replicated({})).redis).toMatchObject({ scanInterval: 1_000 });
    expect(() => replicated({ scanInterval: 'often' })).toThrow(/replicatedServersConfig.scanInterval.*must be an integer/);
  });

  it('password, username, database, clientName, connectTimeout: the connection options of every node (credentials at the top level too)', () => {
    expect(replicated({ password: 'p', username: 'u', database: 3, clientName: 'c', connectTimeout: 700 }).redis).toMatchObject({ redisOptions: { password: 'p', username: 'u', db: 3, connectionName: 'c', connectTimeout: 700 } });
    expect(replicated({}, { password: 'top', username: 'topuser' }).redis).toMatchObject({ redisOptions: { password: 'top', username: 'topuser' } });
  });

  it('timeout, retryAttempts, subscriptionTimeout: client options, as in the other modes', () => {
    expect(replicated({ timeout: 1_000, retryAttempts: 0, subscriptionTimeout: 900 })).toMatchObject({ timeout: 1_000, retryAttempts: 0, subscriptionTimeout: 900 });
  });

  it('checkLockSyncedSlaves and slavesSyncTimeout (top level) apply to a replicated group: its writes are followed by WAIT', () => {
    expect(replicated({}, { checkLockSyncedSlaves: false, slavesSyncTimeout: 300 })).toMatchObject({ checkLockSyncedSlaves: false, slavesSyncTimeout: 300 });
  });

  it('monitorIPChanges: accepted at its default, a warning otherwise; natMapper: refused', () => {
    const warnings: string[] = [];
    readRedissonConfig({ replicatedServersConfig: { nodeAddresses: ['redis://h:1'], monitorIPChanges: true } }, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([expect.stringMatching(/monitorIPChanges` has no effect/)]);
    expect(() => readRedissonConfig({ replicatedServersConfig: { nodeAddresses: ['redis://h:1'], natMapper: { class: 'org.redisson.api.HostNatMapper' } } })).toThrow(RedissonConfigError);
  });
});

describe('masterSlaveServersConfig', () => {
  it("reads Redisson's master/slave example into a fixed master with its replicas", () => {
    const read = readRedissonConfig(fixture('master-slave.yaml'), quiet);
    expect(read.mode).toBe('masterSlave');
    expect(optionsFromConfig(fixture('master-slave.yaml'), quiet)).toEqual({
      slavesSyncTimeout: 800,
      timeout: 3_000,
      retryAttempts: 3,
      redis: {
        masterAddress: 'redis://10.0.0.1:6379',
        slaveAddresses: ['redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'],
        redisOptions: { password: 's3cret', db: 4, connectTimeout: 10_000 },
      },
    });
  });

  it('masterAddress: required, a redis:// address; slaveAddresses: optional, each a redis:// address', () => {
    expect(optionsFromConfig({ masterSlaveServersConfig: { masterAddress: 'rediss://m:6380' } }, quiet).redis).toEqual({ masterAddress: 'rediss://m:6380', slaveAddresses: [], redisOptions: {} });
    expect(() => readRedissonConfig({ masterSlaveServersConfig: { slaveAddresses: ['redis://s:1'] } })).toThrow(/masterSlaveServersConfig.masterAddress.*redis:\/\//);
    expect(() => readRedissonConfig({ masterSlaveServersConfig: { masterAddress: 'redis://m:1', slaveAddresses: ['s:1'] } })).toThrow(/masterSlaveServersConfig.slaveAddresses\[0\]/);
    expect(() => readRedissonConfig({ masterSlaveServersConfig: { masterAddress: 'redis://m:1', slaveAddresses: 'redis://s:1' } })).toThrow(/slaveAddresses.*must be a list/);
  });

  it('a config naming two topologies is refused, listing all five', () => {
    expect(() => readRedissonConfig({ masterSlaveServersConfig: { masterAddress: 'redis://m:1' }, replicatedServersConfig: { nodeAddresses: ['redis://h:1'] } })).toThrow(
      /must name exactly one of singleServerConfig, sentinelServersConfig, clusterServersConfig, replicatedServersConfig, masterSlaveServersConfig \(got 2\)/,
    );
  });
});
