// Environment + `proxy serve` flags -> one validated, frozen GatewayConfig (docs/gateway.md, "Configuration"). The
// platform's engine parses every row of variables.ts; this module adds the rules that span variables.
import { ConfigError } from '../../platform/config/config-error.js'
import {
  listVariables,
  resolveVariables,
  type ConfigInput as EngineInput,
  type VariableListing,
  type VariableScope,
} from '../../platform/config/resolve-variables.js'
import type { HostFacts } from '../../platform/config/variable-table.js'
import type { GatewayConfig } from './gateway-config.js'
import { GATEWAY_VARIABLES, type GatewayVariableValues } from './variables.js'

/** Input of {@link resolveGatewayConfig}. */
export interface GatewayConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly flags?: { readonly port?: number; readonly host?: string; readonly upstreams?: string }
  readonly envFile?: string
  readonly hostFacts?: HostFacts
}

/** The gateway's variables as the engine checks them. */
export const GATEWAY_SCOPE: VariableScope = { table: GATEWAY_VARIABLES, watchedPrefixes: ['PROXY_'] }

/** At most this many brokers behind one gateway (docs/gateway.md). */
export const MAX_UPSTREAMS = 3

function engineInput(input: GatewayConfigInput): EngineInput {
  const flags = input.flags ?? {}
  return {
    env: input.env,
    envFile: input.envFile,
    hostFacts: input.hostFacts,
    flags: [
      { variable: 'PROXY_PORT', spelling: '--port', value: flags.port },
      { variable: 'PROXY_HOST', spelling: '--host', value: flags.host },
      { variable: 'PROXY_UPSTREAMS', spelling: '--upstreams', value: flags.upstreams },
    ],
  }
}

/** `PROXY_UPSTREAMS` as base URLs, or the problems naming the variable. */
export function parseUpstreams(text: string): { urls: string[]; problems: string[] } {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  const problems: string[] = []
  const urls: string[] = []
  for (const item of items) {
    let url: URL | undefined
    try {
      url = new URL(item)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
      problems.push(`config error: PROXY_UPSTREAMS: ${JSON.stringify(item)} is not an http(s) base URL`)
      continue
    }
    urls.push(url.href.replace(/\/+$/, ''))
  }
  if (items.length === 0) problems.push('config error: PROXY_UPSTREAMS is empty; name one to three broker URLs')
  if (items.length > MAX_UPSTREAMS) {
    problems.push(`config error: PROXY_UPSTREAMS names ${items.length} brokers; at most ${MAX_UPSTREAMS}`)
  }
  if (new Set(urls).size !== urls.length) problems.push('config error: PROXY_UPSTREAMS names a broker twice')
  return { urls, problems }
}

/** `PROXY_AUTH_REDIRECT_ALLOWLIST` as lower-cased hosts. */
export function parseAllowlist(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '')
}

/** An http(s) URL, or undefined. */
function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/** The OpenID Connect variables go together; the issuer is https except on loopback (a local test provider). */
function oidcProblems(v: GatewayVariableValues): string[] {
  const issuer = v.PROXY_OIDC_ISSUER
  const others = ['PROXY_OIDC_CLIENT_ID', 'PROXY_OIDC_CLIENT_SECRET', 'PROXY_OIDC_REDIRECT_URL'] as const
  if (issuer === undefined) {
    return others.filter((name) => v[name] !== undefined).map((name) => `config error: ${name} needs PROXY_OIDC_ISSUER`)
  }
  const problems: string[] = []
  const url = httpUrl(issuer)
  if (!url || (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))) {
    problems.push(
      `config error: PROXY_OIDC_ISSUER: ${JSON.stringify(issuer)} must be an https URL (http only on loopback)`,
    )
  }
  if (v.PROXY_OIDC_CLIENT_ID === undefined) problems.push('config error: PROXY_OIDC_ISSUER needs PROXY_OIDC_CLIENT_ID')
  const redirect = v.PROXY_OIDC_REDIRECT_URL
  if (redirect === undefined) problems.push('config error: PROXY_OIDC_ISSUER needs PROXY_OIDC_REDIRECT_URL')
  else if (!httpUrl(redirect)) {
    problems.push(`config error: PROXY_OIDC_REDIRECT_URL: ${JSON.stringify(redirect)} is not an http(s) URL`)
  }
  if (!v.PROXY_OIDC_SCOPES.split(' ').includes('openid')) {
    problems.push('config error: PROXY_OIDC_SCOPES must include openid')
  }
  return problems
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

