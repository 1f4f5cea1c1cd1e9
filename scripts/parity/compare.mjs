// Compares Redisson's interface methods, per primitive, with the public methods of the redisson-ts class that
// ports it. Every redisson-ts method returns a Promise, so a Java method `m` and its twin `mAsync` are one row,
// matched by the TypeScript method `m` (or the name a note gives); Java's overloads of a name are one row too.

/** Redisson primitive (a key of the JSON's `primitives`) → the redisson-ts class exported by src/index.ts. */
export const TS_CLASSES = {
  RLock: 'RLock',
  FairLock: 'RedissonFairLock',
  NonReentrantLock: 'RedissonNonReentrantLock',
  NonReentrantFairLock: 'RedissonNonReentrantFairLock',
  SpinLock: 'RedissonSpinLock',
  FencedLock: 'RedissonFencedLock',
  ReadWriteLock: 'RedissonReadWriteLock',
  ReadLock: 'RedissonReadLock',
  WriteLock: 'RedissonWriteLock',
  MultiLock: 'RedissonMultiLock',
  RedLock: 'RedissonRedLock',
  FasterMultiLock: 'RedissonFasterMultiLock',
  Semaphore: 'RSemaphore',
  PermitExpirableSemaphore: 'RPermitExpirableSemaphore',
  CountDownLatch: 'RCountDownLatch',
};

/** Rows are grouped by the interface that declares them, in this order (an `…Async` interface counts as its twin). */
const GROUPS = ['Lock', 'RLock', 'RFencedLock', 'ReadWriteLock', 'RReadWriteLock', 'RSemaphore', 'RPermitExpirableSemaphore', 'RCountDownLatch', 'RExpirable', 'RObject', 'RObservable'];

/** The interfaces every Redisson object has, apart from what the primitive itself is. */
const OBJECT_GROUPS = ['RExpirable', 'RObject', 'RObservable'];

/** Counts `n` Java method names of one row: by outcome, and as the primitive's own or the object methods. */
function tally(counts, status, groups, n) {
  const bucket = { same: 'present', renamed: 'present', extra: 'present' }[status] ?? status;
  counts.names += n;
  counts[bucket] += n;
  const part = [...groups].every((g) => OBJECT_GROUPS.includes(g)) ? counts.object : counts.own;
  part.names += n;
  if (bucket === 'present') part.present += n;
}

const baseName = (name) => (name.endsWith('Async') ? name.slice(0, -'Async'.length) : name);
const groupOf = (iface) => (iface.endsWith('Async') ? iface.slice(0, -'Async'.length) : iface);

/** Every interface method of a primitive, with the interface declaring it, its super-interfaces followed. */
function javaMethods(redisson, primitive) {
  const out = [];
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const iface = redisson.interfaces[name];
    if (!iface) throw new Error(`interface ${name} is not in the Redisson JSON`);
    for (const m of iface.methods) out.push({ ...m, iface: name, sig: `${m.name}(${m.params.join(', ')})` });
    for (const s of iface.extends) visit(s);
  };
  for (const root of redisson.primitives[primitive].roots) visit(root);
  return out;
}

/** A notes.json key names one method or several, comma-separated (`rename, renamenx`): one note for all. */
export const noteNames = (key) => key.split(',').map((n) => n.trim());

/** The note for a primitive's method: its own, else the one for every primitive (`*`). */
function noteFor(notes, primitive, base) {
  for (const scope of [primitive, '*']) {
    const key = Object.keys(notes[scope] ?? {}).find((k) => noteNames(k).includes(base));
    if (key !== undefined) return { key: `${scope}.${key}`, value: notes[scope][key] };
  }
  return null;
}

/**
 * @param {object} redisson the parsed scripts/parity/redisson-<version>.json
 * @param {Map<string, string[]>} tsClasses class name → public method names (./tsApi.mjs)
 * @param {object} notes the parsed scripts/parity/notes.json
 */
