/**
 * Reads a Redisson config file (YAML, or JSON, which YAML reads too) into plain values, as Redisson's
 * `Config.fromYAML` / `fromJSON` would see it: `${VAR}` and `${VAR:-default}` replaced from the
 * environment first, and a Java class given as a tag (`!<org.redisson.codec.Kryo5Codec> {}`) or as
 * Redisson's JSON `{"class": "…"}` kept as a `class` field of the object.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';
import { InvalidArgumentError, RedissonConfigError } from '../errors.js';

// Loaded on first use: an application that never reads a config file does not pay for the parser (~60 ms).
let yaml: typeof Yaml | undefined;
const parser = (): typeof Yaml => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** A config: a file path or `file:` URL, or an object already parsed (from Redisson's YAML or JSON form). */
export type RedissonConfigSource = string | URL | Readonly<Record<string, unknown>>;

/** The loaded tree and how to name it in messages. */
export interface Loaded {
  readonly label: string;
  readonly tree: unknown;
}

/** Loads `source`; a file that does not parse is a {@link RedissonConfigError} naming line and column. */
export function loadConfig(source: RedissonConfigSource, env: Readonly<Record<string, string | undefined>>): Loaded {
  if (typeof source !== 'string' && !(source instanceof URL)) {
    if (typeof source !== 'object' || source === null || Array.isArray(source)) {
      throw new InvalidArgumentError('Expected a Redisson config file path, a file: URL or a config object');
    }
    return { label: 'object', tree: source };
  }
  const path = source instanceof URL ? fileURLToPath(source) : source;
  const label = `file '${path}'`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RedissonConfigError(label, [{ path: '(file)', problem: `cannot be read: ${(error as Error).message}` }], { cause: error });
  }
  const substituted = substituteVariables(text, env, label);
  const doc = parser().parseDocument(substituted, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new RedissonConfigError(
      label,
      doc.errors.map((e) => ({ path: `(line ${e.linePos?.[0].line ?? '?'}, column ${e.linePos?.[0].col ?? '?'})`, problem: e.message })),
    );
  }
  return { label, tree: toPlain(doc, doc.contents) };
}

/** Replaces `${NAME}` / `${NAME:-default}` as Redisson does; a variable without value or default is an error. */
function substituteVariables(text: string, env: Readonly<Record<string, string | undefined>>, label: string): string {
  const missing: string[] = [];
  const out = text.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
    const value = env[name.trim()];
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    missing.push(name.trim());
    return whole;
  });
  if (missing.length > 0) {
    throw new RedissonConfigError(
      label,
      missing.map((name) => ({ path: `\${${name}}`, problem: 'has no value in the environment and no default (`${NAME:-default}`)' })),
    );
  }
  return out;
}

/** A YAML node as plain values; a map tagged with a Java class gets that class as its `class` field. */
function toPlain(doc: Yaml.Document, node: unknown): unknown {
  const { isAlias, isMap, isScalar, isSeq } = parser();
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return toPlain(doc, node.resolve(doc));
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => toPlain(doc, item));
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    const tag = (node as Yaml.Node).tag;
    if (tag !== undefined && !tag.startsWith('tag:yaml.org,2002:')) out['class'] = tag;
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      out[key] = toPlain(doc, pair.value);
    }
    return out;
  }
  return null;
}
