/**
 * The effective-configuration block logged at boot and printed by `serve --print-config` (docs/operations.md, "The
 * effective configuration").
 */
import type { BrokerConfig } from './broker-config.js'
import { encryptionKeyId } from '../../platform/config/key-format.js'
import { redactSecret } from '../../platform/config/resolve-variables.js'
import { isSkipPath } from '../auth/skip-paths.js'
import { METRICS_PATHS } from './resolve.js'

/** Anything the effective-config block shows that the config cannot know. */
export interface EffectiveConfigExtras {
  /** Broker version (package.json). */
  readonly version: string
  /** Node.js version; default `process.version`. */
  readonly nodeVersion?: string
  /** Process id; default `process.pid`. */
  readonly pid?: number
  /**
   * The spool directory actually in use, when known (after the fallback of docs/operations.md, "Spool directory and
   * fallback").
   */
  readonly spool?: { readonly dir: string; readonly fallback: boolean }
}

/** A field value written as is: markers like `<set:14 chars>` must not be quoted like operator text. */
interface Marker {
  readonly marker: string
}
type FieldValue = string | number | boolean | undefined | Marker

const secretMarker = (value: string | undefined): Marker => ({ marker: redactSecret(value) })

// key=value pairs; an operator's text is JSON-quoted when it would break the pairs apart.
function fields(pairs: Record<string, FieldValue>): string {
  return Object.entries(pairs)
    .map(([key, value]) => {
      if (value === undefined) return `${key}=<unset>`
      if (typeof value === 'object') return `${key}=${value.marker}`
      const text = String(value)
      return `${key}=${text === '' || /[\s"=]/.test(text) ? JSON.stringify(text) : text}`
    })
    .join(' ')
}

const line = (area: string, pairs: Record<string, FieldValue>) => `config: ${area.padEnd(9)} ${fields(pairs)}`

/**
 * The `config: spool` line. The block is logged before the spool opens, so the spool part logs this line
 * again with the directory in use when it had to fall back (docs/operations.md, "Spool directory and fallback").
 */
export function spoolConfigLine(spool: BrokerConfig['spool'], inUse?: EffectiveConfigExtras['spool']): string {
  return line('spool', {
    dir: inUse?.dir ?? spool.dir,
    fallback: inUse?.fallback ? 'yes' : 'no',
    max_bytes: spool.maxBytes,
    events_per_file: spool.eventsPerFile,
    flush_ms: spool.flushMs,
    replay_batch: spool.maxBatch,
  })
}

/**
 * Who may read the metrics routes: `public` (JWT off, or `JWT_SKIP_PATHS` lists them), `admin-token`, or
 * each path with its own answer when the list names only one of them.
 */
function metricsAccess(auth: BrokerConfig['auth']): string {
  const access = METRICS_PATHS.map((path) =>
    !auth.enabled || isSkipPath(auth.skipPaths, path, path) ? 'public' : 'admin-token',
  )
  if (access.every((entry) => entry === access[0])) return access[0] ?? 'public'
  return METRICS_PATHS.map((path, index) => `${path}:${access[index]}`).join(',')
}

/** The `config: <area> ...` lines of docs/operations.md, "The effective configuration", secrets redacted. */
export function effectiveConfigLines(config: BrokerConfig, extras: EffectiveConfigExtras): string[] {
  const { pg, spool, mesh, auth } = config
  const where =
    pg.host === undefined
      ? { mode: 'embedded', dir: config.dataDir, port: config.embeddedPgPort === 0 ? 'auto' : config.embeddedPgPort }
      : {
          mode: 'external',
          host: pg.host,
          port: pg.port,
          database: pg.database,
          user: pg.user,
          password: secretMarker(pg.password),
          ssl: !pg.useSsl ? 'off' : pg.sslRejectUnauthorized ? 'verify' : 'no-verify',
          ca: pg.sslCa,
        }
  const key = config.encryptionKey
  return [
    line('server', {
      port: config.port,
      host: config.host,
      server_id: config.serverId,
      version: extras.version,
      node: extras.nodeVersion ?? process.version,
      pid: extras.pid ?? process.pid,
    }),
    line('database', {
      ...where,
      pool: pg.poolSize,
      statement_timeout_ms: pg.statementTimeoutMs,
      lock_timeout_ms: pg.lockTimeoutMs,
      apply_schema: config.applySchema,
    }),
    line('security', {
      encryption_key: secretMarker(key),
      ...(key === undefined ? {} : { key_id: encryptionKeyId(key) }),
      tenancy_header: config.tenancy.header,
      tenancy_claim: config.tenancy.claim,
      test_hooks: config.testHooks ? 'on' : 'off',
      metrics: metricsAccess(auth),
    }),
    spoolConfigLine(spool, extras.spool),
    line('mesh', {
      port: mesh.port,
      peers: mesh.peers.length > 0 ? mesh.peers.join(',') : { marker: '<none>' },
      secret: secretMarker(mesh.secret),
      auth: mesh.secret === undefined ? 'off' : 'hmac',
      allow_open: mesh.allowOpen,
      heartbeat_ms: mesh.heartbeatMs,
    }),
    line('auth', {
      enabled: auth.enabled,
      algorithm: auth.algorithm,
      secret: secretMarker(auth.secret),
      public_key: secretMarker(auth.publicKey),
      jwks_url: auth.jwksUrl,
      issuer: auth.issuer,
      audience: auth.audience,
      clock_skew_s: auth.clockSkewSeconds,
      require_exp: auth.requireExp,
      skip_paths: auth.skipPaths.join(','),
    }),
  ]
}
