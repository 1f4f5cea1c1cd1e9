/**
 * The consumers matrix (issue 26): the packed tarball, installed into fresh projects, loaded by every kind of
 * consumer a user has — Jest 30 (CommonJS with its default config, its ESM mode, ts-jest), Vitest, esbuild
 * and webpack 5 bundles (ESM and CommonJS entries, minified) run from folders without node_modules, Node
 * 20.19 / 22.12 / 24 (the binaries npm ships as `node-<platform>-<arch>`), Bun and Deno (devDependencies).
 * Each runs the same scenario (matrixFiles.ts) against a real redis-server: YAML and JSON configs through
 * `Redisson.fromConfig`, a lock, a semaphore, and two errors checked by `name`, `instanceof` and `code`.
 * Nothing is skipped: a runtime that cannot be installed (a platform npm ships no `node-<platform>-<arch>`
 * for, no registry) fails the setup, and with it every case. The whole file logs its steps' times.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IllegalMonitorStateError, RedissonConfigError, readRedissonConfig } from '../../src/index.js';
import { uniqueName, useRedis } from '../support/redis.js';
import { BUILD_SCRIPT, BUNDLES, type BundleName } from './matrixBuild.js';
import { CJS_PROGRAM, CONFIGS, ESM_PROGRAM, JEST_CJS_TEST, JEST_ESM_TEST, TS_JEST_TEST, TS_JEST_TSCONFIG, VITEST_TEST, type MatrixReport } from './matrixFiles.js';
import { cleanEnv, mustRun, run, running, timed } from './run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

/** Consumer tools not in the repo, pinned; the others at the repo's own versions (already in the npm cache). */
const PINNED = { jest: '30.5.2', 'ts-jest': '29.4.15', webpack: '5.113.0' };
/** Node versions: the floors of the engines range (20.19, 22.12) and a current 24. */
const NODES = { 'node-20': '20.19.0', 'node-22': '22.12.0', 'node-24': '24.22.3' } as const;
const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;
const repo = (pkg: string): string => `${pkg}@${versionOf(pkg)}`;

/**
 * The error codes consumers must see, by class: whatever the sources give (null while the classes have no
 * `code`; once they do, every consumer must report the same one).
 */
const codeOf = (e: Error): string | null => {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
};
const ERROR_CODES = {
  IllegalMonitorStateError: codeOf(new IllegalMonitorStateError('n', 'c', 1)),
  RedissonConfigError: codeOf(new RedissonConfigError('object', [])),
};

const suite = useRedis();
let work = '';
const dir = (...parts: string[]): string => join(work, ...parts);
const started = performance.now();
const LABEL = 'consumers matrix';

async function install(project: string, files: Record<string, string>, deps: string[], extra: string[] = []): Promise<void> {
  for (const [file, text] of Object.entries({ 'package.json': JSON.stringify({ name: project, private: true }), ...files })) {
    mkdirSync(dirname(dir(project, file)), { recursive: true });
    writeFileSync(dir(project, file), text);
  }
  await timed(LABEL, `npm install (${project})`, () =>
    mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...extra, ...deps], { cwd: dir(project), env: cleanEnv() }),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-matrix-'));
  for (const [name, text] of Object.entries(CONFIGS)) {
    mkdirSync(dir('config'), { recursive: true });
    writeFileSync(dir('config', name), text);
  }
  mkdirSync(dir('reports'));
  const json = await timed(LABEL, 'npm pack (build)', () => mustRun('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env: cleanEnv() }));
  const tarball = dir((JSON.parse(json.slice(json.indexOf('['))) as [{ filename: string }])[0].filename);
  const base = [tarball, repo('ioredis')];
  // The installs run side by side (one npm cache); the bundles are built as soon as their project is in.
  const bundled = install('bundlers', { 'entry.mjs': ESM_PROGRAM, 'entry.cjs': CJS_PROGRAM, 'build.mjs': BUILD_SCRIPT }, [...base, repo('esbuild'), `webpack@${PINNED.webpack}`]).then(() =>
    timed(LABEL, 'bundles (esbuild, webpack)', () => mustRun(process.execPath, ['build.mjs', dir('deploy')], { cwd: dir('bundlers'), env: cleanEnv() })),
  );
  await Promise.all([
    bundled,
    install('jest', { 'cjs/consumer.test.cjs': JEST_CJS_TEST, 'esm/consumer.test.mjs': JEST_ESM_TEST, 'ts/consumer.test.ts': TS_JEST_TEST, 'tsconfig.json': TS_JEST_TSCONFIG }, [
      ...base,
      `jest@${PINNED.jest}`,
      `ts-jest@${PINNED['ts-jest']}`,
      repo('typescript'),
      repo('@types/node'),
    ]),
    install('vitest', { 'consumer.test.mjs': VITEST_TEST }, [...base, repo('vitest')]),
    // Aliases, so the three versions sit side by side; no bin links (all three are called `node`).
    install('runtimes', { 'esm.mjs': ESM_PROGRAM, 'cjs.cjs': CJS_PROGRAM }, [...base, ...Object.entries(NODES).map(([alias, v]) => `${alias}@npm:${NODE_PACKAGE}@${v}`)], ['--no-bin-links']),
  ]);
  for (const alias of Object.keys(NODES)) chmodSync(dir('runtimes', 'node_modules', alias, 'bin', 'node'), 0o755);
  // The bundles run where nothing can be resolved from a node_modules.
  expect(() => createRequire(dir('deploy', 'webpack-cjs', 'bundle.js')).resolve('ioredis')).toThrow(/Cannot find module/);
  // A hang guard: the setup (pack, four installs side by side, bundles) took 65-80 s on two cores at load 18.
}, 600_000);

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`${LABEL}: whole file took ${((performance.now() - started) / 1000).toFixed(1)} s`);
});

