// Builds the CLI package (packages/cli, published as redisson-ts-cli) into packages/cli/dist with tsc, with
// demo strategy 7's Java peer (test/interop's launcher and Maven project) in dist/java.
// The CLI imports the library by its package name, so the library is built first (scripts/build.mjs):
// in the workspace `node_modules/redisson-ts` links to the repository root, whose exports point at dist/.
//
//   node scripts/build-cli.mjs           build the library, then the CLI
//   node scripts/build-cli.mjs --pack    the CLI's prepack: build, then make the manifest publishable —
//                                        the workspace dependency `redisson-ts: file:../..` becomes
//                                        `^<the library's version>`, and LICENSE is copied in
//   node scripts/build-cli.mjs --unpack  the CLI's postpack: the workspace manifest back, LICENSE removed
//
// npm reads the manifest after prepack, so the tarball carries the rewritten one (the same rewrite pnpm and
// yarn do for `workspace:` ranges). A pack that failed half-way leaves the backup, which the next run restores.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'packages', 'cli');
const manifest = join(cli, 'package.json');
const backup = join(cli, '.package.json.workspace');
const license = join(cli, 'LICENSE');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build-cli: ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}

function restore() {
  if (existsSync(backup)) renameSync(backup, manifest);
  rmSync(license, { force: true });
}

const mode = process.argv[2];
restore();
if (mode === '--unpack') process.exit(0);

run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
rmSync(join(cli, 'dist'), { recursive: true, force: true });
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(cli, 'tsconfig.build.json')]);
chmodSync(join(cli, 'dist', 'main.js'), 0o755);
// Demo strategy 7's Java Redisson peer: the interop launcher compiled beside the CLI, and its Maven project
// (sources and pom only; the launcher builds it into java/target on first use).
const javaOut = join(cli, 'dist', 'java');
run(process.execPath, [
  join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  ...['--outDir', javaOut, '--rootDir', join(root, 'test', 'interop'), '--module', 'nodenext', '--target', 'es2022', '--types', 'node'],
  ...['--strict', '--skipLibCheck', '--verbatimModuleSyntax', join(root, 'test', 'interop', 'JavaPeer.ts')],
]);
cpSync(join(root, 'test', 'interop', 'java'), join(javaOut, 'java'), { recursive: true, filter: (from) => !/[\\/]target$/.test(from) });

if (mode === '--pack') {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  if (pkg.dependencies?.['redisson-ts'] !== 'file:../..') throw new Error('build-cli: packages/cli/package.json should depend on redisson-ts as file:../..');
  pkg.dependencies['redisson-ts'] = `^${version}`;
  writeFileSync(backup, text);
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  copyFileSync(join(root, 'LICENSE'), license);
}
