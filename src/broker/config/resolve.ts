// Environment + `serve` flags + `--env-file` -> one validated, frozen BrokerConfig (operations.md sections 1
// and 2, style.md 3.6). Everything here derives from the table in variables.ts; nothing downstream
// re-defaults or re-reads the environment.
import { createHash } from 'node:crypto'
import os from 'node:os'
import {
  CLI_VARIABLES,
  VARIABLES,
  isIgnoredVariable,
  type HostFacts,
  type VariableSpec,
  type VariableType,
  type VariableName,
  type VariableValues,
} from './variables.js'

import type { BrokerConfig } from './broker-config.js'

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

/** Where a value came from, highest precedence first. */
export type ConfigSource = 'flag' | 'env' | 'env-file' | 'default'

/** Input of {@link resolveBrokerConfig}. */
export interface ConfigInput {
  /** The environment (usually `process.env`); only read, never modified. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** `serve` flags. */
  readonly flags?: ConfigFlags
  /** Text of the `--env-file` file (KEY=VALUE lines); it never overrides the environment. */
  readonly envFile?: string
  /** Machine facts for computed defaults; {@link currentHostFacts} when omitted (tests pass their own). */
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

/** Every invalid variable at once; `message` lists them one per line. */
export class ConfigError extends Error {
  /** One `config error: ...` line per problem. */
  readonly problems: readonly string[]
  /** Warnings found on the way, so `env check` can show them too. */
  readonly warnings: readonly string[]
  constructor(problems: readonly string[], warnings: readonly string[] = []) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
    this.problems = problems
    this.warnings = warnings
  }
}

/** Facts about this machine for computed defaults. */
export function currentHostFacts(): HostFacts {
  return {
    hostname: os.hostname(),
    homedir: os.homedir(),
    uid: process.getuid?.() ?? -1,
    platform: process.platform,
    tmpdir: os.tmpdir(),
  }
}

const TABLE: readonly VariableSpec[] = VARIABLES
const FLAG_NAMES = { port: 'PORT', host: 'HOST', logLevel: 'LOG_LEVEL', dataDir: 'QUEEN_DATA_DIR' } as const
const FLAG_SPELLING: Record<keyof ConfigFlags, string> = {
  port: '--port',
  host: '--host',
  logLevel: '--log-level',
  dataDir: '--data-dir',
}

/** Parse `--env-file` text: `KEY=VALUE` lines, `#` comments, optional `export `, optional quotes. */
export function parseEnvFile(text: string): { entries: ReadonlyMap<string, string>; problems: string[] } {
  const entries = new Map<string, string>()
  const problems: string[] = []
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#')) return
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line)
    // The line itself is never echoed: it may hold a secret.
    if (!match) return void problems.push(`config error: env file line ${index + 1} is not KEY=VALUE`)
    let value = (match[2] ?? '').trim()
    const quote = value[0]
    if (value.length >= 2 && (quote === '"' || quote === "'") && value.endsWith(quote)) value = value.slice(1, -1)
    entries.set(match[1] ?? '', value)
  })
  return { entries, problems }
}

/** A value found for a variable: its text, its source and the name it was set under (alias or flag). */
interface Found {
  readonly raw: string
  readonly source: Exclude<ConfigSource, 'default'>
  readonly setAs: string
}

/** Finds each variable's value by precedence, applying "empty means unset" and the alias rule. */
function makeLookup(input: ConfigInput, envFile: ReadonlyMap<string, string>, warnings: string[]) {
  const flagValues = new Map<string, Found>()
  for (const key of Object.keys(FLAG_NAMES) as (keyof ConfigFlags)[]) {
    const value = input.flags?.[key]
    if (value !== undefined && value !== '') {
      flagValues.set(FLAG_NAMES[key], { raw: String(value), source: 'flag', setAs: FLAG_SPELLING[key] })
    }
  }
  const layers = [
    { source: 'env' as const, get: (name: string) => input.env[name] },
    { source: 'env-file' as const, get: (name: string) => envFile.get(name) },
  ]
  return (spec: VariableSpec): Found | undefined => {
    const flag = flagValues.get(spec.name)
    if (flag) return flag
    // Layer by layer, so an alias in the environment still beats the canonical name in the env file.
    for (const { source, get } of layers) {
      const set = [spec.name, ...(spec.aliases ?? [])].flatMap((name) => {
        const raw = get(name)
        return raw === undefined || raw === '' ? [] : [{ raw, source, setAs: name }]
      })
      const [first] = set
      if (!first) continue
      const conflicting = set.find((other) => other.raw !== first.raw)
      if (first.setAs === spec.name && conflicting) {
        warnings.push(
          `config: ${conflicting.setAs} and ${spec.name} are both set to different values; using ${spec.name}`,
        )
      }
      return first
    }
    return undefined
  }
}

