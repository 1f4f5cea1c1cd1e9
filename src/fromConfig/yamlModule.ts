/**
 * Loads the `yaml` parser, or returns `undefined` when it is not installed. This file is what the sources
 * run (vitest, tsx); the published build (scripts/build.mjs) swaps in yamlModule.bundle.ts, a plain
 * `require('yaml')` that Node, Jest and every bundler can follow.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

export function loadYamlModule(): typeof Yaml | undefined {
  try {
    return createRequire(import.meta.url)('yaml') as typeof Yaml;
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
