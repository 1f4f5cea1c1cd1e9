/**
 * `redisson-ts inspect <name>`: who holds a lock, read straight from Redis with the wire layout of
 * PROTOCOL.md §0/§2 (hash `N`, field `<clientUUID>:<threadId>` → hold count, PTTL = lease, channel
 * `redisson_lock__channel:{N}`), and the rest of the family's layouts (./inspectFamily.ts): a FairLock's
 * queue, a FencedLock's token, a ReadWriteLock's mode and read leases, a semaphore's permits, a latch's count.
 */
import type { Redis } from 'ioredis';
import { countDownLatchChannelName, lockChannelName, semaphoreChannelName } from 'redisson-ts';
import { intOption, parse } from './args.js';
import { channelOf, detectPrimitive, INSPECT_KINDS, readFamily, type FamilyInfo, type InspectKind } from './inspectFamily.js';
import { EXIT_OK, UsageError, type CliIo } from './CliError.js';
import { openTarget } from './redisTarget.js';

/** Exit status of `--exit-code` when nothing inspected is held. */
export const EXIT_NOT_HELD = 3;

export const INSPECT_HELP = `Usage: redisson-ts inspect <name> [options]

Shows who holds the Redisson lock <name>: each owner (client UUID and thread id, as Java Redisson and
redisson-ts write them), its hold count, the lock's remaining lease, and its unlock channel with the
number of subscribers (clients waiting for it). The rest of the family is read from the keys beside
<name>: a FairLock's queue with each waiter's deadline, a FencedLock's last token, a ReadWriteLock's
mode, writer and readers with each read hold's lease, a semaphore's available permits (and a
PermitExpirableSemaphore's leased permits with their expiry), a CountDownLatch's count. Control
characters in names and fields are shown escaped (\\x1b, \\n; a backslash as \\\\), so a hostile
name cannot forge lines on the terminal.

<name> may be a Redis glob pattern ('order:*', 'lock:?', 'job:[ab]*'; a backslash makes * ? [ literal,
and a name that is itself an existing key is that key):
every matching key is shown (found with SCAN, at most --limit), each with its own layout; the keys
that belong to another key's report (a FairLock's queue, a lease key, a token) are not listed apart.
A FairLock held with nobody queued is an RLock on the wire (--kind fair shows it as one).

Options:
  --kind KIND      ${INSPECT_KINDS.join(' | ')} (default auto: from the keys present; a bare
                   number is a semaphore or a latch, told apart by the channel its waiters use)
  --redis URL      Redis to read (default: $REDIS_URL, else redis://127.0.0.1:6379)
  --json           print the same as JSON (a pattern: { pattern, truncated, keys: [...] })
  --watch          report again every --interval ms until Ctrl-C (or --count rounds), each round
                   stamped with the time; with --json one JSON object per line
  --interval MS    time between --watch rounds (default 1000)
  --count N        stop --watch after N rounds
  --limit N        most keys a pattern shows (default 100)
  --exit-code      exit 0 when something inspected is held (a lock with an owner, a semaphore without
                   a free permit, a latch not yet open), ${EXIT_NOT_HELD} when nothing is (after the last round)
  -h, --help       show this help`;

/** One owner field of a lock hash. */
export interface LockOwner {
  /** The raw hash field. */
  readonly field: string;
  /** Client UUID (Redisson's `getServiceManager().getId()` / our `client.id`); the whole field when it has no `:`. */
  readonly clientId: string;
  /** Thread id after the last `:`; null when that is not an integer. */
  readonly threadId: number | null;
  /** Hold count (reentrancy); null when the value is not an integer. */
  readonly holdCount: number | null;
}

/** Everything `inspect` reports about one name. */
export interface LockInfo extends FamilyInfo {
  readonly name: string;
  /** Redis type of the key: `hash` for a Redisson lock, `none` when unlocked. */
  readonly type: string;
  readonly owners: readonly LockOwner[];
  /** The value, when the key is a plain string (a SETNX-style lock). */
  readonly value?: string;
  /** PTTL in ms: -1 no expiry, -2 no key. */
  readonly ttlMs: number;
  readonly channel: string;
  readonly subscribers: number;
}

/** Splits an owner field `<clientUUID>:<threadId>` at its last `:` (a UUID has none). */
export function parseOwnerField(field: string, value: string): LockOwner {
  const at = field.lastIndexOf(':');
  const tail = at >= 0 ? field.slice(at + 1) : '';
  const isThread = /^\d+$/.test(tail);
  return {
    field,
    clientId: isThread ? field.slice(0, at) : field,
    threadId: isThread ? Number(tail) : null,
    holdCount: /^-?\d+$/.test(value) ? Number(value) : null,
  };
}

