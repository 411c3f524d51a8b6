// The one table of the broker's environment variables (docs/configuration.md, "Variables", docs/conventions.md,
// "Configuration"). Parsing, the frozen BrokerConfig, the effective-config block, `env list` and `env check` all derive
// from it (see resolve.ts); a default is written here and nowhere else.
import path from 'node:path'
import {
  bool,
  dec,
  int,
  oneOf,
  opt,
  str,
  type HostFacts,
  type TableValues,
  type VariableSpec,
} from '../../platform/config/variable-table.js'

// setTimeout and setInterval overflow above 2^31-1 ms and then fire after 1 ms, so a huge interval
// would turn a background cycle into a busy loop; every millisecond setting is capped here.
const MAX_TIMER_MS = 2_147_483_647
// Second-valued settings are converted to milliseconds downstream, so they share the same ceiling.
const MAX_TIMER_S = 2_147_483
const MAX_DAYS = 36_500
const MAX_COUNT = 1_000_000
// A spool record length is an unsigned 32-bit field bounded by QUEEN_MAX_BODY_BYTES + 64 KiB
// (docs/operations.md, "Spool record format"), so the body limit must leave that headroom inside 2^32 - 1.
const MAX_BODY_BYTES = 4_294_967_295 - 65_536

/** Default `QUEEN_DATA_DIR`. As root the embedded PostgreSQL runs as an unprivileged user that cannot enter `/root`. */
export function defaultDataDir(host: HostFacts): string {
  return host.uid === 0 ? '/var/lib/queen/data' : path.join(host.homedir, '.queen', 'data')
}

/** Default `FILE_BUFFER_DIR`: the Linux path of the container image, the OS temp directory elsewhere. */
export function defaultSpoolDir(host: HostFacts): string {
  return host.platform === 'linux' ? '/var/lib/queen/buffers' : path.join(host.tmpdir, 'queen', 'buffers')
}

