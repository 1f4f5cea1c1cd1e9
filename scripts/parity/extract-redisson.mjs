// Extracts the method lists of Redisson's Java API interfaces into a small JSON of facts (names and parameter
// types, nothing else) for scripts/parity.mjs, and per primitive the interface methods whose implementation in
// Redisson's class (or the superclass it inherits them from) only throws UnsupportedOperationException. Run it when moving to a new Redisson version; the JSON is committed
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

function show(file, dir = API_DIR) {
  return execFileSync('git', ['-C', REPO, 'show', `${TAG}:${dir}/${file}.java`], { encoding: 'utf8' });
}

const IMPL_DIR = 'redisson/src/main/java/org/redisson';

function stripJava(src) {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/@\w+(\([^)]*\))?/g, '');
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
  let src = stripJava(show(name));
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

/**
 * One implementation class: its superclass and, per public method (name and parameter count), whether its body
 * does nothing but throw UnsupportedOperationException.
 */
function parseClass(name) {
  const src = stripJava(show(name, IMPL_DIR));
  const head = new RegExp(`class\\s+${name}\\b([^{]*)\\{`).exec(src);
  if (!head) throw new Error(`no class ${name} in ${TAG}`);
  const ext = /extends\s+(\w+)/.exec(head[1]);
  const methods = new Map();
  const declRe = /public\s+(?:final\s+)?(?:<[^>]*>\s+)?[\w<>[\],.?\s]+?\s+(\w+)\s*\(([^)]*)\)\s*(?:throws\s+[\w.,\s]+)?\{/g;
  let m;
  while ((m = declRe.exec(src))) {
    let depth = 1;
    let i = declRe.lastIndex;
    while (depth > 0 && i < src.length) {
      if (src[i] === '{') depth++;
      if (src[i] === '}') depth--;
      i++;
    }
    const body = src.slice(declRe.lastIndex, i - 1);
    const key = `${m[1]}/${splitTop(m[2]).length}`;
    if (!methods.has(key)) methods.set(key, /^\s*throw\s+new\s+UnsupportedOperationException\([^)]*\);\s*$/.test(body));
  }
  return { superclass: ext ? ext[1] : null, methods };
}

/** The interface methods (`name(params)`) the primitive's class, or the superclass it inherits them from, refuses. */
function unsupportedOf(javaClass, interfaceMethods) {
  const chain = [];
  for (let c = javaClass; c; ) {
    const parsed = parseClass(c);
    chain.push(parsed);
    c = parsed.superclass && parsed.superclass !== 'Object' ? parsed.superclass : null;
  }
  const refused = new Set();
  for (const { name, params } of interfaceMethods) {
    const key = `${name}/${params.length}`;
    const impl = chain.find((c) => c.methods.has(key));
    if (impl?.methods.get(key)) refused.add(`${name}(${params.join(', ')})`);
  }
  return [...refused].sort();
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
  const primitives = {};
  for (const [name, p] of Object.entries(PRIMITIVES)) {
    const methods = [];
    const collect = (i) => {
      methods.push(...interfaces[i].methods);
      for (const s of interfaces[i].extends) collect(s);
    };
    for (const r of p.roots) collect(r);
    primitives[name] = { ...p, unsupported: unsupportedOf(p.javaClass, methods) };
  }
  const sorted = Object.fromEntries(Object.keys(interfaces).sort().map((k) => [k, interfaces[k]]));
  const version = TAG.replace(/^redisson-/, '');
  const out = {
    redisson: version,
    source: `github.com/redisson/redisson tag ${TAG}, ${API_DIR}/*.java (method names and parameter types only); Lock and ReadWriteLock from java.util.concurrent.locks`,
    primitives,
    interfaces: sorted,
  };
  const file = path.join(HERE, `redisson-${version}.json`);
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), file)}: ${Object.keys(sorted).length} interfaces`);
}

main();
