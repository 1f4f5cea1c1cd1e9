/**
 * Every TypeScript snippet of the documentation — README.md and docs/ (the guides) — type-checks (strict, as a
 * user's project would) and runs against a real redis-server, unchanged except for the addresses it names.
 * Free names a snippet uses without declaring (`client`, `lock`, `order`, `chargeCard`, …) come from a prelude
 * of small stand-ins that record their calls, and each stand-in the snippet uses must have been called: a
 * snippet that hangs (an acquisition waiting for its own object, say) or throws fails here instead of in a
 * reader's hands. A ```` ```ts no-run ```` block is type-checked only, and says why on its first line
 * (test/docs/snippets.ts). README's JavaScript block (the ESM and CommonJS imports) is what test/package/ runs
 * from the tarball.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedisMany, useRedis, type TestRedis } from '../support/redis.js';
import { documentationFences, parseFences, type Snippet } from './snippets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC_INDEX = join(ROOT, 'src/index.js');
const OTEL_INDEX = join(ROOT, 'packages/otel/src/index.js');
// Inside the repository (node_modules and @types resolve as for our own code), outside tsconfig's include.
const WORK = join(ROOT, '.doc-snippets');

/** Stand-ins for names the snippets use without declaring them; each records its calls. */
const STAND_INS: Record<string, string> = {
  client: `const client = Redisson.create({ redis: readme.url });`,
  lock: `const lock = client.getLock('readme:lock');`,
  order: `const order = { id: 42 };`,
  chargeCard: `async function chargeCard(o: { id: number }, opts: { signal: AbortSignal }): Promise<void> { opts.signal.throwIfAborted(); readme.calls.push('chargeCard'); }`,
  ship: `async function ship(o: { id: number }, opts: { signal: AbortSignal }): Promise<void> { opts.signal.throwIfAborted(); readme.calls.push('ship'); }`,
  readCatalog: `async function readCatalog(): Promise<void> { readme.calls.push('readCatalog'); }`,
  pay: `async function pay(): Promise<void> { readme.calls.push('pay'); }`,
  encode: `async function encode(): Promise<void> { readme.calls.push('encode'); }`,
  render: `async function render(): Promise<void> { readme.calls.push('render'); }`,
  storage: `const storage = { async write(o: { id: number }, opts: { fence: number }): Promise<void> { readme.calls.push('storage'); } };`,
};
const RECORDING = ['chargeCard', 'ship', 'readCatalog', 'pay', 'storage', 'encode', 'render'];
const LIBRARY_NAMES = ['Redisson', 'TimeUnit', 'ExponentialBackOff', 'LockOptions', 'DIAGNOSTICS_CHANNELS'];

/** Address substitutions: the documentation names real-looking hosts and files; the test points them at its servers. */
const SUBSTITUTIONS: ReadonlyArray<readonly [string, string]> = [
  [`'redis://127.0.0.1:6379'`, 'readme.url'],
  [`{ host, port: 6379, maxRetriesPerRequest: 1 }`, `{ host: '127.0.0.1', port: readme.nodePorts[host] ?? 0, maxRetriesPerRequest: 1 }`],
  [`'config/redisson.yaml'`, JSON.stringify(join(ROOT, 'examples/java-interop/redisson.yaml'))],
];

interface ReadmeContext {
  url: string;
  nodePorts: Record<string, number>;
  calls: string[];
}

const declares = (code: string, name: string): boolean =>
  new RegExp(`\\b(const|let|function)\\s+${name}\\b`).test(code) || new RegExp(`import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(code);
const uses = (code: string, name: string): boolean => new RegExp(`\\b${name}\\b`).test(code);

/** The module a snippet runs as: prelude, the snippet, and the clean-up of what the prelude or snippet opened. */
function moduleFor(snippet: Snippet): { source: string; standIns: string[]; substituted: string[] } {
  let code = snippet.code.replaceAll(`from 'redisson-ts'`, `from ${JSON.stringify(SRC_INDEX)}`).replaceAll(`from 'redisson-ts-otel'`, `from ${JSON.stringify(OTEL_INDEX)}`);
  const substituted: string[] = [];
  for (const [from, to] of SUBSTITUTIONS) {
    if (code.includes(from)) {
      code = code.replaceAll(from, to);
      substituted.push(from);
    }
  }
  const wanted = new Set<string>();
  for (const name of Object.keys(STAND_INS)) if (uses(code, name) && !declares(code, name)) wanted.add(name);
  if (wanted.has('lock')) wanted.add('client');
  const standIns = Object.keys(STAND_INS).filter((n) => wanted.has(n));
  const library = LIBRARY_NAMES.filter((n) => (uses(code, n) || (n === 'Redisson' && wanted.has('client'))) && !declares(code, n));
  const prelude = [
    ...(library.length > 0 ? [`import { ${library.join(', ')} } from ${JSON.stringify(SRC_INDEX)};`] : []),
    `const readme = (globalThis as unknown as { readme: { url: string; nodePorts: Record<string, number>; calls: string[] } }).readme;`,
    ...standIns.map((n) => STAND_INS[n] as string),
  ];
  const epilogue: string[] = [];
  if ((wanted.has('client') || declares(code, 'client')) && !code.includes('client.shutdown()')) epilogue.push('await client.shutdown();');
  if (declares(code, 'nodes')) epilogue.push('for (const node of nodes) await node.shutdown();');
  // Imports first (a snippet's own), then the prelude: hoisting makes the order irrelevant at run time.
  const source = [...prelude, `// ${snippet.file} line ${snippet.line}`, code, ...epilogue, 'export {};', ''].join('\n');
  return { source, standIns, substituted };
}

