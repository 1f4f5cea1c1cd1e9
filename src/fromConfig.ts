/**
 * `Redisson.fromConfig`: the client options that a Java Redisson config file (YAML or JSON, Redisson's
 * `Config.fromYAML` / `fromJSON` format) describes, so that a Node service can share one config with the
 * Java services it locks with. Every field is accounted for (see fromConfig/fields.ts): mapped, ignored
 * with a warning when set to something other than Redisson's default, or refused with a
 * {@link RedissonConfigError} listing every unknown or unsupported field at once.
 */
import type { RedisOptions } from './connection/ioredis/types.js';
import type { RedissonOptions } from './config.js';
import { describeValue, requireOptionKeys } from './config.js';
import { InvalidArgumentError, RedissonConfigError } from './errors.js';
import { ANY_VALUE, CLUSTER_SERVERS, DEFAULT_NAME_MAPPER_CLASSES, MASTER_SLAVE_SERVERS, REPLICATED_SERVERS, SENTINEL_SERVERS, SINGLE_SERVER, TOP_LEVEL, type FieldRule } from './fromConfig/fields.js';
import { loadConfig, type RedissonConfigSource } from './fromConfig/load.js';
import type { NameMapper } from './keys.js';
import { ConstantDelay, DecorrelatedJitterDelay, EqualJitterDelay, FullJitterDelay, type DelayStrategy } from './DelayStrategy.js';

export type { RedissonConfigSource } from './fromConfig/load.js';

/** Options of {@link readRedissonConfig} and `Redisson.fromConfig`. */
export interface FromConfigOptions {
  /**
   * NameMappers by Java class name, for a config whose `nameMapper` is a class of your own: the mapper
   * itself, or a function of the fields the config gives it (`!<com.acme.PrefixMapper> {prefix: "app:"}`).
   * Redisson's `DefaultNameMapper` (identity) needs no entry.
   */
  nameMappers?: Readonly<Record<string, NameMapper | ((fields: Readonly<Record<string, unknown>>) => NameMapper)>>;
  /** Where `${VAR}` / `${VAR:-default}` in a file are looked up. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives each warning (an ignored field set to a non-default value). @default process.emitWarning */
  onWarning?: (message: string) => void;
}

/** Keys of {@link FromConfigOptions}. */
const FROM_CONFIG_KEYS = ['nameMappers', 'env', 'onWarning'] as const;

/** One server address of a config, `redis://[user:password@]host:port` (`rediss://`: TLS). */
export interface ServerAddress {
  /** Host name or IP address. */
  readonly host: string;
  /** Port. */
  readonly port: number;
  /** True for a `rediss://` address. */
  readonly tls: boolean;
}