function buildConfig(v: GatewayVariableValues, upstreams: string[]): GatewayConfig {
  const secret = v.PROXY_UPSTREAM_JWT_SECRET
  return deepFreeze({
    port: v.PROXY_PORT,
    host: v.PROXY_HOST,
    tls:
      v.PROXY_TLS_CERT === undefined || v.PROXY_TLS_KEY === undefined
        ? undefined
        : { certFile: v.PROXY_TLS_CERT, keyFile: v.PROXY_TLS_KEY },
    maxBodyBytes: v.PROXY_MAX_BODY_BYTES,
    shutdownTimeoutMs: v.PROXY_SHUTDOWN_TIMEOUT_MS,
    logLevel: v.PROXY_LOG_LEVEL,
    logJson: v.PROXY_LOG_JSON,
    upstreams,
    tenancyHeader: v.PROXY_TENANCY_HEADER,
    healthIntervalMs: v.PROXY_HEALTH_INTERVAL_MS,
    upstreamConnections: v.PROXY_UPSTREAM_CONNECTIONS,
    upstreamTimeoutMs: v.PROXY_UPSTREAM_TIMEOUT_MS,
    upstreamJwt:
      secret === undefined
        ? undefined
        : {
            secret,
            rolesClaim: v.PROXY_UPSTREAM_JWT_ROLES_CLAIM,
            tenantClaim: v.PROXY_UPSTREAM_JWT_TENANT_CLAIM,
            issuer: v.PROXY_UPSTREAM_JWT_ISSUER,
            audience: v.PROXY_UPSTREAM_JWT_AUDIENCE,
          },
    dataDir: v.PROXY_DATA_DIR,
    embeddedPgPort: v.PROXY_EMBEDDED_PG_PORT,
    pg: {
      host: v.PROXY_PG_HOST,
      port: v.PROXY_PG_PORT,
      user: v.PROXY_PG_USER,
      password: v.PROXY_PG_PASSWORD,
      database: v.PROXY_PG_DATABASE,
      useSsl: v.PROXY_PG_USE_SSL,
      sslRejectUnauthorized: v.PROXY_PG_SSL_REJECT_UNAUTHORIZED,
      sslCa: v.PROXY_PG_SSL_CA,
      poolSize: v.PROXY_DB_POOL_SIZE,
      connectionTimeoutMs: v.PROXY_DB_CONNECTION_TIMEOUT,
      statementTimeoutMs: v.PROXY_DB_STATEMENT_TIMEOUT,
    },
    lastUsedFlushMs: v.PROXY_LAST_USED_FLUSH_MS,
    meteringFlushMs: v.PROXY_METERING_FLUSH_MS,
    metricsToken: v.PROXY_METRICS_TOKEN,
    limits: {
      refreshMs: v.PROXY_LIMITS_REFRESH_MS,
      burstMs: v.PROXY_RATE_LIMIT_BURST_MS,
      viewTtlMs: v.PROXY_QUOTA_VIEW_TTL_MS,
    },
    people: {
      sessionTtlS: v.PROXY_SESSION_TTL_S,
      cookieDomain: v.PROXY_SESSION_COOKIE_DOMAIN,
      loginUrl: v.PROXY_AUTH_LOGIN_URL,
      redirectAllowlist: parseAllowlist(v.PROXY_AUTH_REDIRECT_ALLOWLIST),
      oidc:
        v.PROXY_OIDC_ISSUER === undefined
          ? undefined
          : {
              issuer: v.PROXY_OIDC_ISSUER,
              clientId: v.PROXY_OIDC_CLIENT_ID ?? '',
              clientSecret: v.PROXY_OIDC_CLIENT_SECRET,
              redirectUrl: v.PROXY_OIDC_REDIRECT_URL ?? '',
              scopes: v.PROXY_OIDC_SCOPES,
              userClaim: v.PROXY_OIDC_USER_CLAIM,
            },
    },
  })
}

/** Resolves the gateway's configuration; throws one ConfigError listing every problem. */
export function resolveGatewayConfig(input: GatewayConfigInput): { config: GatewayConfig; warnings: string[] } {
  const resolved = resolveVariables(GATEWAY_SCOPE, engineInput(input))
  const problems = [...resolved.problems]
  const v = resolved.values as GatewayVariableValues
  let upstreams: string[] = []
  if (!resolved.failed.has('PROXY_UPSTREAMS')) {
    const parsed = parseUpstreams(v.PROXY_UPSTREAMS)
    upstreams = parsed.urls
    problems.push(...parsed.problems)
  }
  const warnings = [...resolved.warnings]
  const secret = v.PROXY_UPSTREAM_JWT_SECRET
  if (secret !== undefined && Buffer.byteLength(secret) < 32) {
    warnings.push(
      'config: PROXY_UPSTREAM_JWT_SECRET is shorter than 32 bytes (openssl rand -hex 32 makes a strong one)',
    )
  }
  if (v.PROXY_UPSTREAM_JWT_TENANT_CLAIM !== undefined && secret === undefined) {
    problems.push('config error: PROXY_UPSTREAM_JWT_TENANT_CLAIM needs PROXY_UPSTREAM_JWT_SECRET')
  }
  const loginUrl = v.PROXY_AUTH_LOGIN_URL
  if (loginUrl !== undefined && !/^https?:\/\/[^/]/.test(loginUrl)) {
    problems.push(`config error: PROXY_AUTH_LOGIN_URL: ${JSON.stringify(loginUrl)} is not an http(s) URL`)
  }
  problems.push(...oidcProblems(v))
  if ((v.PROXY_TLS_CERT === undefined) !== (v.PROXY_TLS_KEY === undefined)) {
    const [set, missing] =
      v.PROXY_TLS_CERT === undefined ? ['PROXY_TLS_KEY', 'PROXY_TLS_CERT'] : ['PROXY_TLS_CERT', 'PROXY_TLS_KEY']
    problems.push(`config error: ${set} needs ${missing}: TLS takes both a certificate and its key`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return { config: buildConfig(v, upstreams), warnings }
}

/** Every gateway variable with its value and source, for the boot log and `proxy serve --print-config`. */
export function listGatewayVariables(input: GatewayConfigInput): VariableListing[] {
  return listVariables(GATEWAY_SCOPE, engineInput(input))
}