/** Every broker variable, in the order docs/configuration.md lists them (it is generated from this table). */
export const VARIABLES = [
  // 2.1 Server
  int('PORT', 6632, 0, 65535, 'HTTP port (0 picks a free port)'),
  str('HOST', '0.0.0.0', 'bind address for HTTP and the mesh'),
  str('QUEEN_SERVER_ID', (host) => host.hostname || 'queen', "this replica's name in logs, metrics, mesh, /health", {
    aliases: ['WORKER_ID'],
    defaultText: 'the host name',
  }),
  bool('QUEEN_APPLY_SCHEMA', true, 'apply the schema at boot; 0 skips it'),
  int('DEFAULT_TIMEOUT', 30000, 0, MAX_TIMER_MS, 'default long-poll timeout of pops, ms'),
  int('DEFAULT_BATCH_SIZE', 1, 1, MAX_COUNT, 'default pop batch'),
  oneOf('DEFAULT_SUBSCRIPTION_MODE', ['all', 'new', 'new-only'], 'all', 'default mode of new named groups', {
    defaultText: 'empty (= all)',
  }),
  int('QUEEN_MAX_BODY_BYTES', 33554432, 1, MAX_BODY_BYTES, 'request body limit, bytes (413 above)'),
  int('QUEEN_MAX_BATCH_ITEMS', 10000, 1, MAX_COUNT, 'items per push, ack batch or transaction'),
  int('QUEEN_MAX_POP_BATCH', 10000, 1, MAX_COUNT, 'maximum pop batch'),
  // Ours, not in docs/operations.md (issue 40): what one request may create. Per-tenant quotas are the gateway's.
  int('QUEEN_MAX_QUEUES_PER_REQUEST', 100, 1, MAX_COUNT, 'distinct queues one push, transaction or stream cycle names'),
  int(
    'QUEEN_MAX_PARTITIONS_PER_REQUEST',
    1000,
    1,
    MAX_COUNT,
    'distinct partitions one push, transaction or cycle names',
  ),
  int('QUEEN_SHUTDOWN_TIMEOUT_MS', 30000, 0, MAX_TIMER_MS, 'drain budget after SIGTERM, ms'),
  // Ours (issue 35): the web dashboard is bundled, so there is no directory to point at, only this switch.
  bool('QUEEN_DASHBOARD', true, 'serve the web dashboard at / (false: / and unknown pages answer 404)'),
  // 2.2 Embedded PostgreSQL (used only when PG_HOST is unset)
  str('QUEEN_DATA_DIR', defaultDataDir, 'directory of the embedded PostgreSQL', {
    defaultText: '~/.queen/data (/var/lib/queen/data as root)',
  }),
  int('QUEEN_EMBEDDED_PG_PORT', 0, 0, 65535, 'loopback port of the embedded PostgreSQL; 0 = a free port'),
  // 2.3 PostgreSQL connection
  opt('PG_HOST', 'host of an external PostgreSQL', { defaultText: 'unset (embedded server)' }),
  int('PG_PORT', 5432, 1, 65535, 'PostgreSQL port'),
  str('PG_USER', 'postgres', 'PostgreSQL role'),
  str('PG_PASSWORD', 'postgres', 'PostgreSQL password', { secret: true }),
  str('PG_DATABASE', 'postgres', 'PostgreSQL database', { aliases: ['PG_DB'] }),
  bool('PG_USE_SSL', false, 'connect to PostgreSQL with TLS'),
  bool('PG_SSL_REJECT_UNAUTHORIZED', true, 'with TLS, verify the certificate chain and host name'),
  opt('PG_SSL_CA', 'path to a PEM file of CA certificates', { defaultText: 'unset (system roots)' }),
  int('DB_POOL_SIZE', 20, 1, 1000, 'PostgreSQL connections for requests and batches'),
  int('DB_IDLE_TIMEOUT', 30000, 0, MAX_TIMER_MS, 'idle connection lifetime, ms'),
  // At least 1 ms: 0 means "wait forever" to pg, so a dead database would never be declared
  // unreachable and pushes would hang instead of going to the spool.
  int('DB_CONNECTION_TIMEOUT', 2000, 1, MAX_TIMER_MS, 'connect and pool-acquire timeout, ms'),
  // At least 1 ms: 0 would disable both the server timeout and the client deadline that catches silent drops.
  int('DB_STATEMENT_TIMEOUT', 30000, 1, MAX_TIMER_MS, 'per-statement timeout, ms'),
  int('DB_LOCK_TIMEOUT', 10000, 0, MAX_TIMER_MS, 'lock wait timeout, ms'),
  int('DB_KEEPALIVES_IDLE', 60, 1, MAX_TIMER_S, 'TCP keepalive delay on PostgreSQL sockets, s'),
  // 2.4 Pop waiting
  int('POP_WAIT_INITIAL_INTERVAL_MS', 100, 1, MAX_TIMER_MS, 'first re-check interval of a parked pop, ms'),
  int('POP_WAIT_BACKOFF_THRESHOLD', 3, 0, MAX_COUNT, 'empty re-checks before backing off'),
  dec('POP_WAIT_BACKOFF_MULTIPLIER', 2.0, 1.0, 10.0, 'backoff factor of parked pops'),
  int('POP_WAIT_MAX_INTERVAL_MS', 1000, 1, MAX_TIMER_MS, 'backoff ceiling of parked pops, ms'),
  // 2.5 Spool
  str('FILE_BUFFER_DIR', defaultSpoolDir, 'spool directory', {
    defaultText: '/var/lib/queen/buffers on Linux, <OS temp>/queen/buffers elsewhere',
  }),
  int('FILE_BUFFER_FLUSH_MS', 100, 1, MAX_TIMER_MS, 'spool replay scan interval, ms'),
  int('FILE_BUFFER_MAX_BATCH', 100, 1, MAX_COUNT, 'records per replay transaction'),
  int('FILE_BUFFER_EVENTS_PER_FILE', 10000, 1, 1_000_000_000, 'records per spool segment before rotation'),
  int('QUEEN_SPOOL_MAX_BYTES', 0, 0, Number.MAX_SAFE_INTEGER, 'refuse to spool beyond this size, bytes', {
    defaultText: '0 (disk is the limit)',
  }),
  // 2.6 Background jobs and convergence
  int('RETENTION_INTERVAL', 300000, 1, MAX_TIMER_MS, 'retention cycle, ms'),
  int('RETENTION_BATCH_SIZE', 1000, 1, MAX_COUNT, 'rows per retention delete'),
  int('PARTITION_CLEANUP_DAYS', 30, 0, MAX_DAYS, 'delete empty partitions inactive this long, days'),
  int('METRICS_RETENTION_DAYS', 90, 1, MAX_DAYS, 'keep per-minute metrics and retention history, days'),
  int('STATS_HISTORY_RETENTION_DAYS', 7, 1, MAX_DAYS, 'keep stats history, days'),
  int('EVICTION_INTERVAL', 60000, 1, MAX_TIMER_MS, 'eviction cycle, ms'),
  int('EVICTION_BATCH_SIZE', 1000, 1, MAX_COUNT, 'rows per eviction delete'),
  int('STATS_INTERVAL_MS', 10000, 1, MAX_TIMER_MS, 'stats snapshot refresh, ms (and at least 4x the last refresh)'),
  int('METRICS_AGGREGATE_INTERVAL_S', 60, 1, MAX_TIMER_S, 'per-minute metrics row interval, s'),
  int('QUEEN_LEASE_RECLAIM_INTERVAL_MS', 1000, 1, MAX_TIMER_MS, 'expired-lease reclaim cycle, ms'),
  int('QUEEN_STATE_REFRESH_MS', 5000, 1, MAX_TIMER_MS, 're-read of maintenance flags and queue options, ms', {
    aliases: ['QUEEN_CACHE_REFRESH_INTERVAL_MS'],
  }),
  // 2.7 Mesh
  int('QUEEN_MESH_PORT', 6633, 1, 65535, 'TCP port of the mesh', { aliases: ['QUEEN_UDP_NOTIFY_PORT'] }),
  opt('QUEEN_MESH_PEERS', 'comma-separated host[:port] of every replica', {
    aliases: ['QUEEN_UDP_PEERS'],
    defaultText: 'empty',
  }),
  opt('QUEEN_SYNC_SECRET', 'shared HMAC secret of the mesh', { secret: true, defaultText: 'empty (open mode)' }),
  bool('QUEEN_MESH_ALLOW_OPEN', false, 'allow open mode on non-loopback addresses'),
  bool('QUEEN_SYNC_ENABLED', true, 'false disables the mesh even with peers'),
  int('QUEEN_SYNC_HEARTBEAT_MS', 1000, 1, MAX_TIMER_MS, 'mesh heartbeat period, ms'),
  int('QUEEN_SYNC_DEAD_THRESHOLD_MS', 5000, 1, MAX_TIMER_MS, 'a peer silent this long is reported dead, ms'),
  // 2.8 Authentication (JWT)
  bool('JWT_ENABLED', false, 'JWT authentication master switch'),
  oneOf('JWT_ALGORITHM', ['HS256', 'RS256', 'EdDSA', 'auto'], 'HS256', 'accepted token algorithm'),
  opt('JWT_SECRET', 'HS256 secret', { secret: true }),
  opt('JWT_PUBLIC_KEY', 'PEM public key for RS256/EdDSA', { secret: true }),
  opt('JWT_JWKS_URL', 'JWKS endpoint for RS256/EdDSA', { format: 'http-url' }),
  opt('JWT_ISSUER', 'required iss claim', { defaultText: 'unset (any)' }),
  opt('JWT_AUDIENCE', 'required aud claim', { defaultText: 'unset (any)' }),
  int('JWT_CLOCK_SKEW', 30, 0, MAX_TIMER_S, 'tolerance on exp, nbf, iat, s'),
  bool('JWT_REQUIRE_EXP', false, 'refuse tokens without exp'),
  str('JWT_SKIP_PATHS', '/health,/metrics/prometheus,/metrics,/', 'comma-separated unauthenticated paths', {
    defaultText: '/health,/metrics/prometheus,/metrics,/ (/health,/ with QUEEN_TENANCY_HEADER set)',
  }),
  int('JWT_JWKS_REFRESH_INTERVAL', 3600, 1, MAX_TIMER_S, 'JWKS cache lifetime, s'),
  int('JWT_JWKS_TIMEOUT_MS', 5000, 1, MAX_TIMER_MS, 'JWKS fetch timeout, ms'),
  int('JWT_JWKS_COOLDOWN_MS', 30000, 0, MAX_TIMER_MS, 'minimum time between unknown-kid refetches, ms'),
  str('JWT_ROLES_CLAIM', 'role', 'claim holding one role (string)'),
  str('JWT_ROLES_ARRAY_CLAIM', 'roles', 'claim holding several roles (array of strings)'),
  str('JWT_ROLE_ADMIN', 'admin', 'name of the admin role'),
  str('JWT_ROLE_READ_WRITE', 'read-write', 'name of the read-write role'),
  str('JWT_ROLE_READ_ONLY', 'read-only', 'name of the read-only role'),
  // 2.9 Encryption
  opt('QUEEN_ENCRYPTION_KEY', '64 hexadecimal characters: the AES-256-GCM key', {
    secret: true,
    format: 'aes-256-key',
    defaultText: 'unset (no encryption)',
  }),
  // 2.10 Tenancy
  opt('QUEEN_TENANCY_HEADER', 'request header carrying the tenant', {
    format: 'header-name',
    defaultText: 'unset (single tenant)',
  }),
  opt('QUEEN_TENANCY_CLAIM', 'with JWT on, the token claim that must equal the tenant header'),
  // 2.11 Logs and metrics
  oneOf('LOG_LEVEL', ['trace', 'debug', 'info', 'warn', 'error'], 'info', 'log level'),
  bool('QUEEN_LOG_JSON', false, 'one JSON object per log line instead of text'),
  int('QUEEN_LOG_STATS_INTERVAL_MS', 30000, 0, MAX_TIMER_MS, 'period of the rates and sizes blocks, ms; 0 = off'),
  int('QUEEN_METRICS_MAX_QUEUES', 1000, 0, MAX_COUNT, 'per-queue Prometheus series before folding into _other'),
  // 2.12 Test only
  bool('QUEEN_TEST_HOOKS', false, 'fault-injection hooks for reliability tests; never in production'),
] as const satisfies readonly VariableSpec[]

