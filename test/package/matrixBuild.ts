/**
 * The bundler project of matrix.test.ts: one build script, run in that project, that bundles the consumer
 * programs with esbuild (ESM and CommonJS, minified; once more with `yaml` left out) and webpack 5
 * (production mode, an ESM and a CommonJS entry, the CommonJS one minified by terser) into `deploy/<name>/`, folders with no
 * node_modules anywhere above them.
 */

/** The bundles, by name: the file each one runs, and whether `yaml` is in it. */
export const BUNDLES = {
  'esbuild-esm': { file: 'bundle.mjs', yaml: true },
  'esbuild-cjs': { file: 'bundle.cjs', yaml: true },
  'esbuild-cjs-without-yaml': { file: 'bundle.cjs', yaml: false },
  'webpack-esm': { file: 'bundle.js', yaml: true },
  'webpack-cjs': { file: 'bundle.js', yaml: true },
} as const;

export type BundleName = keyof typeof BUNDLES;

// An ES module bundle of CommonJS code (ioredis, and redisson-ts's implementation) calls require() for Node's
// built-in modules: esbuild's documented banner gives it one. Bundling ioredis into ESM needs it anyway.
export const BUILD_SCRIPT = `import { build } from 'esbuild';
import webpack from 'webpack';
import { join } from 'node:path';

const deploy = process.argv[2];
const common = { bundle: true, platform: 'node', target: 'node20', minify: true, logLevel: 'error' };
const banner = { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" };
await build({ ...common, entryPoints: ['entry.mjs'], format: 'esm', banner, outfile: join(deploy, 'esbuild-esm', 'bundle.mjs') });
await build({ ...common, entryPoints: ['entry.cjs'], format: 'cjs', outfile: join(deploy, 'esbuild-cjs', 'bundle.cjs') });
await build({ ...common, entryPoints: ['entry.cjs'], format: 'cjs', external: ['yaml'], outfile: join(deploy, 'esbuild-cjs-without-yaml', 'bundle.cjs') });

// Production mode; terser (slow: ~1 MB with ioredis) minifies the CommonJS one, the ESM one stays readable.
const pack = (entry, name, minimize) => ({ mode: 'production', target: 'node20', context: process.cwd(), entry, optimization: { minimize }, output: { path: join(deploy, name), filename: 'bundle.js' } });
await new Promise((resolve, reject) =>
  webpack([pack('./entry.mjs', 'webpack-esm', false), pack('./entry.cjs', 'webpack-cjs', true)], (error, stats) => {
    if (error) reject(error);
    else if (stats.hasErrors()) reject(new Error(stats.toString('errors-only')));
    else resolve();
  }),
);
`;
