/**
 * The four consumer projects of consumers.test.ts, as a new user writes them after `npm install redisson-ts
 * ioredis`: plain ESM (.mjs), plain CommonJS (.cjs), TypeScript `module: nodenext` in an ESM package and in
 * a CommonJS package. Each one waits for a lock the test holds (the test releases it once the consumer is
 * subscribed), reads the lock's hash with its own ioredis connection, unlocks, and prints one JSON line.
 */

/** What every consumer prints; the test asserts on it and on the Redis data it describes. */
export interface ConsumerReport {
  /** `cjs` when the file ran as CommonJS (`module` exists), else `esm`. */
  format: 'cjs' | 'esm';
  /** The file the consumer's own resolution picked for `redisson-ts`. */
  entry: string;
  /** `require('redisson-ts')` and `import('redisson-ts')` give the same class: one copy of the package. */
  oneCopy: boolean;
  acquired: boolean;
  id: string;
  threadId: number;
  /** HGETALL of the lock while held, read over a plain ioredis connection. */
  fields: Record<string, string>;
  holdCount: number;
}

export type ConsumerKind = 'esm' | 'cjs' | 'ts-esm' | 'ts-cjs';

/** The part that is the same everywhere; valid JavaScript and valid strict TypeScript. */
const body = `
  const url = String(process.env.REDIS_URL);
  const name = String(process.env.LOCK_NAME);
  const client = Redisson.create({ redis: url });
  const raw = new Redis(url);
  try {
    const lock = client.getLock(name);
    const acquired = await lock.tryLock(30, 60, TimeUnit.SECONDS);
    const fields = await raw.hgetall(name);
    const holdCount = await lock.getHoldCount();
    await lock.unlock();
    const format = typeof module === 'object' ? 'cjs' : 'esm';
    const report = { format, entry, oneCopy, acquired, id: client.getId(), threadId: lock.threadId, fields, holdCount };
    console.log(JSON.stringify(report));
  } finally {
    await client.shutdown();
    raw.disconnect();
  }
`;

const esmHead = (typeImport: string): string => `import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import { Redisson, TimeUnit${typeImport} } from 'redisson-ts';

const entry = import.meta.resolve('redisson-ts');
const oneCopy = createRequire(import.meta.url)('redisson-ts').Redisson === Redisson;
`;

// \`import()\` from CommonJS types the package with its ESM declarations: TypeScript needs the cast.
const cjsMain = (cast: string): string => `async function main() {
  const entry = require.resolve('redisson-ts');
  const oneCopy = (await import('redisson-ts')).Redisson === (Redisson${cast});
${body}}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

// The CommonJS consumer also checks every declaration file (ours in their CommonJS scope, ioredis',
// @types/node); the ESM one skips that (tsc --init's default), which halves the time.
const tsconfig = (skipLibCheck: boolean): string =>
  JSON.stringify(
    {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        skipLibCheck,
        types: ['node'],
        outDir: 'out',
      },
      include: ['index.ts'],
    },
    null,
    2,
  );

/** Files of the consumer project, by path relative to its root (which holds node_modules). */
export function consumerFiles(): Record<string, string> {
  return {
    'esm.mjs': `${esmHead('')}${body}`,
    'cjs.cjs': `'use strict';
const { Redis } = require('ioredis');
const { Redisson, TimeUnit } = require('redisson-ts');

${cjsMain('')}`,
    // A type position in each TS consumer, so the declarations are used, not only resolved.
    'ts-esm/package.json': JSON.stringify({ type: 'module' }),
    'ts-esm/tsconfig.json': tsconfig(true),
    'ts-esm/index.ts': `${esmHead(', type RLock')}
function typed(lock: RLock): number {
  return lock.threadId;
}
void typed;
${body}`,
    'ts-cjs/package.json': JSON.stringify({ type: 'commonjs' }),
    'ts-cjs/tsconfig.json': tsconfig(false),
    'ts-cjs/index.ts': `import { Redis } from 'ioredis';
import { Redisson, TimeUnit, type RLock } from 'redisson-ts';

function typed(lock: RLock): number {
  return lock.threadId;
}
void typed;

${cjsMain(' as unknown')}`,
  };
}

/** The file `node` runs for each kind (TS ones after `tsc -p <dir>`). */
export const CONSUMER_ENTRY: Record<ConsumerKind, string> = {
  esm: 'esm.mjs',
  cjs: 'cjs.cjs',
  'ts-esm': 'ts-esm/out/index.js',
  'ts-cjs': 'ts-cjs/out/index.js',
};