type TableRow = (typeof VARIABLES)[number]

/** Name of a broker variable. */
export type VariableName = TableRow['name']

/** The parsed value of every variable, typed from the table (a variable without a default may be undefined). */
export type VariableValues = TableValues<typeof VARIABLES>

/** Values allowed for an enum variable, in their canonical spelling. */
export type EnumValue<N extends VariableName> = Extract<TableRow, { name: N; type: 'enum' }>['values'][number]

// 2.13: TYPE = PUSH, POP, ACK, TRANSACTION, RENEW_LEASE, CUSTOM, each with four tuning knobs.
const ENGINE_OPERATION_TYPES = ['PUSH', 'POP', 'ACK', 'TRANSACTION', 'RENEW_LEASE', 'CUSTOM'] as const
const ENGINE_OPERATION_KNOBS = ['PREFERRED_BATCH_SIZE', 'MAX_HOLD_MS', 'MAX_BATCH_SIZE', 'MAX_CONCURRENT'] as const

/**
 * C++-engine tuning variables (docs/configuration.md, "Accepted and ignored"): accepted so existing manifests keep
 * working, and ignored. The `QUEEN_<TYPE>_*` patterns are expanded; `QUEEN_VEGAS_*` is in {@link
 * IGNORED_VARIABLE_PREFIXES}.
 */
