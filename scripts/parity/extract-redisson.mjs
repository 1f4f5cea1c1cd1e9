// Extracts the method lists of Redisson's Java API interfaces into a small JSON of facts (names and parameter
// types, nothing else) for scripts/parity.mjs. Run it when moving to a new Redisson version; the JSON is committed
// so the parity check needs no Java source.
//
//   node scripts/parity/extract-redisson.mjs [tag]     (default tag: redisson-4.7.0)
//
// Reads the bare mirror at /work/.mirror/redisson+redisson/repo (or $REDISSON_REPO) and writes
// scripts/parity/redisson-<version>.json.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('./', import.meta.url));
const REPO = process.env.REDISSON_REPO ?? '/work/.mirror/redisson+redisson/repo';
const TAG = process.argv[2] ?? 'redisson-4.7.0';
const API_DIR = 'redisson/src/main/java/org/redisson/api';

// The JDK interfaces Redisson's extend (java.util.concurrent.locks), written out by hand: not in the mirror.
const JDK = {
  Lock: {
    package: 'java.util.concurrent.locks',
    extends: [],
    methods: [
      { name: 'lock', params: [] },
      { name: 'lockInterruptibly', params: [] },
      { name: 'tryLock', params: [] },
      { name: 'tryLock', params: ['long', 'TimeUnit'] },
      { name: 'unlock', params: [] },
      { name: 'newCondition', params: [] },
    ],
  },
  ReadWriteLock: {
    package: 'java.util.concurrent.locks',
    extends: [],
    methods: [
      { name: 'readLock', params: [] },
      { name: 'writeLock', params: [] },
    ],
  },
};

// Each primitive: the Redisson class behind it and the interfaces that class implements (its own and, for the
// classes built on RedissonExpirable / RedissonObject, RExpirable / RObject). Super-interfaces are followed.
const PRIMITIVES = {
  RLock: { javaClass: 'RedissonLock', roots: ['RLock', 'RExpirable'] },
  FairLock: { javaClass: 'RedissonFairLock', roots: ['RLock', 'RExpirable'] },
  NonReentrantLock: { javaClass: 'RedissonNonReentrantLock', roots: ['RLock', 'RExpirable'] },
  NonReentrantFairLock: { javaClass: 'RedissonNonReentrantFairLock', roots: ['RLock', 'RExpirable'] },
  SpinLock: { javaClass: 'RedissonSpinLock', roots: ['RLock', 'RExpirable'] },
  FencedLock: { javaClass: 'RedissonFencedLock', roots: ['RFencedLock', 'RExpirable'] },
  ReadWriteLock: { javaClass: 'RedissonReadWriteLock', roots: ['RReadWriteLock', 'RExpirable'] },
  ReadLock: { javaClass: 'RedissonReadLock', roots: ['RLock', 'RExpirable'] },
  WriteLock: { javaClass: 'RedissonWriteLock', roots: ['RLock', 'RExpirable'] },
  MultiLock: { javaClass: 'RedissonMultiLock', roots: ['RLock'] },
  RedLock: { javaClass: 'RedissonRedLock', roots: ['RLock'] },
  FasterMultiLock: { javaClass: 'RedissonFasterMultiLock', roots: ['RLock', 'RExpirable'] },
  Semaphore: { javaClass: 'RedissonSemaphore', roots: ['RSemaphore'] },
  PermitExpirableSemaphore: { javaClass: 'RedissonPermitExpirableSemaphore', roots: ['RPermitExpirableSemaphore'] },
  CountDownLatch: { javaClass: 'RedissonCountDownLatch', roots: ['RCountDownLatch'] },
};

function show(file) {
  return execFileSync('git', ['-C', REPO, 'show', `${TAG}:${API_DIR}/${file}.java`], { encoding: 'utf8' });
}

/** Splits at commas outside `<…>`. */
function splitTop(text) {
  const parts = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '<') depth++;
    if (ch === '>') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** The interface's super-interfaces and abstract methods (name and parameter types). */
function parseInterface(name) {
  let src = show(name)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/@\w+(\([^)]*\))?/g, '');
  const head = new RegExp(`interface\\s+${name}\\b([^{]*)\\{`).exec(src);
  if (!head) throw new Error(`no interface ${name} in ${TAG}`);
  const ext = /extends\s+(.*)$/s.exec(head[1]);
  const supers = ext ? splitTop(ext[1]).map((s) => s.replace(/<.*$/s, '').trim()) : [];
  src = src.slice(head.index + head[0].length);
  // Drop `default` method bodies: only the declarations ending in `;` are the interface's contract.
  const methods = [];
  const declRe = /([\w<>[\],.?\s]+?)\s+(\w+)\s*\(([^)]*)\)\s*(throws\s+[\w.,\s]+)?\s*(;|\{)/g;
  let m;
  while ((m = declRe.exec(src))) {
    const params = splitTop(m[3]).map((p) => p.replace(/\s+\w+$/, '').replace(/\bfinal\s+/, '').replace(/\s+/g, ''));
    methods.push({ name: m[2], params });
    if (m[5] === '{') {
      let depth = 1;
      let i = declRe.lastIndex;
      while (depth > 0 && i < src.length) {
        if (src[i] === '{') depth++;
        if (src[i] === '}') depth--;
        i++;
      }
      declRe.lastIndex = i;
    }
  }
  return { package: 'org.redisson.api', extends: supers, methods };
}

function main() {
  if (!existsSync(REPO)) {
    console.error(`No Redisson mirror at ${REPO} (set REDISSON_REPO); the committed JSON stays as it is.`);
    process.exit(1);
  }
  const interfaces = {};
  const visit = (name) => {
    if (interfaces[name]) return;
    const parsed = JDK[name] ?? parseInterface(name);
    interfaces[name] = parsed;
    for (const s of parsed.extends) visit(s);
  };
  for (const p of Object.values(PRIMITIVES)) for (const r of p.roots) visit(r);
  const sorted = Object.fromEntries(Object.keys(interfaces).sort().map((k) => [k, interfaces[k]]));
  const version = TAG.replace(/^redisson-/, '');
  const out = {
    redisson: version,
    source: `github.com/redisson/redisson tag ${TAG}, ${API_DIR}/*.java (method names and parameter types only); Lock and ReadWriteLock from java.util.concurrent.locks`,
    primitives: PRIMITIVES,
    interfaces: sorted,
  };
  const file = path.join(HERE, `redisson-${version}.json`);
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), file)}: ${Object.keys(sorted).length} interfaces`);
}

main();