/** What a config file says, read whatever its topology: the options, plus the servers of a sentinel, cluster, replicated or master/slave deployment. */
export type RedissonConfig =
  | {
      /** `singleServerConfig`. */
      readonly mode: 'single';
      /** The client options, `redis` included. */
      readonly options: RedissonOptions;
      /** Fields accepted but without meaning here, one message each. */
      readonly warnings: readonly string[];
    }
  | {
      /** `sentinelServersConfig`. */
      readonly mode: 'sentinel';
      /** Every option but `redis` (which `optionsFromConfig` makes from `sentinel`). */
      readonly options: RedissonOptions;
      /** The Sentinel deployment. */
      readonly sentinel: {
        /** `masterName`. */
        readonly masterName: string;
        /** `sentinelAddresses`. */
        readonly sentinels: readonly ServerAddress[];
        /** `sentinelUsername`, for the Sentinels themselves. */
        readonly sentinelUsername?: string;
        /** `sentinelPassword`, for the Sentinels themselves. */
        readonly sentinelPassword?: string;
        /** Connection options of the master (db, credentials, timeouts). */
        readonly connection: RedisOptions;
      };
      /** Fields accepted but without meaning here, one message each. */
      readonly warnings: readonly string[];
    }
  | {
      /** `clusterServersConfig`. */
      readonly mode: 'cluster';
      /** Every option but `redis` (made from `cluster`). */
      readonly options: RedissonOptions;
      /** The cluster. */
      readonly cluster: {
        /** `nodeAddresses`. */
        readonly nodes: readonly ServerAddress[];
        /** Connection options of every node (credentials, timeouts). */
        readonly connection: RedisOptions;
      };
      /** Fields accepted but without meaning here, one message each. */
      readonly warnings: readonly string[];
    }
  | {
      /** `replicatedServersConfig`. */
      readonly mode: 'replicated';
      /** Every option but `redis` (made from `replicated`). */
      readonly options: RedissonOptions;
      /** The replicated group. */
      readonly replicated: {
        /** `nodeAddresses`. */
        readonly nodes: readonly ServerAddress[];
        /** `scanInterval` (ms), when the file sets it. */
        readonly scanInterval?: number;
        /** Connection options of every node (db, credentials, timeouts). */
        readonly connection: RedisOptions;
      };
      /** Fields accepted but without meaning here, one message each. */
      readonly warnings: readonly string[];
    }
  | {
      /** `masterSlaveServersConfig`. */
      readonly mode: 'masterSlave';
      /** Every option but `redis` (made from `masterSlave`). */
      readonly options: RedissonOptions;
      /** The master and its replicas. */
      readonly masterSlave: {
        /** `masterAddress`. */
        readonly master: ServerAddress;
        /** `slaveAddresses`. */
        readonly slaves: readonly ServerAddress[];
        /** Connection options of the master (db, credentials, timeouts). */
        readonly connection: RedisOptions;
      };
      /** Fields accepted but without meaning here, one message each. */
      readonly warnings: readonly string[];
    };

/** The section of each topology, and its fields. */
const SECTIONS = {
  singleServerConfig: SINGLE_SERVER,
  sentinelServersConfig: SENTINEL_SERVERS,
  clusterServersConfig: CLUSTER_SERVERS,
  replicatedServersConfig: REPLICATED_SERVERS,
  masterSlaveServersConfig: MASTER_SLAVE_SERVERS,
} as const;

type Tree = Readonly<Record<string, unknown>>;
type Problem = { path: string; problem: string };

/**
 * Reads a Redisson config (file path, `file:` URL, or the parsed object) without connecting anywhere.
 * @throws RedissonConfigError listing every unknown field, unsupported field and bad value.
 * @example const { options, warnings } = readRedissonConfig('config/redisson.yaml');
 */
