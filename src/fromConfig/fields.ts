/**
 * Every field of Redisson's `Config`, `BaseConfig`, `SingleServerConfig`, `BaseMasterSlaveServersConfig`,
 * `SentinelServersConfig`, `ClusterServersConfig`, `ReplicatedServersConfig` and `MasterSlaveServersConfig`
 * (Redisson 3.17 to 4.x), and what redisson-ts does
 * with it:
 * - `mapped`: read into the client's options (see fromConfig.ts);
 * - `ignored`: has no meaning here (thread pools, Netty, connection pools). Accepted without a word when
 *   null or Redisson's default, else reported as a warning. `codec` is always accepted silently: the
 *   synchronizers store counters and hash fields that no codec encodes, so any codec is compatible;
 * - `unsupported`: would change what the client does or how it connects (TLS material, credential
 *   resolvers, command mapping, other topologies): a {@link RedissonConfigError}, never silently dropped.
 * A field in none of these tables is not a Redisson field (a typo, a field of another product): an error.
 */

/** How a Redisson field is treated; for `ignored` fields, Redisson's default (a value that is no change). */
export type FieldRule = { readonly kind: 'mapped' } | { readonly kind: 'ignored'; readonly default?: unknown } | { readonly kind: 'unsupported'; readonly why: string };

/** `default` of an ignored field that no value changes anything about. */
export const ANY_VALUE = Symbol('any value');
const jitter = (base: string, max: string): unknown => ({ class: 'org.redisson.config.EqualJitterDelay', baseDelay: base, maxDelay: max });

const mapped: FieldRule = { kind: 'mapped' };
const ignored = (defaultValue?: unknown): FieldRule => (defaultValue === undefined ? { kind: 'ignored' } : { kind: 'ignored', default: defaultValue });
const unsupported = (why: string): FieldRule => ({ kind: 'unsupported', why });

const TLS = unsupported('TLS material is not read from Redisson files; pass ioredis `tls` options to Redisson.create');

/** Fields of `Config` (the top level). */
export const TOP_LEVEL: Readonly<Record<string, FieldRule>> = {
  singleServerConfig: mapped,
  sentinelServersConfig: mapped,
  clusterServersConfig: mapped,
  masterSlaveServersConfig: mapped,
  replicatedServersConfig: mapped,
  password: mapped,
  username: mapped,
  lockWatchdogTimeout: mapped,
  lockWatchdogBatchSize: mapped,
  fairLockWaitTimeout: mapped,
  nameMapper: mapped,
  threads: ignored(16),
  nettyThreads: ignored(32),
  nettyExecutor: ignored(),
  codec: ignored(ANY_VALUE),
  executor: ignored(),
  referenceEnabled: ignored(true),
  transportMode: ignored('NIO'),
  eventLoopGroup: ignored(),
  checkLockSyncedSlaves: mapped,
  slavesSyncTimeout: mapped,
  keepPubSubOrder: ignored(true),
  useScriptCache: ignored(true),
  minCleanUpDelay: ignored(5),
  maxCleanUpDelay: ignored(1800),
  cleanUpKeysAmount: ignored(100),
  connectionListener: ignored(),
  useThreadClassLoader: ignored(true),
  lazyInitialization: ignored(false),
  protocol: ignored('RESP2'),
  reliableTopicWatchdogTimeout: ignored(600_000),
  nettyHook: ignored(),
  addressResolverGroupFactory: ignored(),
  valkeyCapabilities: ignored(),
  tcpKeepAlive: ignored(true),
  tcpKeepAliveCount: ignored(0),
  tcpKeepAliveIdle: ignored(0),
  tcpKeepAliveInterval: ignored(0),
  tcpUserTimeout: ignored(0),
  tcpNoDelay: ignored(true),
  commandMapper: unsupported('a CommandMapper renames Redis commands, which this client does not do'),
  credentialsResolver: unsupported('a CredentialsResolver is Java code; pass `password`/`username`'),
  secretKey: unsupported('encrypted ({aes}) passwords are a Redisson PRO feature'),
  sslVerificationMode: ignored('STRICT'),
  sslProvider: ignored('JDK'),
  sslKeystoreType: TLS,
  sslTruststore: TLS,
  sslTruststorePassword: TLS,
  sslKeystore: TLS,
  sslKeystorePassword: TLS,
  sslProtocols: TLS,
  sslCiphers: TLS,
  sslTrustManagerFactory: TLS,
  sslKeyManagerFactory: TLS,
};

