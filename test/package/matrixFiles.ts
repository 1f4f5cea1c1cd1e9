/**
 * The consumers of matrix.test.ts, as files of fresh projects that installed the packed tarball. Every
 * consumer runs one scenario against a real redis-server and reports it as JSON: reads a YAML and a JSON
 * Redisson config through `Redisson.fromConfig` (both point at the test's server), takes a lock with the
 * YAML client and a semaphore with the JSON one, and catches two errors (a second unlock, a bad config) to
 * report their `name`, `code` and `instanceof`. Runners (Jest, Vitest) run it inside a test and write the
 * report to `REPORT_FILE`; plain programs and bundles print it.
 */

/** What a consumer reports; matrix.test.ts checks it against the sources. */
export interface MatrixReport {
  /** The options `readRedissonConfig` read from each file (`'missing-yaml'`: see `yamlMissing`). */
  yamlOptions: unknown;
  jsonOptions: unknown;
  /** Set when reading the YAML file failed (a bundle built without `yaml`): the error it gave. */
  yamlMissing?: { name: string; isConfigError: boolean; message: string };
  locked: boolean;
  lockSeenByOtherClient: boolean;
  permitsSet: boolean;
  acquired: boolean;
  availableAfterAcquire: number;
  unlockError: CaughtError | null;
  configError: CaughtError | null;
}

export interface CaughtError {
  name: string;
  code: string | null;
  /** `instanceof` the class the consumer imported (IllegalMonitorStateError / RedissonConfigError). */
  isClass: boolean;
  isRedissonError: boolean;
}

export interface ScenarioEnv {
  NAME: string;
  REDIS_HOST: string;
  REDIS_PORT: string;
  YAML_CONFIG: string;
  JSON_CONFIG: string;
}

/** The config files, the same settings in both formats (address from the environment, as Redisson allows). */
export const CONFIGS = {
  'redisson.yaml': `# Redisson's YAML form
lockWatchdogTimeout: 20000
singleServerConfig:
  address: "redis://\${REDIS_HOST}:\${REDIS_PORT}"
  database: 0
  timeout: 4000
  retryAttempts: 2
`,
  'redisson.json': `{
  "lockWatchdogTimeout": 25000,
  "singleServerConfig": {
    "address": "redis://\${REDIS_HOST}:\${REDIS_PORT}",
    "database": 0,
    "connectTimeout": 5000
  }
}
`,
};

/**
 * The scenario, as source text; `ts` adds the type annotations ts-jest's type check needs (the lib is the
 * module's namespace, typed from the package's own declarations).
 */
function scenario(ts: boolean): string {
  const t = (annotation: string): string => (ts ? annotation : '');
  return `
function caught(e${t(': unknown')}, cls${t(': abstract new (...args: never[]) => Error')}, base${t(': abstract new (...args: never[]) => Error')})${t(': CaughtError')} {
  const err = e${t(' as { name: string; code?: unknown }')};
  return { name: String(err.name), code: typeof err.code === 'string' ? err.code : null, isClass: e instanceof cls, isRedissonError: e instanceof base };
}

async function scenario(lib${t(": typeof import('redisson-ts')")}, env${t(': ScenarioEnv')})${t(': Promise<MatrixReport>')} {
  const { Redisson, TimeUnit, RedissonError, IllegalMonitorStateError, RedissonConfigError, readRedissonConfig } = lib;
  const configEnv = { REDIS_HOST: env.REDIS_HOST, REDIS_PORT: env.REDIS_PORT };
  const report${t(': Partial<MatrixReport>')} = {};
  report.jsonOptions = readRedissonConfig(env.JSON_CONFIG, { env: configEnv }).options;
  const json = Redisson.fromConfig(env.JSON_CONFIG, { env: configEnv });
  let yaml${t(': ReturnType<typeof Redisson.fromConfig> | undefined')};
  try {
    report.yamlOptions = readRedissonConfig(env.YAML_CONFIG, { env: configEnv }).options;
    yaml = Redisson.fromConfig(env.YAML_CONFIG, { env: configEnv });
  } catch (e) {
    const err = e${t(' as Error')};
    report.yamlOptions = 'missing-yaml';
    report.yamlMissing = { name: err.name, isConfigError: e instanceof RedissonConfigError, message: err.message };
  }
  try {
    const lock = (yaml ?? json).getLock(env.NAME + ':lock');
    report.locked = await lock.tryLock(10, 30, TimeUnit.SECONDS);
    report.lockSeenByOtherClient = await json.getLock(env.NAME + ':lock').isLocked();
    await lock.unlock();
    report.unlockError = null;
    try {
      await lock.unlock();
    } catch (e) {
      report.unlockError = caught(e, IllegalMonitorStateError, RedissonError);
    }
    const semaphore = json.getSemaphore(env.NAME + ':semaphore');
    report.permitsSet = await semaphore.trySetPermits(2);
    report.acquired = await semaphore.tryAcquire();
    report.availableAfterAcquire = await semaphore.availablePermits();
    await semaphore.release();
    await semaphore.delete();
    report.configError = null;
    try {
      readRedissonConfig({ singleServerConfig: { adress: 'redis://127.0.0.1:1' } });
    } catch (e) {
      report.configError = caught(e, RedissonConfigError, RedissonError);
    }
  } finally {
    await json.shutdown();
    await yaml?.shutdown();
  }
  return report${t(' as MatrixReport')};
}
`;
}