export function compare(redisson, tsClasses, notes) {
  const problems = [];
  /** A missing method without a note → the redisson-ts classes it is missing from: one problem line each. */
  const unexplained = new Map();
  const usedNotes = new Set();
  const rows = new Map();
  const primitives = [];
  for (const [primitive, info] of Object.entries(redisson.primitives)) {
    const tsClass = TS_CLASSES[primitive];
    const tsMethods = tsClasses.get(tsClass);
    if (!tsClass || !tsMethods) {
      problems.push(`${primitive}: no redisson-ts class ${tsClass ?? '(none mapped in scripts/parity/compare.mjs)'} exported by src/index.ts`);
      continue;
    }
    const refused = new Set(info.unsupported);
    const byBase = new Map();
    for (const m of javaMethods(redisson, primitive)) {
      const base = baseName(m.name);
      const entry = byBase.get(base) ?? { names: new Set(), sigs: new Set(), groups: new Set() };
      entry.names.add(m.name);
      entry.sigs.add(m.sig);
      entry.groups.add(groupOf(m.iface));
      byBase.set(base, entry);
    }
    const counts = { names: 0, present: 0, refused: 0, explained: 0, missing: 0, own: { names: 0, present: 0 }, object: { names: 0, present: 0 } };
    const matched = new Set();
    for (const [base, entry] of byBase) {
      const row = rows.get(base) ?? { base, names: new Set(), groups: new Set(), cells: {} };
      for (const n of entry.names) row.names.add(n);
      for (const g of entry.groups) row.groups.add(g);
      rows.set(base, row);
      let note = noteFor(notes, primitive, base);
      const renamed = note && typeof note.value === 'object' ? note.value.ts : null;
      const tsName = renamed ?? base;
      const allRefused = [...entry.sigs].every((s) => refused.has(s));
      const n = entry.names.size;
      let cell;
      if (tsMethods.includes(tsName)) {
        matched.add(tsName);
        cell = { status: renamed ? 'renamed' : allRefused ? 'extra' : 'same', ts: tsName };
      } else if (renamed) {
        problems.push(`${primitive}: scripts/parity/notes.json maps ${base} to ${renamed}, which ${tsClass} does not have`);
        cell = { status: 'missing' };
      } else if (allRefused) {
        // Redisson refuses it: no note needed, and a note for every primitive (`*`) is not about this one.
        if (note?.key.startsWith('*.')) note = null;
        cell = { status: 'refused' };
      } else if (note) {
        cell = { status: 'explained' };
      } else {
        const what = [...entry.names].sort((a, b) => a.length - b.length).join(' / ');
        const gap = unexplained.get(what) ?? { groups: new Set(), classes: [] };
        for (const g of entry.groups) gap.groups.add(g);
        gap.classes.push(tsClass);
        unexplained.set(what, gap);
        cell = { status: 'missing' };
      }
      if (note && cell.status !== 'missing' && cell.status !== 'same') {
        cell.note = note.key;
        usedNotes.add(note.key);
      }
      row.cells[primitive] = cell;
      tally(counts, cell.status, entry.groups, n);
    }
    const extras = tsMethods.filter((m) => !matched.has(m) && !byBase.has(m));
    primitives.push({ primitive, javaClass: info.javaClass, tsClass, counts, extras });
  }
  for (const [what, { groups, classes }] of unexplained) {
    problems.push(`${what} (Redisson's ${[...groups].join(', ')}) is missing from ${classes.join(', ')}, and scripts/parity/notes.json has no note for it`);
  }
  for (const [scope, entries] of Object.entries(notes)) {
    if (scope.startsWith('$')) continue;
    for (const key of Object.keys(entries)) {
      if (!usedNotes.has(`${scope}.${key}`)) problems.push(`scripts/parity/notes.json: the note "${scope}" → "${key}" explains no gap or renaming any more: remove it`);
    }
  }
  const groupRank = (g) => (GROUPS.includes(g) ? GROUPS.indexOf(g) : GROUPS.length);
  for (const row of rows.values()) row.groups = new Set([...row.groups].sort((a, b) => groupRank(a) - groupRank(b)));
  const rank = (row) => Math.min(...[...row.groups].map(groupRank));
  const sortedRows = [...rows.values()].sort((a, b) => rank(a) - rank(b) || a.base.localeCompare(b.base));
  return { primitives, rows: sortedRows, problems };
}