const FENCES = documentationFences(ROOT);
const SNIPPETS = FENCES.snippets;
const RUNNABLE = SNIPPETS.filter((s) => !s.noRun);
const suite = useRedis({ own: true });
let nodes: TestRedis[] = [];

beforeAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  nodes = await startRedisMany(3);
});

afterAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  await Promise.all(nodes.map((n) => n.stop()));
});

it('every TypeScript fence of README.md and docs/ is ```ts or ```ts no-run with its reason', () => {
  expect(FENCES.problems).toEqual([]);
  // The parser's own rules, on fences that break them.
  const bad = ['```typescript', 'x', '```', '```ts run-later', 'x', '```', '```ts no-run', 'x', '```', '```ts', 'x'].join('\n');
  expect(parseFences('bad.md', bad).problems).toEqual([
    'bad.md:1: write ```ts, not ```typescript, so that the block is tested',
    'bad.md:4: unknown info string "run-later" (only "no-run" is known)',
    'bad.md:7: a no-run block opens with a "// no-run: <reason>" comment',
    'bad.md:10: the fence is never closed',
  ]);
});

it('README and the guides have TypeScript snippets, and every address substitution still matches one of them', () => {
  expect(SNIPPETS.filter((s) => s.file === 'README.md').length).toBeGreaterThanOrEqual(1);
  expect(SNIPPETS.filter((s) => s.file.startsWith('docs/guides/')).length).toBeGreaterThanOrEqual(14);
  const used = new Set(SNIPPETS.flatMap((s) => moduleFor(s).substituted));
  expect([...used].sort()).toEqual(SUBSTITUTIONS.map(([from]) => from).sort());
});

it('every documentation snippet (no-run ones included) type-checks as a strict user project would compile it', () => {
  SNIPPETS.forEach((s, i) => writeFileSync(join(WORK, `check-${i}.ts`), moduleFor(s).source));
  // Strict, as users compile; not this repository's extra index/optional-property strictness.
  writeFileSync(
    join(WORK, 'tsconfig.json'),
    JSON.stringify({
      extends: '../tsconfig.json',
      compilerOptions: { noEmit: true, noUncheckedIndexedAccess: false, exactOptionalPropertyTypes: false, declaration: false, sourceMap: false, rootDir: '..' },
      include: ['check-*.ts'],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', WORK], { encoding: 'utf8' });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 120_000);

it.each(RUNNABLE.map((s, i) => [`${s.file}:${s.line}`, i] as const))('snippet %s runs against a real server', async (_where, index) => {
  const snippet = RUNNABLE[index] as Snippet;
  const { source, standIns } = moduleFor(snippet);
  const raw = suite.clients.raw();
  await raw.flushall();
  const context: ReadmeContext = {
    url: suite.redis.url,
    nodePorts: Object.fromEntries(['redis-a', 'redis-b', 'redis-c'].map((host, i) => [host, (nodes[i] as TestRedis).port])),
    calls: [],
  };
  (globalThis as unknown as { readme: ReadmeContext }).readme = context;
  const savedPort = process.env.REDIS_PORT;
  process.env.REDIS_PORT = String(suite.redis.port); // read by the shared config file's ${REDIS_PORT:-6379}
  const file = join(WORK, `run-${index}.ts`);
  writeFileSync(file, source);
  try {
    await import(pathToFileURL(file).href);
  } finally {
    if (savedPort === undefined) delete process.env.REDIS_PORT;
    else process.env.REDIS_PORT = savedPort;
  }
  // Every stand-in the snippet calls was reached: the snippet ran to its end, not around its work.
  for (const name of standIns.filter((n) => RECORDING.includes(n))) expect(context.calls).toContain(name);
}, 30_000);
