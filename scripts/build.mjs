// Builds the library package into dist/ (or the directory given as the first argument); the CLI is its own
// package, built by scripts/build-cli.mjs:
//
//   dist/cjs/index.js        THE implementation, one CommonJS file bundled by esbuild from src/index.ts. p-defer
//                            (ESM-only) is bundled in; mitt, yaml and ioredis stay dependencies, loaded with a
//                            plain require() that Node, Jest and every bundler follow. No require(esm), no
//                            import.meta: it loads under Jest's CommonJS runtime, in bundles, on Bun and Deno.
//   dist/index.js            the `import` entry: `export { … } from './cjs/index.js'`, a static list of names
//                            that Node finds with cjs-module-lexer (checked below), so `import` and `require`
//                            share one module instance: one Redisson class, one set of error classes
//                            (`instanceof LockLostError` holds across both), one copy of module state.
//   dist/**.d.ts             declarations from tsc (ES module scope), for `import`
//   dist/cjs/**.d.ts         the same declarations in a `"type": "commonjs"` scope, so TypeScript sees
//                            CommonJS types for `require` (node16/nodenext CJS, node10), as the runtime is
//
// src/fromConfig/yamlModule.ts loads `yaml` with createRequire(import.meta.url) when the sources run (vitest,
// tsx); the bundle gets yamlModule.bundle.ts instead, a literal `require('yaml')` in a try block. Every module
// with such a `<name>.bundle.ts` twin is swapped the same way: src/connection/ioredis/ioredisModule.ts (ioredis
// is an optional peer, required on the first Redisson.create).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { init as initLexer, parse as lexExports } from 'cjs-module-lexer';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

run(process.execPath, [join(root, 'scripts', 'gen-lua.mjs')]);
rmSync(dist, { recursive: true, force: true });
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', dist, '--emitDeclarationOnly']);
for (const file of walk(dist)) if (file.endsWith('.bundle.d.ts')) rmSync(file);

// Bundled: the ESM-only dependencies (p-defer). External: every other dependency and peer.
const BUNDLED = ['p-defer'];
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)].filter((d) => !BUNDLED.includes(d));
const pDeferVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'p-defer', 'package.json'), 'utf8')).version;
const cjs = join(dist, 'cjs');
await build({
  entryPoints: [join(root, 'src', 'index.ts')],
  outfile: join(cjs, 'index.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  legalComments: 'inline',
  logLevel: 'warning',
  banner: { js: `// redisson-ts ${pkg.version}, Apache-2.0. Bundles p-defer ${pDeferVersion} (MIT, (c) Sindre Sorhus).` },
  plugins: [
    {
      // A relative import of `x.js` whose `x.bundle.ts` exists gets the twin (see the top of this file).
      name: 'bundle-twins',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
          const twin = join(args.resolveDir, args.path.replace(/\.js$/, '.bundle.ts'));
          return existsSync(twin) ? { path: twin } : undefined;
        });
      },
    },
  ],
});

for (const file of walk(dist)) {
  if (file.endsWith('.d.ts') && !file.startsWith(cjs)) cpSync(file, join(cjs, relative(dist, file)));
}
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

// The names the bundle exports, as Node's ESM loader will see them (cjs-module-lexer reads esbuild's
// `0 && (module.exports = { … })` annotation), must be every name it exports at run time.
const code = readFileSync(join(cjs, 'index.js'), 'utf8');
await initLexer();
const lexed = new Set(lexExports(code).exports);
const actual = Object.keys(createRequire(import.meta.url)(join(cjs, 'index.js'))).filter((n) => n !== '__esModule');
const unseen = actual.filter((n) => !lexed.has(n));
if (unseen.length > 0) fail(`cjs-module-lexer does not see these exports of dist/cjs/index.js: ${unseen.join(', ')}`);
if (/import\.meta|createRequire/.test(code)) fail('dist/cjs/index.js uses import.meta or createRequire');
if (/require\(["']p-defer["']\)/.test(code)) fail('dist/cjs/index.js requires p-defer instead of bundling it');
// ioredis (an optional peer) is required in exactly one place, the loader called by Redisson.create.
if ((code.match(/require\(["']ioredis["']\)/g) ?? []).length !== 1 || /^(var|const|let) [\w$]+ = (__toESM\()?require\(["']ioredis["']\)/m.test(code)) {
  fail('dist/cjs/index.js requires ioredis when it loads, or in more than one place');
}

writeFileSync(
  join(dist, 'index.js'),
  `// The import entry: the CommonJS implementation's exports, by name (one module instance for import and require).\nexport {\n${actual
    .sort()
    .map((n) => `  ${n},`)
    .join('\n')}\n} from './cjs/index.js';\n`,
);
// And Node links it: every name resolves (a missing one would be a SyntaxError here).
const esm = await import(pathToFileURL(join(dist, 'index.js')).href);
const missing = actual.filter((n) => !(n in esm));
if (missing.length > 0) fail(`dist/index.js does not export ${missing.join(', ')}`);
