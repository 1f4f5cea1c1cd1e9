/** Parsing Sentinel's `+switch-master` message (the failover follower acts on it; issue 24). */
import { describe, expect, it } from 'vitest';
import { parseSwitchMaster } from '../../src/connection/ioredis/sentinel.js';

describe('parseSwitchMaster', () => {
  it('reads <name> <old-ip> <old-port> <new-ip> <new-port>', () => {
    expect(parseSwitchMaster('mymaster 10.0.0.1 6379 10.0.0.2 6380')).toEqual({
      masterName: 'mymaster',
      from: '10.0.0.1:6379',
      to: '10.0.0.2:6380',
      toEndpoint: { host: '10.0.0.2', port: 6380 },
    });
  });

  it('refuses a malformed message (acting on it would move the connections anywhere)', () => {
    for (const bad of ['', 'mymaster', 'mymaster 10.0.0.1 6379 10.0.0.2', 'mymaster 10.0.0.1 6379 10.0.0.2 x', 'mymaster a 1 b 0']) expect(parseSwitchMaster(bad)).toBeNull();
  });
});
