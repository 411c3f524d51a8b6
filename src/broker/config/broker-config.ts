/**
 * The broker's configuration as the rest of the broker sees it: one validated, deeply frozen BrokerConfig
 * (docs/configuration.md, "How configuration is read" and "Variables"). Parts take the slice they need
 * (`Pick<BrokerConfig, ...>`); every default lives in the variable table (variables.ts), never downstream.
 */
import type { EnumValue } from './variables.js'

/** Log level names accepted by `LOG_LEVEL` and `--log-level`. */
export type LogLevel = EnumValue<'LOG_LEVEL'>
/** `JWT_ALGORITHM` values. */
export type JwtAlgorithm = EnumValue<'JWT_ALGORITHM'>
/** `DEFAULT_SUBSCRIPTION_MODE` values (`new-only` means the same as `new`). */
export type SubscriptionMode = EnumValue<'DEFAULT_SUBSCRIPTION_MODE'>

/** PostgreSQL connection settings (docs/configuration.md, "PostgreSQL connection"). */
export interface PgConfig {
  /** External server host (`PG_HOST`); unset means the embedded server. */
  readonly host?: string
  /** Port (`PG_PORT`); default 5432. */
  readonly port: number
  /** Role (`PG_USER`); default `postgres`. */
  readonly user: string
  /** Password (`PG_PASSWORD`, secret); default `postgres`. */
  readonly password: string
  /** Database (`PG_DATABASE`, alias `PG_DB`); default `postgres`. */
  readonly database: string
  /** Connect with TLS (`PG_USE_SSL`); default false. */
  readonly useSsl: boolean
  /** With TLS, verify chain and host name (`PG_SSL_REJECT_UNAUTHORIZED`); default true. */
  readonly sslRejectUnauthorized: boolean
  /** Path of a PEM file of CA certificates (`PG_SSL_CA`); unset means system roots. Not read here. */
  readonly sslCa?: string
  /** Pool connections (`DB_POOL_SIZE`); default 20. */
  readonly poolSize: number
  /** Idle connection lifetime, ms (`DB_IDLE_TIMEOUT`); default 30000. */
  readonly idleTimeoutMs: number
  /** Connect and pool-acquire timeout, ms (`DB_CONNECTION_TIMEOUT`); default 2000. */
  readonly connectionTimeoutMs: number
  /** Server-side statement timeout, ms (`DB_STATEMENT_TIMEOUT`); default 30000. */
  readonly statementTimeoutMs: number
  /** Lock wait timeout, ms (`DB_LOCK_TIMEOUT`); default 10000. */
  readonly lockTimeoutMs: number
  /** TCP keepalive delay, s (`DB_KEEPALIVES_IDLE`); default 60. */
  readonly keepalivesIdleSeconds: number
}

/** Re-check schedule of parked pops (docs/configuration.md, "Pop waiting"). */
export interface PopWaitConfig {
  /** First re-check interval, ms (`POP_WAIT_INITIAL_INTERVAL_MS`); default 100. */
  readonly initialIntervalMs: number
  /** Empty re-checks before backing off (`POP_WAIT_BACKOFF_THRESHOLD`); default 3. */
  readonly backoffThreshold: number
  /** Backoff factor (`POP_WAIT_BACKOFF_MULTIPLIER`); default 2.0, range 1.0-10.0. */
  readonly backoffMultiplier: number
  /** Backoff ceiling, ms (`POP_WAIT_MAX_INTERVAL_MS`); default 1000. */
  readonly maxIntervalMs: number
}

/** Disk spool (docs/configuration.md, "Spool"; docs/operations.md, "The disk spool"). */
export interface SpoolConfig {
  /** Directory (`FILE_BUFFER_DIR`); default `/var/lib/queen/buffers` on Linux, `<tmp>/queen/buffers` elsewhere. */
  readonly dir: string
  /** Replay scan interval, ms; an idle segment is sealed after twice this (`FILE_BUFFER_FLUSH_MS`); default 100. */
  readonly flushMs: number
  /** Records per replay transaction (`FILE_BUFFER_MAX_BATCH`); default 100. */
  readonly maxBatch: number
  /** Records per segment before rotation (`FILE_BUFFER_EVENTS_PER_FILE`); default 10000. */
  readonly eventsPerFile: number
  /** Total size limit, bytes; 0 = the disk is the limit (`QUEEN_SPOOL_MAX_BYTES`); default 0. */
  readonly maxBytes: number
}

