/** Redisson YAML files for the tests, in one temporary directory; `removeConfigFiles` (afterAll) deletes it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string | undefined;
let count = 0;

/** Writes `yaml` to a fresh file and returns its path. */
export function configFile(yaml: string): string {
  dir ??= mkdtempSync(join(tmpdir(), 'nest-redisson-'));
  const file = join(dir, `redisson-${++count}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

/** Deletes the files `configFile` wrote. */
export function removeConfigFiles(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}
