// Environment + `serve` flags + `--env-file` -> one validated, frozen BrokerConfig (docs/configuration.md,
// docs/conventions.md). The platform's engine parses every row of the broker's table in variables.ts; this
// module adds the rules that span variables and builds the config. Nothing downstream re-defaults or
// re-reads the environment.
import { ConfigError } from '../../platform/config/config-error.js'
import {
  listVariables,
  resolveVariables,
  type ConfigInput as EngineInput,
  type VariableListing,
  type VariableScope,
} from '../../platform/config/resolve-variables.js'
import type { HostFacts } from '../../platform/config/variable-table.js'
import type { BrokerConfig } from './broker-config.js'
import { CLI_VARIABLES, VARIABLES, isIgnoredVariable, type VariableName, type VariableValues } from './variables.js'

/** Values given as `serve` flags; they win over every other source. */
export interface ConfigFlags {
  /** `--port` (overrides `PORT`). */
  readonly port?: number
  /** `--host` (overrides `HOST`). */
  readonly host?: string
  /** `--log-level` (overrides `LOG_LEVEL`). */
  readonly logLevel?: string
  /** `--data-dir` (overrides `QUEEN_DATA_DIR`). */
  readonly dataDir?: string
}

/** Input of {@link resolveBrokerConfig}. */
export interface ConfigInput {
  /** The environment (usually `process.env`); only read, never modified. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** `serve` flags. */
  readonly flags?: ConfigFlags
  /** Text of the `--env-file` file (KEY=VALUE lines); it never overrides the environment. */
  readonly envFile?: string
  /** Machine facts for computed defaults (tests pass their own). */
  readonly hostFacts?: HostFacts
}

/** Result of {@link resolveBrokerConfig}: the config plus lines the boot logs (warn and info). */
export interface ResolvedConfig {
  readonly config: BrokerConfig
  /** `config: ...` lines to log at warn level (alias conflicts, typos, risky settings). */
  readonly warnings: readonly string[]
  /** `config: ...` lines to log at info level (ignored C++-engine variables). */
  readonly infos: readonly string[]
}

/** The broker's variables as the engine checks them. */
export const BROKER_VARIABLES: VariableScope = {
  table: VARIABLES,
  otherKnown: CLI_VARIABLES,
  watchedPrefixes: ['QUEEN_', 'PG_', 'DB_', 'JWT_'],
  isIgnored: isIgnoredVariable,
  ignoredLine: (names) => `config: ignored variables ${names.join(',')} (C++ engine tuning; no effect)`,
}

function engineInput(input: ConfigInput): EngineInput {
  const flags = input.flags ?? {}
  return {
    env: input.env,
    envFile: input.envFile,
    hostFacts: input.hostFacts,
    flags: [
      { variable: 'PORT', spelling: '--port', value: flags.port },
      { variable: 'HOST', spelling: '--host', value: flags.host },
      { variable: 'LOG_LEVEL', spelling: '--log-level', value: flags.logLevel },
      { variable: 'QUEEN_DATA_DIR', spelling: '--data-dir', value: flags.dataDir },
    ],
  }
}

type NumericName = { [K in keyof VariableValues]: VariableValues[K] extends number ? K : never }[keyof VariableValues]

/**
 * Rules that involve more than one variable. `parsed` tells which variables have a valid value, so a
 * rule runs as soon as its own inputs are valid and every problem still comes out in one pass.
 */