interface Consumer {
  cwd: () => string;
  cmd: () => string;
  args: () => string[];
  /** A test runner: the report is in REPORT_FILE, and it writes its own results to stderr. */
  runner?: boolean;
  yaml?: boolean;
}

const jestBin = (): string => dir('jest', 'node_modules', 'jest', 'bin', 'jest.js');
const JEST = ['--ci', '--watchman=false'];
const program = (cmd: () => string, file: string, pre: string[] = []): Consumer => ({ cwd: () => dir('runtimes'), cmd, args: () => [...pre, file] });
const nodeOf = (alias: keyof typeof NODES) => (): string => dir('runtimes', 'node_modules', alias, 'bin', 'node');
const bun = (): string => join(ROOT, 'node_modules', '.bin', 'bun');
const deno = (): string => join(ROOT, 'node_modules', '.bin', 'deno');
const bundle = (name: BundleName): Consumer => ({ cwd: () => dir('deploy', name), cmd: () => process.execPath, args: () => [BUNDLES[name].file], yaml: BUNDLES[name].yaml });

const CONSUMERS: Record<string, Consumer> = {
  'jest 30, CommonJS, default config': { cwd: () => dir('jest'), cmd: () => process.execPath, args: () => [jestBin(), ...JEST, 'cjs/'], runner: true },
  'jest 30, ESM mode': { cwd: () => dir('jest'), cmd: () => process.execPath, args: () => ['--experimental-vm-modules', jestBin(), ...JEST, '--config', '{"transform":{}}', 'esm/'], runner: true },
  'jest 30, ts-jest': {
    cwd: () => dir('jest'),
    cmd: () => process.execPath,
    args: () => [jestBin(), ...JEST, '--config', JSON.stringify({ preset: 'ts-jest', testMatch: ['<rootDir>/ts/*.test.ts'] })],
    runner: true,
  },
  vitest: { cwd: () => dir('vitest'), cmd: () => process.execPath, args: () => [dir('vitest', 'node_modules', 'vitest', 'vitest.mjs'), 'run'], runner: true },
  ...Object.fromEntries((Object.keys(BUNDLES) as BundleName[]).map((name) => [name, bundle(name)])),
  ...Object.fromEntries(
    (Object.keys(NODES) as (keyof typeof NODES)[]).flatMap((alias) => [
      [`${alias.replace('-', ' ')} (${NODES[alias]}), import`, program(nodeOf(alias), 'esm.mjs')],
      [`${alias.replace('-', ' ')} (${NODES[alias]}), require`, program(nodeOf(alias), 'cjs.cjs')],
    ]),
  ),
  'bun, import': program(bun, 'esm.mjs'),
  'bun, require': program(bun, 'cjs.cjs'),
  'deno, import': program(deno, 'esm.mjs', ['run', '--allow-all']),
  'deno, require': program(deno, 'cjs.cjs', ['run', '--allow-all']),
};

it.concurrent.each(Object.entries(CONSUMERS))('%s: loads, reads the YAML and JSON configs, locks, takes a permit, and names its errors', async (label, consumer) => {
  const { hostname, port } = new URL(suite.redis.url);
  const reportFile = dir('reports', `${label.replace(/[^a-z0-9]+/gi, '-')}.json`);
  const configEnv = { REDIS_HOST: hostname, REDIS_PORT: port || '6379' };
  const env = cleanEnv({ ...configEnv, NAME: uniqueName('matrix'), YAML_CONFIG: dir('config', 'redisson.yaml'), JSON_CONFIG: dir('config', 'redisson.json'), REPORT_FILE: reportFile, DENO_NO_UPDATE_CHECK: '1' });
  const { code, stdout, stderr } = await run(consumer.cmd(), consumer.args(), { cwd: consumer.cwd(), env });
  expect({ code, ...(consumer.runner ? {} : { stderr }) }, `${label}\n${stdout}\n${stderr}`).toEqual({ code: 0, ...(consumer.runner ? {} : { stderr: '' }) });
  const report = JSON.parse(consumer.runner ? readFileSync(reportFile, 'utf8') : (stdout.trim().split('\n').at(-1) ?? '')) as MatrixReport;

  const plain = (source: string): unknown => JSON.parse(JSON.stringify(readRedissonConfig(source, { env: configEnv }).options));
  expect(report.jsonOptions).toEqual(plain(dir('config', 'redisson.json')));
  if (consumer.yaml === false) {
    // Without the parser a YAML file is a typed error that says what to install; JSON still worked above.
    expect(report.yamlOptions).toBe('missing-yaml');
    expect(report.yamlMissing).toMatchObject({ name: 'RedissonConfigError', isConfigError: true, message: expect.stringMatching(/npm install yaml/) as string });
  } else {
    expect(report.yamlOptions).toEqual(plain(dir('config', 'redisson.yaml')));
  }
  expect(report).toMatchObject({ locked: true, lockSeenByOtherClient: true, permitsSet: true, acquired: true, availableAfterAcquire: 1 });
  expect(report.unlockError).toEqual({ name: 'IllegalMonitorStateError', code: ERROR_CODES.IllegalMonitorStateError, isClass: true, isRedissonError: true });
  expect(report.configError).toEqual({ name: 'RedissonConfigError', code: ERROR_CODES.RedissonConfigError, isClass: true, isRedissonError: true });
}, 180_000);

it('error codes, once the classes have them, are ERR_REDISSON_* (the consumers must then report the same)', () => {
  for (const code of Object.values(ERROR_CODES)) if (code !== null) expect(code).toMatch(/^ERR_REDISSON_[A-Z0-9_]+$/);
});
