/**
 * The published build's `yaml` loader (see yamlModule.ts): a literal `require('yaml')` inside `try`, so that
 * webpack and esbuild bundle the parser when it is installed, and only warn (not fail) when it is not; the
 * bundle then reads JSON and object configs, and a YAML file gets a RedissonConfigError naming the package.
 */
import type * as Yaml from 'yaml';

export function loadYamlModule(): typeof Yaml | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the point: a require() bundlers follow
    return require('yaml') as typeof Yaml;
  } catch (error) {
    if (isYamlMissing(error)) return undefined;
    throw error;
  }
}

/** Node, Jest, Bun and webpack say MODULE_NOT_FOUND; Deno may say ERR_MODULE_NOT_FOUND or only the message. */
function isYamlMissing(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || (typeof message === 'string' && /Cannot find (module|package) ['"]yaml['"]/.test(message));
}
