/**
 * Reads a Redisson config file (YAML, or JSON: a `.json` file, or one that JSON.parse reads, needs no YAML
 * parser) into plain values, as Redisson's
 * `Config.fromYAML` / `fromJSON` would see it: `${VAR}` and `${VAR:-default}` replaced from the
 * environment first, and a Java class given as a tag (`!<org.redisson.codec.Kryo5Codec> {}`) or as
 * Redisson's JSON `{"class": "…"}` kept as a `class` field of the object.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';
import { InvalidArgumentError, RedissonConfigError } from '../errors.js';
import { loadYamlModule } from './yamlModule.js';

// Loaded on first use: an application that never reads a YAML file does not pay for the parser (~60 ms), and
// one without it installed (a bundle built without it) still reads JSON files and objects.
let yaml: typeof Yaml | undefined;
function parser(label: string): typeof Yaml {
  yaml ??= loadYamlModule();
  if (yaml === undefined) {
    throw new RedissonConfigError(label, [
      { path: '(file)', problem: 'is YAML, and reading YAML needs the `yaml` package, which is not installed here: `npm install yaml` (JSON files and config objects need no parser)' },
    ]);
  }
  return yaml;
}

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
  const json = parseJson(substituted, extname(path).toLowerCase() === '.json', label);
  if (json.parsed) return { label, tree: json.tree };
  const yamlParser = parser(label);
  const doc = yamlParser.parseDocument(substituted, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new RedissonConfigError(
      label,
      doc.errors.map((e) => ({ path: `(line ${e.linePos?.[0].line ?? '?'}, column ${e.linePos?.[0].col ?? '?'})`, problem: e.message })),
    );
  }
  return { label, tree: toPlain(yamlParser, doc, doc.contents) };
}

/**
 * A `.json` file is parsed with JSON.parse (a syntax error names line and column); any other file is tried
 * as JSON when it starts with `{`, and otherwise (or when that fails) read as YAML, of which JSON is a subset.
 */
function parseJson(text: string, isJsonFile: boolean, label: string): { parsed: true; tree: unknown } | { parsed: false } {
  if (!isJsonFile && !text.trimStart().startsWith('{')) return { parsed: false };
  try {
    return { parsed: true, tree: JSON.parse(text) as unknown };
  } catch (error) {
    if (!isJsonFile) return { parsed: false };
    const message = (error as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1];
    const at = offset === undefined ? '(json)' : position(text, Number(offset));
    throw new RedissonConfigError(label, [{ path: at, problem: message }], { cause: error });
  }
}

/** `(line L, column C)` of a character offset, 1-based like the YAML parser's. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `(line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
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
function toPlain(yamlParser: typeof Yaml, doc: Yaml.Document, node: unknown): unknown {
  const { isAlias, isMap, isScalar, isSeq } = yamlParser;
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return toPlain(yamlParser, doc, node.resolve(doc));
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => toPlain(yamlParser, doc, item));
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    const tag = (node as Yaml.Node).tag;
    if (tag !== undefined && !tag.startsWith('tag:yaml.org,2002:')) out['class'] = tag;
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      out[key] = toPlain(yamlParser, doc, pair.value);
    }
    return out;
  }
  return null;
}