/** Background jobs and convergence (docs/configuration.md, "Background jobs and convergence"). */
export interface JobsConfig {
  /** Retention cycle, ms (`RETENTION_INTERVAL`); default 300000. */
  readonly retentionIntervalMs: number
  /** Rows per retention delete (`RETENTION_BATCH_SIZE`); default 1000. */
  readonly retentionBatchSize: number
  /** Delete empty partitions inactive this long, days (`PARTITION_CLEANUP_DAYS`); default 30. */
  readonly partitionCleanupDays: number
  /** Keep per-minute metrics and retention history, days (`METRICS_RETENTION_DAYS`); default 90. */
  readonly metricsRetentionDays: number
  /** Keep stats history, days (`STATS_HISTORY_RETENTION_DAYS`); default 7. */
  readonly statsHistoryRetentionDays: number
  /** Eviction cycle, ms (`EVICTION_INTERVAL`); default 60000. */
  readonly evictionIntervalMs: number
  /** Rows per eviction delete (`EVICTION_BATCH_SIZE`); default 1000. */
  readonly evictionBatchSize: number
  /** Stats snapshot refresh, ms (`STATS_INTERVAL_MS`); default 10000. */
  readonly statsIntervalMs: number
  /** Per-minute metrics row interval, s (`METRICS_AGGREGATE_INTERVAL_S`); default 60. */
  readonly metricsAggregateIntervalSeconds: number
  /** Expired-lease reclaim cycle, ms (`QUEEN_LEASE_RECLAIM_INTERVAL_MS`); default 1000. */
  readonly leaseReclaimIntervalMs: number
  /** Re-read of maintenance flags and queue options, ms (`QUEEN_STATE_REFRESH_MS`); default 5000. */
  readonly stateRefreshMs: number
}

/** The mesh between replicas (docs/configuration.md, "Mesh"; docs/operations.md, "The mesh"). */
export interface MeshConfig {
  /** TCP port, bound only with peers (`QUEEN_MESH_PORT`, alias `QUEEN_UDP_NOTIFY_PORT`); default 6633. */
  readonly port: number
  /** `host[:port]` entries as written, trimmed, empty ones dropped (`QUEEN_MESH_PEERS`); parsed by the mesh. */
  readonly peers: readonly string[]
  /** Shared HMAC secret (`QUEEN_SYNC_SECRET`, secret); unset = open mode. */
  readonly secret?: string
  /** Allow open mode on non-loopback addresses (`QUEEN_MESH_ALLOW_OPEN`); default false. */
  readonly allowOpen: boolean
  /** False disables the mesh even with peers (`QUEEN_SYNC_ENABLED`); default true. */
  readonly enabled: boolean
  /** Heartbeat period, ms (`QUEEN_SYNC_HEARTBEAT_MS`); default 1000. */
  readonly heartbeatMs: number
  /** A peer silent this long is reported dead, ms (`QUEEN_SYNC_DEAD_THRESHOLD_MS`); default 5000. */
  readonly deadThresholdMs: number
}

/** JWT authentication (docs/configuration.md, "Authentication (JWT)"; docs/operations.md, "Authentication"). */
export interface AuthConfig {
  /** Master switch (`JWT_ENABLED`); default false. */
  readonly enabled: boolean
  /** Accepted algorithm (`JWT_ALGORITHM`); default `HS256`. */
  readonly algorithm: JwtAlgorithm
  /** HS256 secret (`JWT_SECRET`, secret). */
  readonly secret?: string
  /** PEM public key for RS256/EdDSA (`JWT_PUBLIC_KEY`, secret); not parsed here. */
  readonly publicKey?: string
  /** JWKS endpoint (`JWT_JWKS_URL`); an http(s) URL. */
  readonly jwksUrl?: string
  /** Required `iss` (`JWT_ISSUER`); unset = any. */
  readonly issuer?: string
  /** Required `aud` (`JWT_AUDIENCE`); unset = any. */
  readonly audience?: string
  /** Tolerance on `exp`, `nbf`, `iat`, s (`JWT_CLOCK_SKEW`); default 30. */
  readonly clockSkewSeconds: number
  /** Refuse tokens without `exp` (`JWT_REQUIRE_EXP`); default false. */
  readonly requireExp: boolean
  /**
   * Unauthenticated paths (`JWT_SKIP_PATHS`, comma-separated); default `/health,/metrics/prometheus,/metrics,/`,
   * or `/health,/` with tenancy on (the metrics name every tenant: they then need an admin token).
   */
  readonly skipPaths: readonly string[]
  /** JWKS cache lifetime, s (`JWT_JWKS_REFRESH_INTERVAL`); default 3600. */
  readonly jwksRefreshIntervalSeconds: number
  /** JWKS fetch timeout, ms (`JWT_JWKS_TIMEOUT_MS`); default 5000. */
  readonly jwksTimeoutMs: number
  /** Minimum time between unknown-`kid` refetches, ms (`JWT_JWKS_COOLDOWN_MS`); default 30000. */
  readonly jwksCooldownMs: number
  /** Claim holding one role (`JWT_ROLES_CLAIM`); default `role`. */
  readonly rolesClaim: string
  /** Claim holding an array of roles (`JWT_ROLES_ARRAY_CLAIM`); default `roles`. */
  readonly rolesArrayClaim: string
  /** Role names (`JWT_ROLE_ADMIN`, `JWT_ROLE_READ_WRITE`, `JWT_ROLE_READ_ONLY`); defaults `admin`, `read-write`, `read-only`. */
  readonly roles: { readonly admin: string; readonly readWrite: string; readonly readOnly: string }
}