export function readRedissonConfig(source: RedissonConfigSource, options: FromConfigOptions = {}): RedissonConfig {
  requireOptionKeys(options, 'fromConfig options', FROM_CONFIG_KEYS);
  for (const key of ['nameMappers', 'env'] as const) {
    const value: unknown = options[key];
    if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) throw new InvalidArgumentError(`Expected \`${key}\` to be an object, got ${describeValue(value)}`);
  }
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function') throw new InvalidArgumentError(`Expected \`onWarning\` to be a function, got ${describeValue(options.onWarning)}`);
  const { label, tree } = loadConfig(source, options.env ?? process.env);
  const problems: Problem[] = [];
  const warnings: string[] = [];
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) throw new RedissonConfigError(label, [{ path: '(root)', problem: `must be a mapping, got ${describeValue(tree)}` }]);
  const top = tree as Tree;
  check(top, TOP_LEVEL, '', problems, warnings);
  const names = Object.keys(SECTIONS) as (keyof typeof SECTIONS)[];
  const sections = names.filter((k) => top[k] !== undefined && top[k] !== null);
  if (sections.length !== 1) {
    problems.push({ path: sections.join(', ') || '(root)', problem: `must name exactly one of ${names.join(', ')} (got ${sections.length})` });
    throw new RedissonConfigError(label, problems);
  }
  const mode = sections[0] as (typeof sections)[number];
  const server = section(top[mode], mode, problems);
  check(server, SECTIONS[mode], `${mode}.`, problems, warnings);

  const read = reader(problems);
  const client: RedissonOptions = {};
  const set = <K extends keyof RedissonOptions>(key: K, value: RedissonOptions[K] | undefined): void => {
    if (value !== undefined) client[key] = value;
  };
  set('lockWatchdogTimeout', read.int(top, 'lockWatchdogTimeout', ''));
  set('lockWatchdogBatchSize', read.int(top, 'lockWatchdogBatchSize', ''));
  set('fairLockWaitTimeout', read.int(top, 'fairLockWaitTimeout', ''));
  // Top-level in Redisson's Config; they only act where there are replicas (Sentinel, Cluster), as in Java.
  set('checkLockSyncedSlaves', read.bool(top, 'checkLockSyncedSlaves', ''));
  set('slavesSyncTimeout', read.int(top, 'slavesSyncTimeout', ''));
  set('timeout', read.int(server, 'timeout', `${mode}.`));
  set('retryAttempts', read.int(server, 'retryAttempts', `${mode}.`));
  set('subscriptionTimeout', read.int(server, 'subscriptionTimeout', `${mode}.`));
  set('retryDelay', retryDelayOf(server, `${mode}.`, problems));
  set('pingConnectionInterval', read.int(server, 'pingConnectionInterval', `${mode}.`));
  const mapperAt = server['nameMapper'] != null ? `${mode}.nameMapper` : 'nameMapper';
  set('nameMapper', nameMapper(server['nameMapper'] ?? top['nameMapper'], mapperAt, options, problems));

  // Redisson 4 reads credentials at the top level too; a server section's own win.
  const connection: RedisOptions = {};
  const put = <K extends keyof RedisOptions>(key: K, value: RedisOptions[K] | undefined): void => {
    if (value !== undefined) connection[key] = value;
  };
  put('username', read.str(server, 'username', `${mode}.`) ?? read.str(top, 'username', ''));
  put('password', read.str(server, 'password', `${mode}.`) ?? read.str(top, 'password', ''));
  put('db', read.int(server, 'database', `${mode}.`));
  put('connectTimeout', read.int(server, 'connectTimeout', `${mode}.`));
  put('connectionName', read.str(server, 'clientName', `${mode}.`));

  if (mode === 'singleServerConfig') {
    const address = parseAddress(server['address'], `${mode}.address`, problems);
    if (problems.length > 0) throw new RedissonConfigError(label, problems);
    if (address) Object.assign(connection, { host: address.host, port: address.port }, address.tls ? { tls: {} } : {});
    warnings.forEach((w) => (options.onWarning ?? emit)(`${label}: ${w}`));
    return { mode: 'single', options: { ...client, redis: connection }, warnings };
  }
  if (mode === 'masterSlaveServersConfig') {
    const master = parseAddress(server['masterAddress'], `${mode}.masterAddress`, problems);
    const rawSlaves = server['slaveAddresses'] ?? [];
    if (!Array.isArray(rawSlaves)) problems.push({ path: `${mode}.slaveAddresses`, problem: `must be a list of addresses, got ${describeValue(rawSlaves)}` });
    const slaves = (Array.isArray(rawSlaves) ? rawSlaves : []).map((a, i) => parseAddress(a, `${mode}.slaveAddresses[${i}]`, problems)).filter((a): a is ServerAddress => a !== undefined);
    if (problems.length > 0 || master === undefined) throw new RedissonConfigError(label, problems);
    warnings.forEach((w) => (options.onWarning ?? emit)(`${label}: ${w}`));
    return { mode: 'masterSlave', options: client, masterSlave: { master, slaves, connection }, warnings };
  }
  const list = mode === 'sentinelServersConfig' ? 'sentinelAddresses' : 'nodeAddresses';
  const scanInterval = mode === 'replicatedServersConfig' ? read.int(server, 'scanInterval', `${mode}.`) : undefined;
  const raw = server[list];
  if (!Array.isArray(raw) || raw.length === 0) problems.push({ path: `${mode}.${list}`, problem: `must be a non-empty list of addresses, got ${describeValue(raw)}` });
  const nodes = (Array.isArray(raw) ? raw : []).map((a, i) => parseAddress(a, `${mode}.${list}[${i}]`, problems)).filter((a): a is ServerAddress => a !== undefined);
  const masterName = mode === 'sentinelServersConfig' ? read.str(server, 'masterName', `${mode}.`) : undefined;
  if (mode === 'sentinelServersConfig' && masterName === undefined) problems.push({ path: `${mode}.masterName`, problem: 'is required' });
  if (problems.length > 0) throw new RedissonConfigError(label, problems);
  warnings.forEach((w) => (options.onWarning ?? emit)(`${label}: ${w}`));
  if (mode === 'replicatedServersConfig') {
    return { mode: 'replicated', options: client, replicated: { nodes, ...(scanInterval === undefined ? {} : { scanInterval }), connection }, warnings };
  }
  if (mode === 'clusterServersConfig') {
    const sharded = read.str(server, 'shardedSubscriptionMode', `${mode}.`);
    if (sharded !== undefined && sharded !== 'AUTO' && sharded !== 'ON' && sharded !== 'OFF') {
      throw new RedissonConfigError(label, [{ path: `${mode}.shardedSubscriptionMode`, problem: `must be AUTO, ON or OFF, got ${describeValue(sharded)}` }]);
    }
    return { mode: 'cluster', options: { ...client, ...(sharded === undefined ? {} : { shardedSubscriptionMode: sharded }) }, cluster: { nodes, connection }, warnings };
  }
  const sentinelUsername = read.str(server, 'sentinelUsername', `${mode}.`);
  const sentinelPassword = read.str(server, 'sentinelPassword', `${mode}.`);
  return {
    mode: 'sentinel',
    options: client,
    sentinel: {
      masterName: masterName ?? '',
      sentinels: nodes,
      ...(sentinelUsername === undefined ? {} : { sentinelUsername }),
      ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
      connection,
    },
    warnings,
  };
}

