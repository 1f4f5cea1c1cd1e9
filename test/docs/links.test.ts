/**
 * Every relative link of README.md, docs/ (the guides, the error codes, the protocol) and the other Markdown
 * files a reader reaches from them (COMPATIBILITY.md, CHANGELOG.md, the packages' and examples' READMEs, …)
 * points to a file that exists, and every `#anchor` to a heading of the file it names (GitHub's slugs): the guides moved out
 * of README, and a link left pointing at the old place would fail here. Pure: reads Markdown files only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { documentationFiles } from './snippets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** GitHub's heading anchor: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences), numbered as GitHub numbers repeats. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(ROOT, file), 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!h) continue;
    const base = slug(h[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

/** Relative links `[text](target)` outside code fences and inline code, with their line. */
function links(file: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  let fenced = false;
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      if (fenced) return;
      for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] as string;
        if (!/^[a-z]+:/i.test(target)) out.push({ line: i + 1, target });
      }
    });
  return out;
}

const inFolders = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(ROOT, dir, e.name, 'README.md')))
    .map((e) => join(dir, e.name, 'README.md'));
const FILES = [
  ...documentationFiles(ROOT),
  ...['COMPATIBILITY.md', 'CHANGELOG.md', 'test/README.md', 'benchmarks/README.md'].filter((f) => existsSync(join(ROOT, f))),
  ...inFolders('packages'),
  ...inFolders('examples'),
];

it('the documentation has guides and links between them', () => {
  expect(FILES.filter((f) => f.startsWith(join('docs', 'guides'))).length).toBeGreaterThanOrEqual(10);
  expect(FILES.flatMap(links).length).toBeGreaterThan(50);
});

it('every relative link of README.md, docs/ and the other Markdown files names an existing file, and every anchor a heading of it', () => {
  const broken: string[] = [];
  for (const file of FILES) {
    for (const { line, target } of links(file)) {
      const [path = '', anchor] = target.split('#');
      const linked = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const where = `${file}:${line}: ${target}`;
      if (relative(ROOT, join(ROOT, linked)).startsWith('..') || !existsSync(join(ROOT, linked))) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && (!linked.endsWith('.md') || statSync(join(ROOT, linked)).isDirectory() || !anchors(linked).has(anchor))) broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

it('GitHub heading anchors are computed as GitHub computes them', () => {
  expect(slug('NestJS (the Spring Boot starter\'s counterpart)')).toBe('nestjs-the-spring-boot-starters-counterpart');
  expect(slug('OpenTelemetry: `redisson-ts-otel`')).toBe('opentelemetry-redisson-ts-otel');
  expect(slug('Holds: `acquire()`, `withLock()`, `await using`')).toBe('holds-acquire-withlock-await-using');
  expect(slug('FencedLock, SpinLock and NonReentrantLock')).toBe('fencedlock-spinlock-and-nonreentrantlock');
});

it('the documents cited by src/ (comments and error messages) exist, with the sections they name', () => {
  const sources = ['src', ...readdirSync(join(ROOT, 'packages')).map((p) => join('packages', p, 'src'))]
    .filter((dir) => existsSync(join(ROOT, dir)))
    .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name)))
    .filter((f) => !f.includes(`${join('src', 'generated')}`));
  const cited: string[] = [];
  const missing: string[] = [];
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    // `README, "Section"` (IllegalMonitorStateError's message names one) and `docs/guides/x.md[, "Section"]`.
    for (const m of text.matchAll(/\b(README|docs\/guides\/[\w-]+\.md)(?:,? "([^"]+)")?/g)) {
      const doc = m[1] === 'README' ? 'README.md' : (m[1] as string);
      const where = `${relative(ROOT, file)}: ${m[0]}`;
      cited.push(where);
      if (!existsSync(join(ROOT, doc))) missing.push(`${where} (no such file)`);
      else if (m[2] !== undefined && !anchors(doc).has(slug(m[2]))) missing.push(`${where} (no such section)`);
    }
  }
  expect(cited.length).toBeGreaterThan(10);
  expect(missing).toEqual([]);
});
