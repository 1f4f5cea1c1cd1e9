/**
 * The workspace's packages as `npm pack` makes them, packed once per test run from a copy of the work tree:
 * the prepack builds write into the copy, so the repository is left exactly as it was (no dist/, no
 * tarball, no manifest rewrite of the CLI's prepack).
 *
 * Once per run: test/support/packGlobalSetup.ts gives the run a directory (REDISSON_TS_PACK_DIR) that every
 * test file's process shares; the first file to ask for a package packs it under a lock directory and
 * writes the result, the others wait for it. Without that setup (another config) each process packs for
 * itself into a directory of its own.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The workspace's packages and their folders. */
const FOLDERS = { 'redisson-ts': '.', 'redisson-ts-otel': 'packages/otel', 'redisson-ts-cli': 'packages/cli' } as const;
export type PackageName = keyof typeof FOLDERS;

/** One packed package: its tarball and the files it ships (`npm pack --json`). */
export interface Packed {
  readonly name: PackageName;
  readonly tarball: string;
  readonly files: readonly { readonly path: string }[];
}

/** The environment without the `npm_*` variables of an enclosing `npm test`, which would redirect npm. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  return { ...env, ...extra };
}

/** Runs a command to its end; rejects with its output when it fails. */
export function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

let ownDir: string | undefined;
function runDir(): string {
  const shared = process.env['REDISSON_TS_PACK_DIR'];
  if (shared) return shared;
  if (ownDir === undefined) {
    const made = (ownDir = mkdtempSync(join(tmpdir(), 'redisson-ts-pack-')));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return ownDir;
}

/** `make()` once per run directory: the first caller runs it under a lock, the others read its result. */
async function once<T>(dir: string, key: string, make: () => Promise<T>): Promise<T> {
  const result = join(dir, `${key}.json`);
  const failed = join(dir, `${key}.error`);
  try {
    mkdirSync(join(dir, `${key}.lock`));
  } catch {
    // Another process is making it: a hang guard of 5 minutes (packing takes 10-40 s on two busy cores).
    for (let i = 0; i < 3000 && !existsSync(result) && !existsSync(failed); i++) await new Promise((r) => setTimeout(r, 100));
    if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
    return JSON.parse(readFileSync(result, 'utf8')) as T;
  }
  try {
    const value = await make();
    writeFileSync(result, JSON.stringify(value));
    return value;
  } catch (error) {
    writeFileSync(failed, String((error as Error).stack ?? error));
    throw error;
  }
}

/**
 * Runs `fn` while holding the copy's build mutex: two packs must not build at once (the CLI's prepack
 * rebuilds the library's dist/, which the OpenTelemetry package's build reads).
 */
async function exclusive<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const mutex = join(dir, 'build.mutex');
  for (;;) {
    try {
      mkdirSync(mutex);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
}

/**
 * The work tree as git sees it (tracked and untracked files, not ignored ones), with a node_modules that
 * links the repository's packages but whose workspace links point into the copy.
 */
async function copyTree(dir: string): Promise<string> {
  return once(dir, 'tree', async () => {
    const tree = join(dir, 'tree');
    const listed = await exec('git', ['ls-files', '-co', '--exclude-standard', '-z'], ROOT);
    for (const file of listed.split('\0').filter(Boolean)) {
      if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      cpSync(join(ROOT, file), join(tree, file));
    }
    const modules = join(ROOT, 'node_modules');
    mkdirSync(join(tree, 'node_modules'));
    for (const entry of readdirSync(modules)) {
      const from = join(modules, entry);
      const stat = lstatSync(from);
      // Workspace links (`redisson-ts -> ..`) are relative: kept as they are, they resolve inside the copy.
      const target = stat.isSymbolicLink() && !isAbsolute(readlinkSync(from)) ? readlinkSync(from) : from;
      symlinkSync(target, join(tree, 'node_modules', entry));
    }
    return tree;
  });
}

/** Packs `names` (each once per run) from the copy; their prepack scripts build them there. */
export async function packOnce(names: readonly PackageName[]): Promise<Record<PackageName, Packed>> {
  const dir = runDir();
  const tree = await copyTree(dir);
  const packed = {} as Record<PackageName, Packed>;
  // One after another, the library first: the builds share the copy's dist/.
  let builtLibrary = false;
  const ordered = names.includes('redisson-ts') ? ['redisson-ts' as const, ...names.filter((n) => n !== 'redisson-ts')] : names;
  for (const name of ordered) {
    packed[name] = await once(dir, `pack-${name}`, async () => {
      // The library's build is in the copy's dist/ once it was packed: the other packages' prepacks skip it.
      const env = cleanEnv(builtLibrary ? { REDISSON_TS_LIBRARY_BUILT: '1' } : {});
      const json = await exclusive(dir, () => exec('npm', ['pack', '--json', '--pack-destination', dir], join(tree, FOLDERS[name]), env));
      const [{ filename, files }] = JSON.parse(json.slice(json.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
      return { name, tarball: join(dir, filename), files };
    });
    if (name === 'redisson-ts') builtLibrary = true;
  }
  return packed;
}