function crossCheck(
  v: VariableValues,
  parsed: (...names: VariableName[]) => boolean,
  problems: string[],
  warnings: string[],
) {
  const notLarger = (a: NumericName, b: NumericName) => {
    if (parsed(a, b) && v[a] > v[b]) problems.push(`config error: ${a}=${v[a]} is larger than ${b}=${v[b]}`)
  }
  notLarger('DEFAULT_BATCH_SIZE', 'QUEEN_MAX_POP_BATCH')
  notLarger('POP_WAIT_INITIAL_INTERVAL_MS', 'POP_WAIT_MAX_INTERVAL_MS')
  if (parsed('JWT_ENABLED', 'JWT_ALGORITHM', 'JWT_JWKS_URL') && v.JWT_ENABLED) {
    const hasPublic = v.JWT_PUBLIC_KEY !== undefined || v.JWT_JWKS_URL !== undefined
    const needs =
      v.JWT_ALGORITHM === 'HS256'
        ? v.JWT_SECRET === undefined && 'JWT_SECRET'
        : v.JWT_ALGORITHM === 'auto'
          ? v.JWT_SECRET === undefined && !hasPublic && 'JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL'
          : !hasPublic && 'JWT_PUBLIC_KEY or JWT_JWKS_URL'
    if (needs) problems.push(`config error: JWT_ENABLED=true with JWT_ALGORITHM=${v.JWT_ALGORITHM} needs ${needs}`)
  }
  // The claim binds the tenant header to the token (docs/operations.md, "Tenancy"): it needs both.
  if (parsed('JWT_ENABLED', 'QUEEN_TENANCY_HEADER') && v.QUEEN_TENANCY_CLAIM !== undefined) {
    const missing = [
      !v.JWT_ENABLED && 'JWT_ENABLED=true',
      v.QUEEN_TENANCY_HEADER === undefined && 'QUEEN_TENANCY_HEADER',
    ]
    const needs = missing.filter((item) => item !== false)
    if (needs.length > 0) {
      problems.push(`config error: QUEEN_TENANCY_CLAIM=${v.QUEEN_TENANCY_CLAIM} needs ${needs.join(' and ')}`)
    }
  }
  // Warnings the spec asks for at boot (docs/operations.md, "Token verification", "Open mode" and "TLS to PostgreSQL";
  // docs/configuration.md, "Test only"); `env check` shows them too.
  if (parsed('PG_USE_SSL', 'PG_SSL_REJECT_UNAUTHORIZED') && v.PG_USE_SSL && !v.PG_SSL_REJECT_UNAUTHORIZED) {
    warnings.push('config: PG_SSL_REJECT_UNAUTHORIZED=false: TLS to PostgreSQL is encrypted but not verified')
  }
  if (parsed('PG_USE_SSL') && !v.PG_USE_SSL && v.PG_SSL_CA !== undefined) {
    warnings.push('config: PG_SSL_CA is set but PG_USE_SSL is false')
  }
  for (const name of ['JWT_SECRET', 'QUEEN_SYNC_SECRET'] as const) {
    const secret = v[name]
    if (secret !== undefined && Buffer.byteLength(secret) < 32) {
      warnings.push(`config: ${name} is shorter than 32 bytes (openssl rand -hex 32 makes a strong one)`)
    }
  }
  if (
    parsed('QUEEN_SYNC_DEAD_THRESHOLD_MS', 'QUEEN_SYNC_HEARTBEAT_MS') &&
    v.QUEEN_SYNC_DEAD_THRESHOLD_MS <= v.QUEEN_SYNC_HEARTBEAT_MS
  ) {
    warnings.push(
      'config: QUEEN_SYNC_DEAD_THRESHOLD_MS is not above QUEEN_SYNC_HEARTBEAT_MS; live peers will look dead',
    )
  }
  if (v.QUEEN_TEST_HOOKS) warnings.push('config: QUEEN_TEST_HOOKS is on: fault injection enabled (never in production)')
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

/** The PostgreSQL slice of the configuration, from the PG_* and DB_* variables. */
function pgConfig(v: VariableValues): BrokerConfig['pg'] {
  return {
    host: v.PG_HOST,
    port: v.PG_PORT,
    user: v.PG_USER,
    password: v.PG_PASSWORD,
    database: v.PG_DATABASE,
    useSsl: v.PG_USE_SSL,
    sslRejectUnauthorized: v.PG_SSL_REJECT_UNAUTHORIZED,
    sslCa: v.PG_SSL_CA,
    poolSize: v.DB_POOL_SIZE,
    idleTimeoutMs: v.DB_IDLE_TIMEOUT,
    connectionTimeoutMs: v.DB_CONNECTION_TIMEOUT,
    statementTimeoutMs: v.DB_STATEMENT_TIMEOUT,
    lockTimeoutMs: v.DB_LOCK_TIMEOUT,
    keepalivesIdleSeconds: v.DB_KEEPALIVES_IDLE,
  }
}

/**
 * Operator surfaces the default `JWT_SKIP_PATHS` opens to anonymous callers. Their series name every
 * tenant and queue, so where tenancy is on the default leaves them out and they need an admin token,
 * unless `JWT_SKIP_PATHS` lists them (issue 40, docs/security.md).
 */
export const METRICS_PATHS: readonly string[] = ['/metrics', '/metrics/prometheus']

/** `JWT_SKIP_PATHS` as written, or its default, without the metrics paths where tenancy is on. */
function skipPathsOf(v: VariableValues, setByOperator: boolean): string[] {
  const paths = splitList(v.JWT_SKIP_PATHS)
  if (setByOperator || v.QUEEN_TENANCY_HEADER === undefined) return paths
  return paths.filter((path) => !METRICS_PATHS.includes(path))
}

function buildConfig(v: VariableValues, set: ReadonlySet<string>): BrokerConfig {
  return deepFreeze({
    port: v.PORT,
    host: v.HOST,
    serverId: v.QUEEN_SERVER_ID,
    applySchema: v.QUEEN_APPLY_SCHEMA,
    defaultTimeoutMs: v.DEFAULT_TIMEOUT,
    defaultBatchSize: v.DEFAULT_BATCH_SIZE,
    defaultSubscriptionMode: v.DEFAULT_SUBSCRIPTION_MODE,
    maxBodyBytes: v.QUEEN_MAX_BODY_BYTES,
    maxBatchItems: v.QUEEN_MAX_BATCH_ITEMS,
    maxPopBatch: v.QUEEN_MAX_POP_BATCH,
    maxQueuesPerRequest: v.QUEEN_MAX_QUEUES_PER_REQUEST,
    maxPartitionsPerRequest: v.QUEEN_MAX_PARTITIONS_PER_REQUEST,
    shutdownTimeoutMs: v.QUEEN_SHUTDOWN_TIMEOUT_MS,
    dashboard: v.QUEEN_DASHBOARD,
    dataDir: v.QUEEN_DATA_DIR,
    embeddedPgPort: v.QUEEN_EMBEDDED_PG_PORT,
    pg: pgConfig(v),
    popWait: {
      initialIntervalMs: v.POP_WAIT_INITIAL_INTERVAL_MS,
      backoffThreshold: v.POP_WAIT_BACKOFF_THRESHOLD,
      backoffMultiplier: v.POP_WAIT_BACKOFF_MULTIPLIER,
      maxIntervalMs: v.POP_WAIT_MAX_INTERVAL_MS,
    },
    spool: {
      dir: v.FILE_BUFFER_DIR,
      flushMs: v.FILE_BUFFER_FLUSH_MS,
      maxBatch: v.FILE_BUFFER_MAX_BATCH,
      eventsPerFile: v.FILE_BUFFER_EVENTS_PER_FILE,
      maxBytes: v.QUEEN_SPOOL_MAX_BYTES,
    },
    jobs: {
      retentionIntervalMs: v.RETENTION_INTERVAL,
      retentionBatchSize: v.RETENTION_BATCH_SIZE,
      partitionCleanupDays: v.PARTITION_CLEANUP_DAYS,
      metricsRetentionDays: v.METRICS_RETENTION_DAYS,
      statsHistoryRetentionDays: v.STATS_HISTORY_RETENTION_DAYS,
      evictionIntervalMs: v.EVICTION_INTERVAL,
      evictionBatchSize: v.EVICTION_BATCH_SIZE,
      statsIntervalMs: v.STATS_INTERVAL_MS,
      metricsAggregateIntervalSeconds: v.METRICS_AGGREGATE_INTERVAL_S,
      leaseReclaimIntervalMs: v.QUEEN_LEASE_RECLAIM_INTERVAL_MS,
      stateRefreshMs: v.QUEEN_STATE_REFRESH_MS,
    },
    mesh: {
      port: v.QUEEN_MESH_PORT,
      peers: splitList(v.QUEEN_MESH_PEERS),
      secret: v.QUEEN_SYNC_SECRET,
      allowOpen: v.QUEEN_MESH_ALLOW_OPEN,
      enabled: v.QUEEN_SYNC_ENABLED,
      heartbeatMs: v.QUEEN_SYNC_HEARTBEAT_MS,
      deadThresholdMs: v.QUEEN_SYNC_DEAD_THRESHOLD_MS,
    },
    auth: {
      enabled: v.JWT_ENABLED,
      algorithm: v.JWT_ALGORITHM,
      secret: v.JWT_SECRET,
      publicKey: v.JWT_PUBLIC_KEY,
      jwksUrl: v.JWT_JWKS_URL,
      issuer: v.JWT_ISSUER,
      audience: v.JWT_AUDIENCE,
      clockSkewSeconds: v.JWT_CLOCK_SKEW,
      requireExp: v.JWT_REQUIRE_EXP,
      skipPaths: skipPathsOf(v, set.has('JWT_SKIP_PATHS')),
      jwksRefreshIntervalSeconds: v.JWT_JWKS_REFRESH_INTERVAL,
      jwksTimeoutMs: v.JWT_JWKS_TIMEOUT_MS,
      jwksCooldownMs: v.JWT_JWKS_COOLDOWN_MS,
      rolesClaim: v.JWT_ROLES_CLAIM,
      rolesArrayClaim: v.JWT_ROLES_ARRAY_CLAIM,
      roles: { admin: v.JWT_ROLE_ADMIN, readWrite: v.JWT_ROLE_READ_WRITE, readOnly: v.JWT_ROLE_READ_ONLY },
    },
    encryptionKey: v.QUEEN_ENCRYPTION_KEY,
    tenancy: { header: v.QUEEN_TENANCY_HEADER, claim: v.QUEEN_TENANCY_CLAIM },
    log: {
      level: v.LOG_LEVEL,
      json: v.QUEEN_LOG_JSON,
      statsIntervalMs: v.QUEEN_LOG_STATS_INTERVAL_MS,
      metricsMaxQueues: v.QUEEN_METRICS_MAX_QUEUES,
    },
    testHooks: v.QUEEN_TEST_HOOKS,
  })
}

/**
 * Resolves the broker configuration: flags > environment > env file > defaults, strict parsing, every
 * problem at once. Pure: reads only its input. Throws {@link ConfigError} listing every invalid variable.
 */
export function resolveBrokerConfig(input: ConfigInput): ResolvedConfig {
  const { values, failed, set, problems, warnings, infos } = resolveVariables(BROKER_VARIABLES, engineInput(input))
  // Each row was parsed by its own type's rules, so this is the one place the untyped map meets the
  // table-derived type; crossCheck asks `parsed` before reading a variable that may have failed.
  const typed = values as VariableValues
  crossCheck(typed, (...names) => names.every((name) => !failed.has(name)), problems, warnings)
  if (problems.length > 0) throw new ConfigError(problems, warnings)
  return { config: buildConfig(typed, set), warnings, infos }
}

/** Every broker variable with its default, current value and source, for `queenctl env list`. Never throws. */
export function listBrokerVariables(input: ConfigInput): VariableListing[] {
  return listVariables(BROKER_VARIABLES, engineInput(input))
}

/** The variables that say where the broker's PostgreSQL is: what the CLI's database commands read too. */
const DATABASE_SCOPE: VariableScope = {
  table: VARIABLES.filter((spec) => /^(PG_|DB_)/.test(spec.name) || spec.name === 'QUEEN_DATA_DIR'),
  watchedPrefixes: [],
}

/**
 * The broker's PostgreSQL settings alone, parsed by the same rows as the broker's boot (every PG_* and DB_*
 * variable, TLS included), for the CLI's database commands. Throws {@link ConfigError} naming the variable.
 */
export function resolveDatabaseConfig(input: ConfigInput): Pick<BrokerConfig, 'pg' | 'dataDir'> {
  const { values, problems, warnings } = resolveVariables(DATABASE_SCOPE, engineInput(input))
  if (problems.length > 0) throw new ConfigError(problems, warnings)
  const typed = values as VariableValues
  return { pg: pgConfig(typed), dataDir: typed.QUEEN_DATA_DIR }
}
