import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

/** `name@version` of an installed package (or of this project for `.`). */
export function packageVersion(name: string): string {
  const file = name === '.' ? new URL('package.json', root) : new URL(`node_modules/${name}/package.json`, root);
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    return `${pkg.name ?? name}@${pkg.version ?? '?'}`;
  } catch {
    return `${name}@(not installed)`;
  }
}
