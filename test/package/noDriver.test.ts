/**
 * ioredis is an optional peer dependency (issue 25): `npm install <tarball>` alone installs no client library,
 * the library still loads (`import` and `require`), and `Redisson.create` fails with one typed error naming
 * the install command, before anything connects. Apps with ioredis: ./drivers.test.ts.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanEnv, exec, packOnce } from '../support/pack.js';

// Each app imports or requires the library, makes a client, and prints what it threw.
const APP_BODY = `
const report = { loaded: typeof Redisson.create === 'function', threw: false };
let client;
try {
  client = Redisson.create({ redis: 'redis://127.0.0.1:1' });
} catch (error) {
  report.threw = { name: error.name, code: error.code, ours: isRedissonError(error), message: error.message };
}
// (A client made after all, with ioredis installed, is shut down so that the app ends either way.)
Promise.resolve(client?.shutdown()).finally(() => console.log(JSON.stringify(report)));
`;
const APPS = {
  'app.mjs': `import { Redisson, isRedissonError } from 'redisson-ts';\n${APP_BODY}`,
  'app.cjs': `const { Redisson, isRedissonError } = require('redisson-ts');\n${APP_BODY}`,
};

let work = '';
let install = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-nodriver-'));
  const { 'redisson-ts': packed } = await packOnce(['redisson-ts']);
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'app-without-driver', private: true, type: 'module' }));
  for (const [file, text] of Object.entries(APPS)) writeFileSync(join(work, file), text);
  install = await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn', packed.tarball], work, cleanEnv());
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('npm install <tarball> alone installs no Redis client library, and warns about no peer dependency', () => {
  expect(install).not.toMatch(/ERESOLVE|peer dep|Conflicting peer/i);
  expect(existsSync(join(work, 'node_modules', 'redisson-ts'))).toBe(true);
  expect(existsSync(join(work, 'node_modules', 'ioredis'))).toBe(false);
});

it.each(Object.keys(APPS))('%s loads the library; Redisson.create throws RedisDriverMissingError naming the install commands', async (app) => {
  const stdout = await exec(process.execPath, [app], work, cleanEnv());
  const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { loaded: boolean; threw: false | { name: string; code: string; ours: boolean; message: string } };
  expect(report).toEqual({
    loaded: true,
    threw: { name: 'RedisDriverMissingError', code: 'ERR_REDISSON_DRIVER_MISSING', ours: true, message: expect.stringContaining('`npm install ioredis`') as unknown },
  });
  expect(report.threw && report.threw.message).toContain('`npm install redis`');
});
