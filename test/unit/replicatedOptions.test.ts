/** The replicated and master/slave `redis` options: validated before anything is sent, and the pure master pick. */
import { describe, expect, it } from 'vitest';
import { resolveOptions, type RedissonOptions } from '../../src/config.js';
import { InvalidArgumentError, ArgumentRangeError } from '../../src/errors.js';
import { pickMaster, roleOf } from '../../src/connection/replicated.js';

describe('replicated and master/slave options', () => {
  it('fills in scanInterval (Redisson: 1000) and keeps the node list and connection options', () => {
    const o = resolveOptions({ redis: { replicatedNodes: ['redis://10.0.0.1:6379', 'rediss://cache.example:6380'], redisOptions: { password: 'p', db: 2 } } });
    expect(o.redis).toEqual({ replicatedNodes: ['redis://10.0.0.1:6379', 'rediss://cache.example:6380'], scanInterval: 1_000, redisOptions: { password: 'p', db: 2 } });
    const m = resolveOptions({ redis: { masterAddress: 'redis://10.0.0.1:6379' } });
    expect(m.redis).toEqual({ masterAddress: 'redis://10.0.0.1:6379', slaveAddresses: [], redisOptions: {} });
  });

  it.each<[NonNullable<RedissonOptions['redis']>, new (...args: never[]) => Error, RegExp]>([
    [{ replicatedNodes: [] }, InvalidArgumentError, /`redis.replicatedNodes` to be a non-empty array of redis:\/\/ addresses/],
    [{ replicatedNodes: 'redis://h:1' as unknown as string[] }, InvalidArgumentError, /non-empty array/],
    [{ replicatedNodes: ['h:6379'] }, InvalidArgumentError, /`redis.replicatedNodes\[0\]` to be a redis:\/\/ or rediss:\/\/ address/],
    [{ replicatedNodes: ['redis://u:p@h:6379'] }, InvalidArgumentError, /credentials and database in `redisOptions`/],
    [{ replicatedNodes: ['redis://h:1'], scanInterval: 0 }, ArgumentRangeError, /`redis.scanInterval` to be between 1/],
    [{ replicatedNodes: ['redis://h:1'], scanInterval: '1000' as unknown as number }, InvalidArgumentError, /`redis.scanInterval` to be a number/],
    [{ replicatedNodes: ['redis://h:1'], scanIntervall: 5 } as never, InvalidArgumentError, /Unknown option `scanIntervall`.*did you mean `scanInterval`/],
    [{ replicatedNodes: ['redis://h:1'], redisOptions: { port: 7000 } }, InvalidArgumentError, /`redis.redisOptions.port` is not accepted/],
    [{ replicatedNodes: ['redis://h:1'], redisOptions: [] as never }, InvalidArgumentError, /`redis.redisOptions` to be ioredis options/],
    [{ masterAddress: 42 as unknown as string }, InvalidArgumentError, /`redis.masterAddress` to be a redis:\/\//],
    [{ masterAddress: 'redis://h:1', slaveAddresses: ['nope'] }, InvalidArgumentError, /`redis.slaveAddresses\[0\]`/],
    [{ masterAddress: 'redis://h:1', replicatedNodes: ['redis://h:2'] }, InvalidArgumentError, /Unknown option `masterAddress`/],
  ])('rejects %o before connecting', (redis, type, message) => {
    expect(() => resolveOptions({ redis })).toThrow(type);
    expect(() => resolveOptions({ redis })).toThrow(message);
  });

  it("reads a node's role from INFO replication", () => {
    expect(roleOf('# Replication\r\nrole:master\r\nconnected_slaves:2\r\n')).toBe('master');
    expect(roleOf('# Replication\r\nrole:slave\r\nmaster_host:10.0.0.1\r\n')).toBe('slave');
    expect(roleOf('')).toBeNull();
  });

  it('keeps the current master while it says master; else takes the first node that does; none: no change', () => {
    expect(pickMaster(['slave', 'master', 'slave'], -1)).toBe(1);
    expect(pickMaster(['master', 'master', 'slave'], 1)).toBe(1); // a promoted replica beside a master not yet demoted
    expect(pickMaster(['master', 'slave', 'slave'], 1)).toBe(0);
    expect(pickMaster([null, 'slave', null], 0)).toBe(-1);
  });
});
