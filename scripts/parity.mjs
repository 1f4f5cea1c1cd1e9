// The API parity section of COMPATIBILITY.md: Redisson's interface methods, per primitive, against the public
// methods of the redisson-ts classes, with a note (scripts/parity/notes.json) for every gap or renaming.
//
//   node scripts/parity.mjs           rewrite the region between the parity markers   (npm run parity)
//   node scripts/parity.mjs --check   exit 1, one line per problem, when the region is stale, a Redisson
//                                     method is missing without a note, or a note explains nothing
//                                     (npm run parity:check; in CI and test/docs/parity.test.ts)
//   node scripts/parity.mjs --print   print the rendered region
//   --notes <file>, --doc <file>      read another notes file, check or write another document
//
// Offline: Redisson's side is the committed scripts/parity/redisson-<version>.json (refresh it with
// `node scripts/parity/extract-redisson.mjs <tag>` from a Redisson checkout).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare } from './parity/compare.mjs';
import { renderParity } from './parity/render.mjs';
import { publicMethods } from './parity/tsApi.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REDISSON = path.join(ROOT, 'scripts', 'parity', 'redisson-4.7.0.json');

/** `--notes <file>` and `--doc <file>` read other files than the repository's (for test/docs/parity.test.ts). */
function argsOf(argv) {
  const args = { mode: '--write', notes: path.join(ROOT, 'scripts', 'parity', 'notes.json'), doc: path.join(ROOT, 'COMPATIBILITY.md') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--notes' || argv[i] === '--doc') args[argv[i].slice(2)] = path.resolve(argv[++i] ?? '');
    else args.mode = argv[i];
  }
  return args;
}
const START = '<!-- parity:start -->';
const END = '<!-- parity:end -->';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function main() {
  const { mode, notes: notesFile, doc: docFile } = argsOf(process.argv.slice(2));
  const redisson = readJson(REDISSON);
  const notes = readJson(notesFile);
  const result = compare(redisson, publicMethods(ROOT), notes);
  const region = `${START}\n${renderParity(result, redisson, notes)}\n${END}`;
  if (mode === '--print') {
    console.log(region);
    return;
  }
  const doc = readFileSync(docFile, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) {
    console.error(`COMPATIBILITY.md has no ${START} … ${END} region`);
    process.exit(1);
  }
  const current = doc.slice(start, end + END.length);
  if (mode === '--check') {
    const problems = [...result.problems];
    if (current !== region) problems.push('COMPATIBILITY.md: the parity table is stale: run `npm run parity`');
    for (const p of problems) console.log(p);
    process.exit(problems.length > 0 ? 1 : 0);
  }
  if (mode !== '--write') {
    console.error(`unknown option ${mode} (use --check or --print)`);
    process.exit(2);
  }
  writeFileSync(docFile, doc.slice(0, start) + region + doc.slice(end + END.length));
  for (const p of result.problems) console.log(p);
  const counts = result.primitives.map((p) => `${p.primitive} ${p.counts.present}/${p.counts.names}`).join(', ');
  console.log(`COMPATIBILITY.md parity table written (in redisson-ts / Java methods: ${counts})`);
  if (result.problems.length > 0) process.exit(1);
}

main();
