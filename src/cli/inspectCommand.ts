/**
 * `redisson-ts inspect <name>`: who holds a lock, read straight from Redis with the wire layout of
 * PROTOCOL.md §0/§2 (hash `N`, field `<clientUUID>:<threadId>` → hold count, PTTL = lease, channel
 * `redisson_lock__channel:{N}`). Later primitives add their own sections (queue, permits, count).
 */
import type { Redis } from 'ioredis';
import { lockChannelName } from '../keys.js';
import { parse } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './CliError.js';
import { openTarget } from './redisTarget.js';

export const INSPECT_HELP = `Usage: redisson-ts inspect <name> [options]

Shows who holds the Redisson lock <name>: each owner (client UUID and thread id, as Java Redisson and
redisson-ts write them), its hold count, the lock's remaining lease, and its unlock channel with the
number of subscribers (clients waiting for it). Control characters in names and fields are shown
escaped (\\x1b, \\n; a backslash as \\\\), so a hostile name cannot forge lines on the terminal.

Options:
  --redis URL   Redis to read (default: $REDIS_URL, else redis://127.0.0.1:6379)
  --json        print the same as one JSON object
  -h, --help    show this help`;

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
export interface LockInfo {
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

/** Reads the lock `name` (raw name, no NameMapper) from Redis. */
export async function readLockInfo(redis: Redis, name: string): Promise<LockInfo> {
  const channel = lockChannelName(name);
  const type = await redis.type(name);
  const [ttlMs, numsub] = await Promise.all([redis.pttl(name), redis.pubsub('NUMSUB', channel)]);
  const subscribers = Number(numsub[1] ?? 0);
  const base = { name, type, ttlMs, channel, subscribers };
  if (type === 'hash') {
    const fields = await redis.hgetall(name);
    return { ...base, owners: Object.entries(fields).map(([f, v]) => parseOwnerField(f, v)) };
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

function ttlText(ttlMs: number): string {
  if (ttlMs === -1) return 'no expiry (the lock is kept until someone deletes it)';
  if (ttlMs === -2) return '-';
  return `${ttlMs} ms`;
}

/** The human-readable report; every string read from Redis or argv goes through {@link escapeControl}. */
export function formatLockInfo(info: LockInfo): string {
  const lines: string[] = [];
  const name = escapeControl(info.name);
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

export async function inspectCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse({
    args: [...args],
    options: { redis: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout.write(`${INSPECT_HELP}\n`);
    return EXIT_OK;
  }
  const [name, ...extra] = positionals;
  if (name === undefined || name === '') throw new UsageError('inspect: missing lock <name>');
  if (extra.length > 0) throw new UsageError(`inspect: unexpected argument '${escapeControl(extra[0] ?? '')}'`);
  const target = await openTarget(values.redis, io, false);
  try {
    const info = await readLockInfo(target.redis, name);
    io.stdout.write(values.json ? `${JSON.stringify(info, null, 2)}\n` : `${formatLockInfo(info)}\n`);
    return EXIT_OK;
  } finally {
    await target.close();
  }
}