/** Multi-tenancy (docs/configuration.md, "Tenancy"; docs/operations.md, "Tenancy"). */
export interface TenancyConfig {
  /** Tenant header name as written (`QUEEN_TENANCY_HEADER`; Node lowercases incoming names); unset = single tenant. */
  readonly header?: string
  /** With JWT on, the claim that must equal the header (`QUEEN_TENANCY_CLAIM`). */
  readonly claim?: string
}

/** Logs and metrics (docs/configuration.md, "Logs and metrics"). */
export interface LogConfig {
  /** Level (`LOG_LEVEL`, `--log-level`); default `info`. */
  readonly level: LogLevel
  /** One JSON object per line (`QUEEN_LOG_JSON`); default false. */
  readonly json: boolean
  /** Period of the `rates`/`sizes` blocks, ms; 0 = off (`QUEEN_LOG_STATS_INTERVAL_MS`); default 30000. */
  readonly statsIntervalMs: number
  /** Per-queue Prometheus series before folding into `_other` (`QUEEN_METRICS_MAX_QUEUES`); default 1000. */
  readonly metricsMaxQueues: number
}

/** The broker's validated, deeply frozen configuration. */
export interface BrokerConfig {
  /** HTTP port (`PORT`, `--port`); default 6632. */
  readonly port: number
  /** Bind address for HTTP and the mesh (`HOST`, `--host`); default `0.0.0.0`. */
  readonly host: string
  /** This replica's name (`QUEEN_SERVER_ID`, alias `WORKER_ID`); default the host name. */
  readonly serverId: string
  /** Apply the schema at boot (`QUEEN_APPLY_SCHEMA`); default true. */
  readonly applySchema: boolean
  /** Default long-poll timeout of pops, ms (`DEFAULT_TIMEOUT`); default 30000. */
  readonly defaultTimeoutMs: number
  /** Default pop batch (`DEFAULT_BATCH_SIZE`); default 1, at most `maxPopBatch`. */
  readonly defaultBatchSize: number
  /** Default mode of new named groups (`DEFAULT_SUBSCRIPTION_MODE`); default `all`. */
  readonly defaultSubscriptionMode: SubscriptionMode
  /** Request body limit, bytes (`QUEEN_MAX_BODY_BYTES`); default 33554432 (32 MiB). */
  readonly maxBodyBytes: number
  /** Items per push, acks per ack batch, items per transaction (`QUEEN_MAX_BATCH_ITEMS`); default 10000. */
  readonly maxBatchItems: number
  /** Maximum pop batch (`QUEEN_MAX_POP_BATCH`); default 10000. */
  readonly maxPopBatch: number
  /** Distinct queues one push, transaction or stream cycle may name, and so create (`QUEEN_MAX_QUEUES_PER_REQUEST`); default 100. */
  readonly maxQueuesPerRequest: number
  /** Distinct partitions (queue, partition) one push, transaction or stream cycle may name (`QUEEN_MAX_PARTITIONS_PER_REQUEST`); default 1000. */
  readonly maxPartitionsPerRequest: number
  /** Drain budget after SIGTERM, ms (`QUEEN_SHUTDOWN_TIMEOUT_MS`); default 30000. */
  readonly shutdownTimeoutMs: number
  /** Serve the web dashboard at `/`, `/assets/*` and the SPA fallback (`QUEEN_DASHBOARD`); default true. */
  readonly dashboard: boolean
  /** Embedded PostgreSQL directory (`QUEEN_DATA_DIR`, `--data-dir`); default `~/.queen/data`, `/var/lib/queen/data` as root. */
  readonly dataDir: string
  /** Embedded PostgreSQL loopback port; 0 = a free port at each start (`QUEEN_EMBEDDED_PG_PORT`); default 0. */
  readonly embeddedPgPort: number
  /** PostgreSQL connection. */
  readonly pg: PgConfig
  /** Parked-pop re-check schedule. */
  readonly popWait: PopWaitConfig
  /** Disk spool. */
  readonly spool: SpoolConfig
  /** Background jobs. */
  readonly jobs: JobsConfig
  /** Mesh between replicas. */
  readonly mesh: MeshConfig
  /** JWT authentication. */
  readonly auth: AuthConfig
  /** AES-256-GCM key, 64 hexadecimal characters as given (`QUEEN_ENCRYPTION_KEY`, secret); unset = no encryption. */
  readonly encryptionKey?: string
  /** Multi-tenancy. */
  readonly tenancy: TenancyConfig
  /** Logs and metrics. */
  readonly log: LogConfig
  /** Fault-injection hooks of the reliability tests (`QUEEN_TEST_HOOKS`); default false. */
  readonly testHooks: boolean
}