/**
 * The options of `Redisson.create` for a config; what `Redisson.fromConfig` uses. A sentinel config becomes
 * ioredis' Sentinel options (`sentinels`, `name` = `masterName`, Sentinel credentials and TLS); a cluster
 * config `{ clusterNodes, clusterOptions }` (the nodes, and each node connection's credentials, database
 * and TLS) with its `shardedSubscriptionMode`; a replicated config `{ replicatedNodes, scanInterval?,
 * redisOptions }`; a master/slave config `{ masterAddress, slaveAddresses, redisOptions }`.
 */
export function optionsFromConfig(source: RedissonConfigSource, options: FromConfigOptions = {}): RedissonOptions {
  const config = readRedissonConfig(source, options);
  if (config.mode === 'sentinel') {
    const { masterName, sentinels, sentinelUsername, sentinelPassword, connection } = config.sentinel;
    const tls = sentinels.some((a) => a.tls);
    const redis: RedisOptions = {
      ...connection,
      sentinels: sentinels.map(({ host, port }) => ({ host, port })),
      name: masterName,
      ...(sentinelUsername === undefined ? {} : { sentinelUsername }),
      ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
      ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: {}, tls: {} } : {}),
    };
    return { ...config.options, redis };
  }
  if (config.mode === 'replicated') {
    const { nodes, scanInterval, connection } = config.replicated;
    return { ...config.options, redis: { replicatedNodes: nodes.map(addressText), ...(scanInterval === undefined ? {} : { scanInterval }), redisOptions: connection } };
  }
  if (config.mode === 'masterSlave') {
    const { master, slaves, connection } = config.masterSlave;
    return { ...config.options, redis: { masterAddress: addressText(master), slaveAddresses: slaves.map(addressText), redisOptions: connection } };
  }
  if (config.mode === 'cluster') {
    const { nodes, connection } = config.cluster;
    const tls = nodes.some((a) => a.tls);
    const redisOptions: RedisOptions = { ...connection, ...(tls ? { tls: {} } : {}) };
    return { ...config.options, redis: { clusterNodes: nodes.map(({ host, port }) => ({ host, port })), clusterOptions: { redisOptions } } };
  }
  return config.options;
}

