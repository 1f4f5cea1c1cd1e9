/**
 * redisson-ts as users get it: the tsc build in dist/, which run.ts makes before anything is measured
 * (scripts/build.mjs). Not the source under tsx: tsx compiles with esbuild's keepNames, so every function
 * expression the library creates also gets a `name` defined on it — a property store and a hidden class per
 * closure, about 2.2 KB more heap per waiting `lock()` and CPU the published package never spends. The
 * peers are measured from their published JavaScript too.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type * as Library from '../src/index.js';

const DIST = new URL('../dist/index.js', import.meta.url);

/** Builds dist/ from the current source (a few seconds); throws when the build fails. */
export function buildLibrary(): void {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('benchmarks: building the library (scripts/build.mjs) failed');
}

let loaded: Promise<typeof Library> | undefined;

/** The built library, loaded once per process. */
export function library(): Promise<typeof Library> {
  loaded ??= import(DIST.href) as Promise<typeof Library>;
  return loaded;
}
