/**
 * Vitest global setup: a directory for the run's packed tarballs (test/support/pack.ts), shared by every
 * test file's process through REDISSON_TS_PACK_DIR and removed when the run ends. Creating it costs
 * nothing: packing happens only when a test asks for a package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'redisson-ts-pack-'));
  process.env['REDISSON_TS_PACK_DIR'] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