function charCount(text: string): number {
  return Array.from(text).length
}

/** Why `value` is not a usable `QUEEN_ENCRYPTION_KEY`, without ever quoting it; undefined when it is fine. */
export function encryptionKeyProblem(value: string, name = 'QUEEN_ENCRYPTION_KEY'): string | undefined {
  const expected = 'expected 64 hexadecimal characters'
  const hint = /[\r\n]$/.test(value)
    ? 'a trailing newline?'
    : /\s$/.test(value)
      ? 'a trailing space?'
      : /^\s/.test(value)
        ? 'a leading space?'
        : /^0x/i.test(value)
          ? 'remove the 0x prefix'
          : undefined
  const length = charCount(value)
  if (length !== 64) {
    return `${name} has ${length} characters; ${expected} (${hint ?? 'openssl rand -hex 32 makes one'})`
  }
  const position = value.search(/[^0-9a-fA-F]/)
  if (position >= 0) {
    return `${name} has a non-hexadecimal character at position ${position + 1}; ${expected} (${hint ?? '0-9, a-f'})`
  }
  return undefined
}

/** Key id shown in the boot log and stored with ciphertext: first 16 hex characters of SHA-256 of the key bytes. */
export function encryptionKeyId(keyHex: string): string {
  return createHash('sha256').update(Buffer.from(keyHex, 'hex')).digest('hex').slice(0, 16)
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Kubernetes "service links" put <SERVICE>_PORT=tcp://ip:port into every pod of the namespace; a
// Service named `pg` then collides with PG_PORT. Say so instead of a bare "not an integer".
const SERVICE_LINK_VALUE = /^(tcp|udp|sctp):\/\//

function rangeText(spec: { type: VariableType; min: number; max: number }): string {
  const show = (n: number) => (spec.type === 'decimal' && Number.isInteger(n) ? n.toFixed(1) : String(n))
  return `(${show(spec.min)}-${show(spec.max)})`
}

/** Parses one raw value by the table's rules; a problem string when it is invalid. */
function parseValue(spec: VariableSpec, found: Found): { value: unknown } | { problem: string } {
  const { raw } = found
  const where = found.source === 'env-file' ? ' (from the env file)' : ''
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw
  const bad = (what: string) => ({
    problem: `config error: ${spec.secret ? found.setAs : `${found.setAs}=${JSON.stringify(shown)}`} ${what}${where}`,
  })
  switch (spec.type) {
    case 'boolean':
      if (/^(true|1)$/i.test(raw)) return { value: true }
      if (/^(false|0)$/i.test(raw)) return { value: false }
      return bad('is not a boolean (use true, false, 1 or 0)')
    case 'integer':
    case 'decimal': {
      const pattern = spec.type === 'integer' ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/
      if (!pattern.test(raw)) {
        const hint = SERVICE_LINK_VALUE.test(raw) ? ' (a Kubernetes service link? set enableServiceLinks: false)' : ''
        return bad(`is not ${spec.type === 'integer' ? 'an integer' : 'a decimal number'}${hint}`)
      }
      const value = Number(raw)
      if ((raw.startsWith('-') && spec.min >= 0) || value < spec.min || value > spec.max) {
        return bad(`is out of range ${rangeText(spec)}`)
      }
      return { value }
    }
    case 'enum': {
      const value = spec.values.find((allowed) => allowed.toLowerCase() === raw.toLowerCase())
      return value === undefined ? bad(`is not one of ${spec.values.join(', ')}`) : { value }
    }
    case 'string':
      switch (spec.format) {
        case 'aes-256-key': {
          const problem = encryptionKeyProblem(raw, found.setAs)
          return problem === undefined ? { value: raw } : { problem: `config error: ${problem}${where}` }
        }
        case 'header-name':
          return HEADER_NAME.test(raw) ? { value: raw } : bad('is not a valid HTTP header name')
        case 'http-url':
          return URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol)
            ? { value: raw }
            : bad('is not an http:// or https:// URL')
        case undefined:
          return { value: raw }
      }
  }
}

function defaultValue(spec: VariableSpec, host: HostFacts): string | number | boolean | undefined {
  if (spec.type !== 'string') return spec.default
  return typeof spec.default === 'function' ? spec.default(host) : spec.default
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

const KNOWN = new Set([...TABLE.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])]), ...CLI_VARIABLES])
const WATCHED_PREFIXES = ['QUEEN_', 'PG_', 'DB_', 'JWT_']
const SERVICE_LINK_NAME = /_SERVICE_HOST$|_SERVICE_PORT(_[A-Z0-9_]+)?$|_PORT_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?$/