/** Fields of `BaseConfig`, shared by every server section. */
const BASE: Readonly<Record<string, FieldRule>> = {
  connectTimeout: mapped,
  timeout: mapped,
  subscriptionTimeout: mapped,
  retryAttempts: mapped,
  password: mapped,
  username: mapped,
  clientName: mapped,
  nameMapper: mapped,
  idleConnectionTimeout: ignored(10_000),
  // Both set the client's `retryDelay` (Redisson's `setRetryInterval` sets a `ConstantDelay`): the delay before
  // each retry of an unconfirmed write, and the unlock latch's TTL.
  retryInterval: mapped,
  retryDelay: mapped,
  reconnectionDelay: ignored(jitter('PT0.1S', 'PT10S')),
  subscriptionsPerConnection: ignored(5),
  // A PING per connection every interval, a dead socket dropped (off unless the file sets it: see the option).
  pingConnectionInterval: mapped,
  keepAlive: ignored(false),
  tcpKeepAliveCount: ignored(0),
  tcpKeepAliveIdle: ignored(0),
  tcpKeepAliveInterval: ignored(0),
  tcpUserTimeout: ignored(0),
  tcpNoDelay: ignored(true),
  sslEnableEndpointIdentification: ignored(true),
  sslVerificationMode: ignored('STRICT'),
  sslProvider: ignored('JDK'),
  sslKeystoreType: TLS,
  sslTruststore: TLS,
  sslTruststorePassword: TLS,
  sslKeystore: TLS,
  sslKeystorePassword: TLS,
  sslProtocols: TLS,
  sslCiphers: TLS,
  sslTrustManagerFactory: TLS,
  sslKeyManagerFactory: TLS,
  credentialsResolver: unsupported('a CredentialsResolver is Java code; pass `password`/`username`'),
  commandMapper: unsupported('a CommandMapper renames Redis commands, which this client does not do'),
};

/** Fields of `SingleServerConfig`. */
export const SINGLE_SERVER: Readonly<Record<string, FieldRule>> = {
  ...BASE,
  address: mapped,
  database: mapped,
  subscriptionConnectionMinimumIdleSize: ignored(1),
  subscriptionConnectionPoolSize: ignored(50),
  connectionMinimumIdleSize: ignored(24),
  connectionPoolSize: ignored(64),
  dnsMonitoringInterval: ignored(5000),
  dnsMonitoringTimes: ignored(1),
};

/** Fields of `BaseMasterSlaveServersConfig`. */
const MASTER_SLAVE: Readonly<Record<string, FieldRule>> = {
  ...BASE,
  database: mapped,
  slaveConnectionMinimumIdleSize: ignored(24),
  slaveConnectionPoolSize: ignored(64),
  failedSlaveReconnectionInterval: ignored(3000),
  failedSlaveCheckInterval: ignored(180_000),
  failedSlaveNodeDetector: ignored(),
  masterConnectionMinimumIdleSize: ignored(24),
  masterConnectionPoolSize: ignored(64),
  // Lock state is read on the master only, whatever Redisson's readMode says.
  readMode: ignored('SLAVE'),
  fallbackLoadingToMaster: ignored(true),
  subscriptionMode: ignored('MASTER'),
  subscriptionConnectionMinimumIdleSize: ignored(1),
  subscriptionConnectionPoolSize: ignored(50),
  dnsMonitoringInterval: ignored(5000),
  dnsMonitoringTimes: ignored(1),
  loadBalancer: ignored({ class: 'org.redisson.connection.balancer.RoundRobinLoadBalancer' }),
  natMapper: unsupported('a NatMapper is Java code'),
};

/** Fields of `SentinelServersConfig`. */
export const SENTINEL_SERVERS: Readonly<Record<string, FieldRule>> = {
  ...MASTER_SLAVE,
  sentinelAddresses: mapped,
  masterName: mapped,
  sentinelUsername: mapped,
  sentinelPassword: mapped,
  scanInterval: ignored(1000),
  checkSentinelsList: ignored(true),
  checkSlaveStatusWithSyncing: ignored(true),
  sentinelsDiscovery: ignored(true),
};

/** Fields of `ClusterServersConfig`. */
export const CLUSTER_SERVERS: Readonly<Record<string, FieldRule>> = {
  ...MASTER_SLAVE,
  nodeAddresses: mapped,
  scanInterval: ignored(5000),
  checkSlotsCoverage: ignored(true),
  checkMasterLinkStatus: ignored(false),
  shardedSubscriptionMode: mapped,
};

/** Fields of `ReplicatedServersConfig`. */
export const REPLICATED_SERVERS: Readonly<Record<string, FieldRule>> = {
  ...MASTER_SLAVE,
  nodeAddresses: mapped,
  scanInterval: mapped,
  // Node addresses are connected to by name on every (re)connect: a changed IP is picked up without a check.
  monitorIPChanges: ignored(false),
};

/** Fields of `MasterSlaveServersConfig`. */
export const MASTER_SLAVE_SERVERS: Readonly<Record<string, FieldRule>> = {
  ...MASTER_SLAVE,
  masterAddress: mapped,
  slaveAddresses: mapped,
};

/** Redisson's identity mapper (`NameMapper.direct()`), the only NameMapper class that maps by itself. */
export const DEFAULT_NAME_MAPPER_CLASS = 'org.redisson.config.DefaultNameMapper';
/** Where it lived before Redisson moved it (3.x `org.redisson.api.DefaultNameMapper`). */
export const DEFAULT_NAME_MAPPER_CLASSES: readonly string[] = [DEFAULT_NAME_MAPPER_CLASS, 'org.redisson.api.DefaultNameMapper'];