/** An address as `redis://host:port` again (`rediss://` for TLS; an IPv6 host in brackets). */
function addressText(address: ServerAddress): string {
  return `${address.tls ? 'rediss' : 'redis'}://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

function emit(message: string): void {
  process.emitWarning(message, { code: 'REDISSON_TS_CONFIG_IGNORED' });
}

function section(value: unknown, path: string, problems: Problem[]): Tree {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Tree;
  problems.push({ path, problem: `must be a mapping, got ${describeValue(value)}` });
  return {};
}

/** Sorts each field of `tree` by its rule: unknown and unsupported fields are problems, ignored ones warnings. */
function check(tree: Tree, rules: Readonly<Record<string, FieldRule>>, prefix: string, problems: Problem[], warnings: string[]): void {
  for (const [key, value] of Object.entries(tree)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      const near = nearest(key, Object.keys(rules));
      problems.push({ path: prefix + key, problem: `is not a Redisson config field${near ? ` (did you mean \`${near}\`?)` : ''}` });
    } else if (value === null || value === undefined || rule.kind === 'mapped') continue;
    else if (rule.kind === 'unsupported') problems.push({ path: prefix + key, problem: `is not supported: ${rule.why}` });
    else if (rule.default === undefined || !sameValue(value, rule.default)) warnings.push(`\`${prefix + key}\` has no effect in redisson-ts (set to ${describeValue(typeof value === 'object' ? ((value as Tree)['class'] ?? JSON.stringify(value)) : value)})`);
  }
}

/** Whether `value` is Redisson's default `fallback` (a class given with its fields compares as JSON). */
function sameValue(value: unknown, fallback: unknown): boolean {
  if (fallback === ANY_VALUE || value === fallback) return true;
  if (typeof fallback === 'object') return JSON.stringify(value) === JSON.stringify(fallback);
  // Jackson reads `"5000"` as 5000 and `"true"` as true: a scalar default matches its text too.
  return (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && String(value) === `${fallback as string | number | boolean}`;
}

/** The closest of `names` to `key` (case-insensitive, at most 2 edits), for a did-you-mean. */
function nearest(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const d = distance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] ?? 0;
}

function reader(problems: Problem[]) {
  return {
    int(tree: Tree, key: string, prefix: string): number | undefined {
      const v = tree[key];
      if (v === undefined || v === null) return undefined;
      const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
      if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
      problems.push({ path: prefix + key, problem: `must be an integer, got ${describeValue(v)}` });
      return undefined;
    },
    bool(tree: Tree, key: string, prefix: string): boolean | undefined {
      const v = tree[key];
      if (v === undefined || v === null) return undefined;
      // Jackson, which reads Redisson's files, also takes the strings "true" and "false".
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      problems.push({ path: prefix + key, problem: `must be true or false, got ${describeValue(v)}` });
      return undefined;
    },
    str(tree: Tree, key: string, prefix: string): string | undefined {
      const v = tree[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'string' || typeof v === 'number') return String(v);
      problems.push({ path: prefix + key, problem: `must be a string, got ${describeValue(v)}` });
      return undefined;
    },
  };
}

/** `redis://host:port` / `rediss://host:port` (Redisson requires the scheme). */
function parseAddress(value: unknown, path: string, problems: Problem[]): ServerAddress | undefined {
  if (typeof value !== 'string') {
    problems.push({ path, problem: `must be a redis:// or rediss:// address, got ${describeValue(value)}` });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push({ path, problem: `must be a redis:// or rediss:// address, got ${describeValue(value)}` });
    return undefined;
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    problems.push({ path, problem: `must be a redis:// or rediss:// address with a host, got ${describeValue(value)}` });
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || (url.pathname !== '' && url.pathname !== '/')) {
    problems.push({ path, problem: 'must be `scheme://host:port` only: give credentials and database as `username`, `password`, `database`' });
    return undefined;
  }
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? 6379 : Number(url.port), tls: url.protocol === 'rediss:' };
}

/** Redisson's `DelayStrategy` classes, by the name a config gives them. */
const DELAY_CLASSES = ['EqualJitterDelay', 'FullJitterDelay', 'ConstantDelay', 'DecorrelatedJitterDelay'] as const;

/**
 * A section's `retryDelay` (a DelayStrategy class with its durations) or `retryInterval` (ms: Redisson's
 * `setRetryInterval` makes it a `ConstantDelay`); with both, the later in the file wins, as Redisson's setters
 * run in the file's order. `undefined` when neither is set.
 */
