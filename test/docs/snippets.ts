/**
 * Finds the TypeScript code blocks of the documentation (README.md and docs/**) and turns each into a module
 * that test/docs/snippets.test.ts type-checks and runs against a real redis-server. Only the fences are
 * parsed here; no Redis, no I/O but reading the Markdown files.
 *
 * A block opens with ```` ```ts ```` (run and type-checked) or ```` ```ts no-run ```` (type-checked only; its
 * first line must be a `// no-run: <reason>` comment). Any other info string after `ts`, and the `typescript`
 * or `tsx` spellings, are reported as problems: a block the test would silently skip is a block nobody checks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Snippet {
  /** Path relative to the repository root, e.g. `docs/guides/locks.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /** True for ```` ```ts no-run ````: type-checked, not run. */
  readonly noRun: boolean;
}

export interface Fences {
  readonly snippets: Snippet[];
  /** Malformed TypeScript fences, as `file:line: what is wrong`. */
  readonly problems: string[];
}

const TS_LANGS = new Set(['ts', 'typescript', 'tsx', 'mts', 'cts']);

/** Every TypeScript fence of one Markdown text, indented ones (inside a list) included, indentation removed. */
export function parseFences(file: string, markdown: string): Fences {
  const snippets: Snippet[] = [];
  const problems: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)[ \t]*(.*?)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const [, indentText, ticks, lang, info] = open as unknown as [string, string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^\\s*${ticks}\\s*$`);
    for (; j < lines.length && !close.test(lines[j] as string); j++) body.push((lines[j] as string).slice(indentText.length));
    const where = `${file}:${i + 1}`;
    if (j >= lines.length) problems.push(`${where}: the fence is never closed`);
    if (TS_LANGS.has(lang)) {
      if (lang !== 'ts') problems.push(`${where}: write \`\`\`ts, not \`\`\`${lang}, so that the block is tested`);
      else if (info !== '' && info !== 'no-run') problems.push(`${where}: unknown info string "${info}" (only "no-run" is known)`);
      else if (info === 'no-run' && !/^\s*\/\/ no-run: \S/.test(body[0] ?? '')) problems.push(`${where}: a no-run block opens with a "// no-run: <reason>" comment`);
      else snippets.push({ file, line: i + 1, code: body.join('\n'), noRun: info === 'no-run' });
    }
    i = j;
  }
  return { snippets, problems };
}

/** The documentation whose TypeScript blocks are tested: README.md and every Markdown file under docs/ but the generated API. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith(join('docs', 'api')));
  return ['README.md', ...docs.sort()];
}

/** The fences of every documentation file. */
export function documentationFences(root: string): Fences {
  const all = documentationFiles(root).map((f) => parseFences(f, readFileSync(join(root, f), 'utf8')));
  return { snippets: all.flatMap((f) => f.snippets), problems: all.flatMap((f) => f.problems) };
}
