// Loaded with `--import` (NODE_OPTIONS, set by scripts/driver-leg.mjs) so that every Node process of a
// driver leg uses the ioredis copy in IOREDIS_DIR: vitest's workers (whose own imports the leg's config
// aliases too) and the processes tests fork (fault-suite workers, interop crash holders, lock workers).
// REDIS_PROTOCOL (2 or 3) becomes that copy's default `protocol` (ioredis 6+), so every connection —
// Redisson's own, the tests' raw ones, a Cluster's node connections — speaks it unless told otherwise.
// Plain JavaScript: it must load before tsx does.
import { createRequire, register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.IOREDIS_DIR;
if (dir) {
  const load = createRequire(join(dir, 'package.json'));
  const entry = pathToFileURL(load.resolve('./built/index.js')).href;
  const hook = `export async function resolve(specifier, context, next) {
  return specifier === 'ioredis' ? { url: ${JSON.stringify(entry)}, format: 'commonjs', shortCircuit: true } : next(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  const protocol = process.env.REDIS_PROTOCOL;
  if (protocol) {
    const { version } = load('./package.json');
    if (Number(version.split('.')[0]) < 6) throw new Error(`REDIS_PROTOCOL=${protocol} needs ioredis 6+, IOREDIS_DIR has ${version}`);
    if (protocol !== '2' && protocol !== '3') throw new Error(`REDIS_PROTOCOL must be 2 or 3, not ${protocol}`);
    load('./built/index.js').Redis.defaultOptions.protocol = Number(protocol);
  }
}