export const IGNORED_VARIABLES: readonly string[] = [
  'NUM_WORKERS',
  'WEBAPP_ROOT',
  'SIDECAR_POOL_SIZE',
  'SIDECAR_MICRO_BATCH_WAIT_MS',
  'SIDECAR_MAX_ITEMS_PER_TX',
  'SIDECAR_MAX_BATCH_SIZE',
  'SIDECAR_MAX_PENDING_COUNT',
  'DB_THREAD_POOL_SERVICE_THREADS',
  'RESPONSE_TIMER_INTERVAL_MS',
  'RESPONSE_BATCH_SIZE',
  'RESPONSE_BATCH_MAX',
  'LIBQUEEN_INFLIGHT_DEADLINE_MS',
  'QUEEN_CONCURRENCY_MODE',
  ...ENGINE_OPERATION_TYPES.flatMap((type) => ENGINE_OPERATION_KNOBS.map((knob) => `QUEEN_${type}_${knob}`)),
  'QUEUE_BACKOFF_CLEANUP_THRESHOLD',
  'QUEEN_SYNC_RECV_BUFFER_MB',
  'QUEEN_CACHE_PARTITION_MAX',
  'QUEEN_CACHE_PARTITION_TTL_MS',
  'PARTITION_LOOKUP_RECONCILE_INTERVAL_MS',
  'PARTITION_LOOKUP_RECONCILE_LOOKBACK_SECONDS',
  'STATS_RECONCILE_INTERVAL_MS',
  'METRICS_SAMPLE_INTERVAL_MS',
  'DB_TCP_USER_TIMEOUT_MS',
  'DB_KEEPALIVES_INTERVAL',
  'DB_KEEPALIVES_COUNT',
]

/** Name prefixes of ignored C++-engine variables (`QUEEN_VEGAS_*`). */
export const IGNORED_VARIABLE_PREFIXES: readonly string[] = ['QUEEN_VEGAS_']

const IGNORED_SET = new Set(IGNORED_VARIABLES)

/** Whether `name` is a C++-engine tuning variable the broker accepts and ignores. */
export function isIgnoredVariable(name: string): boolean {
  return IGNORED_SET.has(name) || IGNORED_VARIABLE_PREFIXES.some((prefix) => name.startsWith(prefix))
}

/**
 * Variables read by the other `queenctl` commands, not the broker (docs/configuration.md, "Variables of the other
 * commands", docs/cli.md, "Contexts and credentials"): known, so a broker sharing their environment does not warn about
 * them.
 */
export const CLI_VARIABLES: readonly string[] = [
  'QUEEN_SERVER',
  'QUEEN_TOKEN',
  'QUEEN_CONTEXT',
  'QUEEN_CONFIG',
  'QUEEN_TENANT',
  'QUEEN_PG_URL',
  'NO_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
]
