/**
 * docs/protocol.md is the wire contract the code cites: every `docs/protocol.md §X` in src/ and lua/ names a
 * section that exists, every script in lua/ is named there, and the shared notes outside the repository are
 * no longer cited by the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}
const sources = [...files('src', /\.ts$/).filter((f) => !f.startsWith('src/generated/')), ...files('lua', /\.lua$/)];
const sections = new Set([...doc.matchAll(/^#{2,3} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]));

it('every docs/protocol.md § reference in src/ and lua/ names a section of the document', () => {
  const cited = sources.flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/docs\/protocol\.md §(\d+(?:\.\d+)*)/g)].map((m) => ({ f, section: m[1] as string })));
  expect(cited.length).toBeGreaterThan(10);
  expect(cited.filter((c) => !sections.has(c.section))).toEqual([]);
});

it('src/ and lua/ cite no protocol notes outside the repository', () => {
  expect(sources.filter((f) => /(?<!docs\/protocol\.md|docs\/)PROTOCOL\.md/.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
});

it('every script in lua/ is named in the document', () => {
  const scripts = files('lua', /\.lua$/).map((f) => f.replace(/^lua\//, '').replace(/\.lua$/, ''));
  const missing = scripts.filter((id) => !doc.includes(id) && !new RegExp(`under \`${id.split('/')[0]}/\`[^#]*\`${id.split('/')[1]}\``).test(doc));
  expect(missing).toEqual([]);
});