/** Reads `name` (raw name, no NameMapper) from Redis, as `kind` or as its keys say. */
export async function readLockInfo(redis: Redis, name: string, kind: InspectKind = 'auto'): Promise<LockInfo> {
  const type = await redis.type(name);
  const detected = await detectPrimitive(redis, name, type, kind);
  const channel = channelOf(detected.primitive, name, lockChannelName(name));
  const [ttlMs, numsub] = await Promise.all([redis.pttl(name), redis.pubsub('NUMSUB', channel)]);
  const subscribers = Number(numsub[1] ?? 0);
  const fields = type === 'hash' ? await redis.hgetall(name) : {};
  const family = await readFamily(redis, name, detected.primitive, fields);
  const base = { name, type, ttlMs, channel, subscribers, primitive: detected.primitive, ...(detected.ambiguous ? { ambiguous: detected.ambiguous } : {}), ...family };
  if (type === 'hash') {
    const owners = Object.entries(fields).filter(([f]) => !(detected.primitive === 'readWriteLock' && f === 'mode'));
    return { ...base, owners: owners.map(([f, v]) => parseOwnerField(f, v)) };
  }
  if (type === 'string') return { ...base, owners: [], value: (await redis.get(name)) ?? '' };
  return { ...base, owners: [] };
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * `text` safe for a terminal: C0 controls (ESC, BEL, newline, …), DEL and C1 controls become visible escapes
 * (`\x1b`, `\n`), as do line/paragraph separators and bidi overrides (`\u202e`), which could forge or
 * reorder lines; a backslash is doubled so that an escape cannot be forged either. Names and hash fields
 * are written by any Redis client, so they are hostile input here.
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\\\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (c) => {
    const named = NAMED_ESCAPES[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** `text` escaped and in double quotes (a quote inside is escaped too). */
function quote(text: string): string {
  return `"${escapeControl(text).replaceAll('"', '\\"')}"`;
}

/** A duration for people: `950 ms`, `24.9 s`, `4 min 10 s`, `2 h 5 min`, `3 d 4 h`. */
export function humanDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(ms / 1_000);
  if (s < 3_600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

/** Milliseconds exactly, and from a second on the same for people too (`24981 ms (24.9 s)`). */
function msText(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${ms} ms (${humanDuration(ms)})`;
}

/** A PTTL (see {@link msText}); `-1` is a key kept until deleted, whatever primitive it is. */
function ttlText(ttlMs: number): string {
  if (ttlMs === -1) return 'no expiry (the key is kept until someone deletes it)';
  if (ttlMs === -2) return '-';
  return msText(ttlMs);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `…:write` fields are a ReadWriteLock's writer; the owner is the field without that suffix. */
function ownerLine(o: LockOwner, readWrite: boolean, leases?: readonly { ttlMs: number }[]): string {
  const write = readWrite && o.field.endsWith(':write');
  const owner = write ? parseOwnerField(o.field.slice(0, -':write'.length), String(o.holdCount ?? '')) : o;
  const thread = owner.threadId === null ? '(not a <uuid>:<threadId> field)' : `thread ${owner.threadId}`;
  const verb = !readWrite ? 'holds' : write ? 'writes' : 'reads';
  const leaseText = leases && leases.length > 0 ? `  leases ${leases.map((l) => ttlText(l.ttlMs)).join(', ')}` : '';
  return `  owner    client ${escapeControl(owner.clientId)}  ${thread}  ${verb} ${o.holdCount ?? quote(o.field)}${leaseText}`;
}

const KIND_LABEL: Readonly<Record<string, string>> = { fairLock: 'fair lock', fencedLock: 'fenced lock', readWriteLock: 'read-write lock' };

/** The report of the non-RLock primitives; null for an RLock (and anything read as one). */
function formatFamily(info: LockInfo, name: string): string[] | null {
  const lines: string[] = [];
  const ttl = (): void => {
    if (info.type !== 'none') lines.push(`  ttl      ${ttlText(info.ttlMs)}`);
  };
  switch (info.primitive) {
    case 'fairLock':
    case 'fencedLock':
    case 'readWriteLock': {
      const label = KIND_LABEL[info.primitive] as string;
      const readWrite = info.primitive === 'readWriteLock';
      if (info.type === 'hash') {
        const mode = readWrite ? `${info.mode ?? 'unknown'} mode, ` : '';
        lines.push(`${label} '${name}': ${mode}held by ${plural(info.owners.length, 'owner')}`);
        for (const o of info.owners) lines.push(ownerLine(o, readWrite, info.readLeases?.[o.field]));
      } else if (info.type === 'none') {
        lines.push(`${label} '${name}': not locked (no key)`);
      } else {
        return null;
      }
      ttl();
      if (info.primitive === 'fencedLock') lines.push(`  token    ${info.token ?? 0} (the last issued; the next acquisition draws ${(info.token ?? 0) + 1})`);
      if (info.primitive === 'fairLock') {
        const queue = info.queue ?? [];
        lines.push(`  queue    ${queue.length === 0 ? 'empty' : plural(queue.length, 'waiter')}`);
        queue.forEach((w, i) => {
          const o = parseOwnerField(w.field, '');
          const deadline = w.deadlineInMs === null ? 'no deadline entry' : w.deadlineInMs >= 0 ? `deadline in ${msText(w.deadlineInMs)}` : `deadline passed ${msText(-w.deadlineInMs)} ago`;
          lines.push(`    ${i + 1}. client ${escapeControl(o.clientId)}  thread ${o.threadId ?? '?'}  ${deadline}  own channel subscribers ${w.subscribers}`);
        });
      }
      return lines;
    }
    case 'semaphore':
    case 'permitExpirableSemaphore': {
      const leased = info.leasedPermits ?? [];
      const label = info.primitive === 'semaphore' ? 'semaphore' : 'permit-expirable semaphore';
      const extra = info.primitive === 'semaphore' ? '' : `, ${leased.length} leased`;
      lines.push(`${label} '${name}': ${plural(info.permits ?? 0, 'permit')} available${extra}${info.type === 'none' ? ' (no key)' : ''}`);
      for (const p of leased) lines.push(`  permit   ${p.permitId}  ${p.expiresInMs === null ? 'never expires' : p.expiresInMs >= 0 ? `expires in ${msText(p.expiresInMs)}` : `expired ${msText(-p.expiresInMs)} ago (returned at the next acquire)`}`);
      ttl();
      return lines;
    }
    case 'countDownLatch':
      lines.push(`count-down latch '${name}': ${(info.count ?? 0) > 0 ? `count ${info.count}` : 'open (count 0)'}${info.type === 'none' ? ' (no key)' : ''}`);
      ttl();
      return lines;
    default:
      if (info.ambiguous) {
        lines.push(`'${name}' holds the number ${escapeControl(info.value ?? '')}: a semaphore's available permits or a count-down latch's count;`);
        lines.push(`  no waiters on either channel tell which: pass --kind semaphore or --kind latch`);
        ttl();
        // Not a lock: the channels its waiters would use, either kind's.
        lines.push(`  channels ${escapeControl(semaphoreChannelName(info.name))} (semaphore), ${escapeControl(countDownLatchChannelName(info.name))} (latch)`);
        return lines;
      }
      return null;
  }
}

/** The human-readable report; every string read from Redis or argv goes through {@link escapeControl}. */
export function formatLockInfo(info: LockInfo): string {
  const name = escapeControl(info.name);
  const family = formatFamily(info, name);
  if (family) return (info.ambiguous ? family : [...family, `  channel  ${escapeControl(info.channel)}  subscribers ${info.subscribers}`]).join('\n');
  const lines: string[] = [];
  if (info.type === 'none') {
    lines.push(`lock '${name}': not locked (no key)`);
  } else if (info.type === 'hash') {
    lines.push(`lock '${name}': held by ${info.owners.length} owner${info.owners.length === 1 ? '' : 's'}`);
    for (const o of info.owners) {
      const thread = o.threadId === null ? '(not a <uuid>:<threadId> field)' : `thread ${o.threadId}`;
      lines.push(`  owner    client ${escapeControl(o.clientId)}  ${thread}  holds ${o.holdCount ?? quote(o.field)}`);
    }
    lines.push(`  ttl      ${ttlText(info.ttlMs)}`);
  } else if (info.type === 'string') {
    lines.push(`'${name}' is a plain string key, not a Redisson lock: value ${quote(info.value ?? '')}`);
    lines.push(`  ttl      ${ttlText(info.ttlMs)}`);
  } else {
    lines.push(`'${name}' is a ${escapeControl(info.type)} key, not a Redisson lock`);
    lines.push(`  ttl      ${ttlText(info.ttlMs)}`);
  }
  lines.push(`  channel  ${escapeControl(info.channel)}  subscribers ${info.subscribers}`);
  return lines.join('\n');
}

/** Whether `name` is a Redis glob pattern (an unescaped `*`, `?` or `[`): then every matching key is shown. */
export function isKeyPattern(name: string): boolean {
  return /(^|[^\\])[*?[]/.test(name);
}

/**
 * Keys that belong to another key's report (a FairLock's queue and deadlines, a FencedLock's token, a read
 * hold's lease key, a PermitExpirableSemaphore's leases, an unlock latch): a pattern lists their owner only.
 */
export function isCompanionKey(key: string): boolean {
  return (
    /^redisson_lock_(queue|timeout|token):/.test(key) ||
    key.startsWith('redisson_unlock_latch:') ||
    /:rwlock_timeout:\d+$/.test(key) ||
    /\}:timeout$/.test(key)
  );
}

/** The keys matching `pattern` (SCAN, so a large keyspace is not blocked), companions left out, sorted. */
export async function matchingNames(redis: Redis, pattern: string, limit: number): Promise<{ names: string[]; truncated: boolean }> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) if (!isCompanionKey(key)) found.add(key);
  } while (cursor !== '0' && found.size <= limit);
  const names = [...found].sort();
  return { names: names.slice(0, limit), truncated: names.length > limit || cursor !== '0' };
}

/**
 * Whether a waiter would have to wait: a lock with an owner, a semaphore without a free permit, a latch not
 * yet open. `--exit-code` turns it into the exit status.
 */
export function isHeld(info: LockInfo): boolean {
  switch (info.primitive) {
    case 'semaphore':
    case 'permitExpirableSemaphore':
      return (info.permits ?? 0) <= 0;
    case 'countDownLatch':
      return (info.count ?? 0) > 0;
    default:
      return info.type === 'hash' ? info.owners.length > 0 : info.type === 'string';
  }
}

export async function inspectCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse({
    args: [...args],
    options: {
      redis: { type: 'string' },
      kind: { type: 'string' },
      json: { type: 'boolean' },
      watch: { type: 'boolean' },
      interval: { type: 'string' },
      count: { type: 'string' },
      limit: { type: 'string' },
      'exit-code': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout.write(`${INSPECT_HELP}\n`);
    return EXIT_OK;
  }
  const [name, ...extra] = positionals;
  if (name === undefined || name === '') throw new UsageError('inspect: missing lock <name>');
  if (extra.length > 0) throw new UsageError(`inspect: unexpected argument '${escapeControl(extra[0] ?? '')}'`);
  const kind = values.kind ?? 'auto';
  if (!(INSPECT_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`inspect: --kind must be one of ${INSPECT_KINDS.join(', ')}; got '${escapeControl(kind)}'`);
  }
  const intervalMs = intOption(values.interval, 'interval', 1_000, 50, 3_600_000);
  const rounds = values.count === undefined ? (values.watch ? Infinity : 1) : intOption(values.count, 'count', 1, 1, 1_000_000);
  const limit = intOption(values.limit, 'limit', 100, 1, 100_000);
  if (!values.watch && (values.interval !== undefined || values.count !== undefined)) {
    throw new UsageError('inspect: --interval and --count go with --watch');
  }
  const target = await openTarget(values.redis, io, false);
  let stop: (() => void) | null = null;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const unregister = io.onInterrupt(() => stop?.());
  try {
    // A name with glob characters that is itself a key (`lock[1]`) is that key.
    const pattern = isKeyPattern(name) && (await target.redis.exists(name)) === 0;
    let held = false;
    for (let round = 0; round < rounds; round++) {
      if (round > 0) {
        let timer: NodeJS.Timeout | undefined;
        const interrupted = await Promise.race([stopped.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), intervalMs)))]);
        clearTimeout(timer);
        if (interrupted) break;
      }
      const { names, truncated } = pattern ? await matchingNames(target.redis, name, limit) : { names: [name], truncated: false };
      const infos = await Promise.all(names.map((n) => readLockInfo(target.redis, n, kind as InspectKind)));
      held = infos.some(isHeld);
      io.stdout.write(render(infos, { pattern: pattern ? name : null, truncated, json: values.json === true, watch: values.watch === true }));
    }
    return values['exit-code'] && !held ? EXIT_NOT_HELD : EXIT_OK;
  } finally {
    unregister();
    await target.close();
  }
}

/** One round of output: the report (or, for a pattern, one per matching key); in `--watch`, stamped. */
function render(infos: readonly LockInfo[], o: { pattern: string | null; truncated: boolean; json: boolean; watch: boolean }): string {
  if (o.json) {
    const body = o.pattern === null ? infos[0] : { pattern: o.pattern, truncated: o.truncated, keys: infos };
    // In --watch, one JSON object per line (with the time), so a consumer can read the stream line by line.
    return o.watch ? `${JSON.stringify({ at: new Date().toISOString(), ...body })}\n` : `${JSON.stringify(body, null, 2)}\n`;
  }
  const parts: string[] = [];
  if (o.watch) parts.push(`--- ${new Date().toISOString()} ---`);
  if (o.pattern !== null) {
    const shown = escapeControl(o.pattern);
    parts.push(infos.length === 0 ? `no key matches '${shown}'` : `${plural(infos.length, 'key')} ${o.truncated ? 'shown (more match: raise --limit)' : 'match'} '${shown}'`);
  }
  parts.push(...infos.map((info) => formatLockInfo(info)));
  return `${parts.join(o.pattern === null ? '\n' : '\n\n')}\n`;
}
