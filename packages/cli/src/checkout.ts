/**
 * The redisson-ts source checkout this CLI runs from, if any: `bench` runs the checkout's benchmarks (they
 * need the repository's test harness and are not published), and demo strategy 7 under tsx loads the Java
 * peer from the checkout's test/interop (a built CLI carries its own copy). `packages/cli/src` under tsx and
 * `packages/cli/dist` once built are both three levels below the root; an installed CLI
 * (`node_modules/redisson-ts-cli/dist`) has no checkout around it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root directory, or `undefined` when this CLI was installed from the registry or a tarball. */
export function checkoutRoot(): string | undefined {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown; workspaces?: unknown };
    if (pkg.name !== 'redisson-ts' || !Array.isArray(pkg.workspaces)) return undefined;
  } catch {
    return undefined;
  }
  return existsSync(join(root, 'benchmarks')) ? root : undefined;
}