/** Typo warnings and the ignored-variables info line, over every name set in the environment or env file. */
function scanNames(input: ConfigInput, envFile: ReadonlyMap<string, string>, warnings: string[], infos: string[]) {
  const present = new Map<string, string>([...envFile])
  for (const [name, value] of Object.entries(input.env)) if (value !== undefined) present.set(name, value)
  const ignored: string[] = []
  for (const [name, value] of [...present].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (value === '' || KNOWN.has(name)) continue
    if (isIgnoredVariable(name)) ignored.push(name)
    else if (!WATCHED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue
    else if (SERVICE_LINK_NAME.test(name) || (name.endsWith('_PORT') && SERVICE_LINK_VALUE.test(value))) continue
    else {
      const scored = [...KNOWN].map((known) => ({ name: known, distance: levenshtein(name, known) }))
      const best = scored.reduce((a, b) => (b.distance < a.distance ? b : a))
      // A far-off "suggestion" misleads more than none.
      const near = best.distance <= Math.max(2, Math.floor(name.length / 3))
      warnings.push(`config: unknown variable ${name}${near ? ` (did you mean ${best.name}?)` : ''}`)
    }
  }
  if (ignored.length > 0) infos.push(`config: ignored variables ${ignored.join(',')} (C++ engine tuning; no effect)`)
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
  // The claim binds the tenant header to the token (operations.md 14.1): it needs both.
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
  // Warnings the spec asks for at boot (operations.md 9.1, 11.6, 13.4, 2.12); `env check` shows them too.
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

function buildConfig(v: VariableValues, set: ReadonlySet<VariableName>): BrokerConfig {
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
    dataDir: v.QUEEN_DATA_DIR,
    embeddedPgPort: v.QUEEN_EMBEDDED_PG_PORT,
    pg: {
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
    },
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
  const warnings: string[] = []
  const infos: string[] = []
  const file = parseEnvFile(input.envFile ?? '')
  const problems = [...file.problems]
  const host = input.hostFacts ?? currentHostFacts()
  const lookup = makeLookup(input, file.entries, warnings)
  const values: Record<string, unknown> = {}
  const failed = new Set<string>()
  const set = new Set<VariableName>()
  for (const spec of TABLE) {
    const found = lookup(spec)
    if (found) set.add(spec.name as VariableName)
    const parsed = found ? parseValue(spec, found) : { value: defaultValue(spec, host) }
    if ('problem' in parsed) {
      problems.push(parsed.problem)
      failed.add(spec.name)
    } else values[spec.name] = parsed.value
  }
  scanNames(input, file.entries, warnings, infos)
  // Each row was parsed by its own type's rules above, so this is the one place the untyped map meets
  // the table-derived type; crossCheck asks `parsed` before reading a variable that may have failed.
  const typed = values as VariableValues
  crossCheck(typed, (...names) => names.every((name) => !failed.has(name)), problems, warnings)
  if (problems.length > 0) throw new ConfigError(problems, warnings)
  return { config: buildConfig(typed, set), warnings, infos }
}

/** `<set:N chars>` or `<unset>`: how a secret is ever shown. */
export function redactSecret(value: string | undefined): string {
  return value === undefined ? '<unset>' : `<set:${charCount(value)} chars>`
}

/** One row of `queenctl env list`. */
export interface VariableListing {
  /** Canonical name. */
  readonly name: string
  /** Accepted older names. */
  readonly aliases: readonly string[]
  /** Value type. */
  readonly type: VariableType
  /** One-line meaning. */
  readonly description: string
  /** Whether the value is redacted. */
  readonly secret: boolean
  /** The default as documented (`30000`, `the host name`, `unset`). */
  readonly default: string
  /** The value in effect as text (secrets as `<set:N chars>`); undefined when unset. Not validated. */
  readonly value: string | undefined
  /** Where the value came from. */
  readonly source: ConfigSource
  /** The name or flag it was read from, when not the canonical name (`PG_DB`, `--port`). */
  readonly setAs?: string
}

/** Every variable with its default, current value and source, for `queenctl env list`. Never throws. */
export function listVariables(input: ConfigInput): VariableListing[] {
  const host = input.hostFacts ?? currentHostFacts()
  const lookup = makeLookup(input, parseEnvFile(input.envFile ?? '').entries, [])
  return TABLE.map((spec) => {
    const found = lookup(spec)
    const fallback = defaultValue(spec, host)
    const text = found?.raw ?? (fallback === undefined ? undefined : String(fallback))
    return {
      name: spec.name,
      aliases: spec.aliases ?? [],
      type: spec.type,
      description: spec.description,
      secret: spec.secret === true,
      default: spec.defaultText ?? (spec.default === undefined ? 'unset' : String(fallback)),
      value: spec.secret && text !== undefined ? redactSecret(text) : text,
      source: found?.source ?? 'default',
      ...(found && found.setAs !== spec.name ? { setAs: found.setAs } : {}),
    }
  })
}