function retryDelayOf(server: Tree, prefix: string, problems: Problem[]): DelayStrategy | undefined {
  const keys = Object.keys(server).filter((k) => (k === 'retryDelay' || k === 'retryInterval') && server[k] !== null && server[k] !== undefined);
  const last = keys[keys.length - 1];
  if (last === undefined) return undefined;
  const path = prefix + last;
  const value = server[last];
  if (last === 'retryInterval') {
    const ms = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof ms === 'number' && Number.isSafeInteger(ms) && ms >= 0) return new ConstantDelay(ms);
    problems.push({ path, problem: `must be a non-negative integer (ms), got ${describeValue(value)}` });
    return undefined;
  }
  const fields = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Tree) : {};
  const cls = typeof fields['class'] === 'string' ? fields['class'] : '';
  const kind = DELAY_CLASSES.find((name) => cls === `org.redisson.config.${name}`);
  if (kind === undefined) {
    problems.push({ path, problem: `must be one of Redisson's DelayStrategy classes (${DELAY_CLASSES.map((c) => `org.redisson.config.${c}`).join(', ')}), got ${describeValue(cls || value)}` });
    return undefined;
  }
  const duration = (key: string, fallback: number): number | undefined => {
    const given = fields[key];
    if (given === undefined || given === null) return fallback;
    const ms = durationMillis(given);
    if (ms === undefined) problems.push({ path: `${path}.${key}`, problem: `must be an ISO-8601 duration such as PT1S or PT0.5S, got ${describeValue(given)}` });
    return ms;
  };
  // An empty mapping takes Redisson's defaults for it: 100 ms (ConstantDelay), else 100 ms to 1 s.
  if (kind === 'ConstantDelay') {
    const delay = duration('delay', 100);
    return delay === undefined ? undefined : new ConstantDelay(delay);
  }
  const empty = Object.keys(fields).length === 1;
  const base = duration('baseDelay', 100);
  const max = duration('maxDelay', 1_000);
  if (!empty && (fields['baseDelay'] == null || fields['maxDelay'] == null)) problems.push({ path, problem: `${kind} needs both baseDelay and maxDelay` });
  if (base === undefined || max === undefined) return undefined;
  return kind === 'EqualJitterDelay' ? new EqualJitterDelay(base, max) : kind === 'FullJitterDelay' ? new FullJitterDelay(base, max) : new DecorrelatedJitterDelay(base, max);
}

/** An ISO-8601 duration (`PT1S`, `PT0.5S`, `PT1M30S`, `P1D`; Java's `Duration.parse`) or a number of seconds, in ms. */
function durationMillis(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1_000) : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(value.trim());
  if (m === null || value.trim().toUpperCase() === 'P' || /T$/i.test(value.trim())) return undefined;
  const [, d, h, min, sec] = m;
  return Math.round(((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(sec ?? 0) * 1_000);
}

/** A config's `nameMapper` (a class, with its fields) as a NameMapper; `undefined` for Redisson's identity. */
function nameMapper(value: unknown, path: string, options: FromConfigOptions, problems: Problem[]): NameMapper | undefined {
  if (value === undefined || value === null) return undefined;
  const fields = typeof value === 'object' && !Array.isArray(value) ? (value as Tree) : {};
  const cls = fields['class'];
  if (typeof cls !== 'string') {
    problems.push({ path, problem: 'must name a Java class (`!<com.acme.Mapper> {}` in YAML, `{"class": "com.acme.Mapper"}` in JSON)' });
    return undefined;
  }
  if (DEFAULT_NAME_MAPPER_CLASSES.includes(cls)) return undefined;
  const given = options.nameMappers && Object.hasOwn(options.nameMappers, cls) ? options.nameMappers[cls] : undefined;
  if (given === undefined) {
    problems.push({ path, problem: `is the class ${cls}, which has no counterpart here: pass one as \`nameMappers: { '${cls}': mapper }\`` });
    return undefined;
  }
  const { class: _, ...own } = fields;
  return typeof given === 'function' ? given(own) : given;
}