const envOf = `({ NAME: String(process.env.NAME), REDIS_HOST: String(process.env.REDIS_HOST), REDIS_PORT: String(process.env.REDIS_PORT), YAML_CONFIG: String(process.env.YAML_CONFIG), JSON_CONFIG: String(process.env.JSON_CONFIG) })`;

const mainPrint = `
scenario(lib, ${envOf}).then(
  (report) => console.log(JSON.stringify(report)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

/** A plain ES module and a plain CommonJS program (Node, Bun, Deno; the bundlers' entries). */
export const ESM_PROGRAM = `import * as lib from 'redisson-ts';\n${scenario(false)}${mainPrint}`;
export const CJS_PROGRAM = `'use strict';\nconst lib = require('redisson-ts');\n${scenario(false)}${mainPrint}`;

const runnerTest = (head: string, ts: boolean): string => `${head}
${scenario(ts)}
test('redisson-ts loads, locks, reads both configs, and names its errors', async () => {
  const report = await scenario(lib, ${envOf});
  writeFileSync(String(process.env.REPORT_FILE), JSON.stringify(report));
  expect(report.locked).toBe(true);
}, 30000);
`;

/** Jest, CommonJS (default config): `require`. */
export const JEST_CJS_TEST = runnerTest(`'use strict';\nconst { writeFileSync } = require('node:fs');\nconst lib = require('redisson-ts');`, false);
/** Jest's ESM mode (--experimental-vm-modules) and Vitest: `import`; Jest's globals come from @jest/globals. */
export const JEST_ESM_TEST = runnerTest(`import { writeFileSync } from 'node:fs';\nimport { expect, test } from '@jest/globals';\nimport * as lib from 'redisson-ts';`, false);
export const VITEST_TEST = runnerTest(`import { writeFileSync } from 'node:fs';\nimport { expect, test } from 'vitest';\nimport * as lib from 'redisson-ts';`, false);
/** ts-jest: TypeScript compiled to CommonJS and type-checked against the package's declarations. */
export const TS_JEST_TEST = runnerTest(
  `import { writeFileSync } from 'node:fs';
import { expect, test } from '@jest/globals';
import * as lib from 'redisson-ts';

interface CaughtError { name: string; code: string | null; isClass: boolean; isRedissonError: boolean }
interface ScenarioEnv { NAME: string; REDIS_HOST: string; REDIS_PORT: string; YAML_CONFIG: string; JSON_CONFIG: string }
interface MatrixReport {
  yamlOptions: unknown; jsonOptions: unknown; yamlMissing?: { name: string; isConfigError: boolean; message: string };
  locked: boolean; lockSeenByOtherClient: boolean; permitsSet: boolean; acquired: boolean; availableAfterAcquire: number;
  unlockError: CaughtError | null; configError: CaughtError | null;
}`,
  true,
);

export const TS_JEST_TSCONFIG = JSON.stringify({
  compilerOptions: { module: 'commonjs', moduleResolution: 'node10', target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: true, types: ['node'], isolatedModules: false },
});
