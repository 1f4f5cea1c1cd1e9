/**
 * JSON configs are read with JSON.parse, without the YAML parser: a `.json` file always, any other file when
 * it starts with `{` and parses as JSON. A syntax error in a `.json` file names line and column.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { RedissonConfigError, readRedissonConfig } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'redisson-ts-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => (writeFileSync(join(dir, name), text), join(dir, name));

it('reads a .json file and a JSON file of another name, with ${VAR} substituted first', () => {
  const text = '{\n  "singleServerConfig": { "address": "redis://127.0.0.1:${PORT}", "database": 2 },\n  "lockWatchdogTimeout": 15000\n}\n';
  for (const name of ['redisson.json', 'redisson.conf']) {
    expect(readRedissonConfig(file(name, text), { env: { PORT: '7001' } })).toMatchObject({
      mode: 'single',
      options: { lockWatchdogTimeout: 15000, redis: { host: '127.0.0.1', port: 7001, db: 2 } },
    });
  }
});

it('a syntax error in a .json file is a RedissonConfigError at its line and column', () => {
  const bad = file('bad.json', '{\n  "singleServerConfig": {\n    "address": "redis://127.0.0.1:6379",\n  }\n}\n');
  let error: unknown;
  try {
    readRedissonConfig(bad);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(RedissonConfigError);
  expect((error as RedissonConfigError).problems).toEqual([{ path: '(line 4, column 3)', problem: expect.any(String) as string }]);
});

it('a YAML flow mapping that is not JSON is still read as YAML', () => {
  expect(readRedissonConfig(file('flow.yaml', '{singleServerConfig: {address: "redis://h:1"}}\n'))).toMatchObject({ options: { redis: { host: 'h', port: 1 } } });
});
