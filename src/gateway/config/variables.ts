/**
 * The gateway's variable table (docs/gateway.md, "Configuration"): every PROXY_* variable with its type, default,
 * range and description. Its own names, so a gateway next to a broker never reads the broker's PG_* and lands in
 * the brokers' database (docs/gateway.md, "Its database": the gateway has its own).
 */
import path from 'node:path'
import { bool, int, oneOf, opt, str, type HostFacts, type TableValues } from '../../platform/config/variable-table.js'

const MAX_TIMER_MS = 2_147_483_647

/** Default `PROXY_DATA_DIR`: beside the broker's default, never inside it. Root gets a path its PostgreSQL user can enter. */
export function defaultGatewayDataDir(host: HostFacts): string {
  return host.uid === 0 ? '/var/lib/queen/proxy' : path.join(host.homedir, '.queen', 'proxy')
}

export const GATEWAY_VARIABLES = [
  // Listener
  int('PROXY_PORT', 6634, 0, 65535, 'HTTP port of the gateway (0 picks a free port)'),
  str('PROXY_HOST', '0.0.0.0', 'bind address of the gateway'),
  int('PROXY_MAX_BODY_BYTES', 33554432, 1, 4_294_967_295 - 65_536, 'request body limit, bytes (413 above)'),
  int('PROXY_SHUTDOWN_TIMEOUT_MS', 30000, 0, MAX_TIMER_MS, 'drain budget after SIGTERM, ms'),
  oneOf('PROXY_LOG_LEVEL', ['trace', 'debug', 'info', 'warn', 'error'], 'info', 'log level'),
  bool('PROXY_LOG_JSON', false, 'one JSON object per log line instead of text'),
  opt(
    'PROXY_TLS_CERT',
    'PEM certificate chain file: with PROXY_TLS_KEY the gateway serves HTTPS; SIGHUP rereads both',
    {
      defaultText: 'unset (plain HTTP)',
    },
  ),
  opt('PROXY_TLS_KEY', 'PEM private key file of PROXY_TLS_CERT', { defaultText: 'unset (plain HTTP)' }),
  // Brokers
  str('PROXY_UPSTREAMS', 'http://127.0.0.1:6632', 'comma-separated broker URLs (one to three)'),
  str('PROXY_TENANCY_HEADER', 'X-Queen-Tenant', "the brokers' QUEEN_TENANCY_HEADER: set from the key's tenant", {
    format: 'header-name',
  }),
  int('PROXY_HEALTH_INTERVAL_MS', 2000, 100, MAX_TIMER_MS, 'how often each broker is probed on /health, ms'),
  int('PROXY_UPSTREAM_CONNECTIONS', 64, 1, 10_000, 'keep-alive connections per broker'),
  int(
    'PROXY_UPSTREAM_TIMEOUT_MS',
    300000,
    1000,
    MAX_TIMER_MS,
    "wait for a broker's answer headers, ms (above the longest long-poll)",
  ),
  opt(
    'PROXY_UPSTREAM_JWT_SECRET',
    "HS256 secret of the brokers' JWT_SECRET: the gateway mints a short-lived token per request",
    {
      secret: true,
      defaultText: 'unset (brokers without JWT)',
    },
  ),
  str(
    'PROXY_UPSTREAM_JWT_ROLES_CLAIM',
    'role',
    "claim carrying the role in minted tokens (the brokers' JWT_ROLES_CLAIM)",
  ),
  opt(
    'PROXY_UPSTREAM_JWT_TENANT_CLAIM',
    "claim carrying the tenant id in minted tokens (the brokers' QUEEN_TENANCY_CLAIM)",
  ),
  opt('PROXY_UPSTREAM_JWT_ISSUER', "iss of minted tokens (the brokers' JWT_ISSUER)"),
  opt('PROXY_UPSTREAM_JWT_AUDIENCE', "aud of minted tokens (the brokers' JWT_AUDIENCE)"),
  // The gateway's own PostgreSQL (embedded unless PROXY_PG_HOST is set)
  str('PROXY_DATA_DIR', defaultGatewayDataDir, "directory of the gateway's embedded PostgreSQL", {
    defaultText: '/var/lib/queen/proxy as root, else ~/.queen/proxy',
  }),
  int('PROXY_EMBEDDED_PG_PORT', 0, 0, 65535, 'loopback port of the embedded PostgreSQL; 0 = a free port'),
  opt('PROXY_PG_HOST', "host of the gateway's external PostgreSQL", { defaultText: 'unset (embedded server)' }),
  int('PROXY_PG_PORT', 5432, 1, 65535, 'PostgreSQL port'),
  str('PROXY_PG_USER', 'postgres', 'PostgreSQL role'),
  str('PROXY_PG_PASSWORD', 'postgres', 'PostgreSQL password', { secret: true }),
  str('PROXY_PG_DATABASE', 'queen_proxy', "PostgreSQL database (never the brokers')"),
  bool('PROXY_PG_USE_SSL', false, 'connect to PostgreSQL with TLS'),
  bool('PROXY_PG_SSL_REJECT_UNAUTHORIZED', true, 'with TLS, verify the certificate chain and host name'),
  opt('PROXY_PG_SSL_CA', 'path to a PEM file of CA certificates', { defaultText: 'unset (system roots)' }),
  int('PROXY_DB_POOL_SIZE', 10, 1, 1000, 'connections of the gateway pool'),
  int('PROXY_DB_CONNECTION_TIMEOUT', 5000, 100, MAX_TIMER_MS, 'PostgreSQL connect timeout, ms'),
  int('PROXY_DB_STATEMENT_TIMEOUT', 30000, 0, MAX_TIMER_MS, 'statement timeout, ms'),
  int('PROXY_LAST_USED_FLUSH_MS', 30000, 100, MAX_TIMER_MS, "how often keys' last-used times are written, ms"),
  // Metering
  int(
    'PROXY_METERING_FLUSH_MS',
    10000,
    100,
    MAX_TIMER_MS,
    'how often usage counts are written to the database, ms (a crash loses at most this much)',
  ),
  opt('PROXY_METRICS_TOKEN', 'bearer token Prometheus sends to /proxy/metrics; unset: the endpoint is off', {
    secret: true,
    defaultText: 'unset (endpoint off)',
  }),
  // Quotas and rate limits (docs/gateway.md, "Quotas and rate limits")
  int(
    'PROXY_LIMITS_REFRESH_MS',
    500,
    50,
    1500,
    'how often each replica checks for changed quotas and rate limits, ms (a change applies within it)',
  ),
  int(
    'PROXY_RATE_LIMIT_BURST_MS',
    1000,
    100,
    3_600_000,
    "a rate limit's bucket holds this long's worth of its rate, ms",
  ),
  int(
    'PROXY_QUOTA_VIEW_TTL_MS',
    1000,
    100,
    MAX_TIMER_MS,
    "how long a broker's listing of a tenant (queues, partitions, stored messages) is reused for quotas, ms",
  ),
  // People
  int('PROXY_SESSION_TTL_S', 43200, 60, 31_536_000, 'lifetime of a sign-in session, seconds (from /api/login)'),
  opt('PROXY_SESSION_COOKIE_DOMAIN', 'Domain of the session cookie, to share it with sibling hosts (ForwardAuth)', {
    defaultText: 'unset (the host that set it)',
  }),
  opt('PROXY_AUTH_LOGIN_URL', 'sign-in page ForwardAuth sends a browser without a session to (with ?rd=)', {
    defaultText: 'unset (no redirect: 401)',
  }),
  str(
    'PROXY_AUTH_REDIRECT_ALLOWLIST',
    '',
    'comma-separated hosts (exact, or .example.com for subdomains) that sign-in may redirect back to; empty: none',
  ),
  opt('PROXY_OIDC_ISSUER', 'OpenID Connect issuer URL for browser sign-in (https, or http on loopback)', {
    defaultText: 'unset (no OpenID Connect sign-in)',
  }),
  opt('PROXY_OIDC_CLIENT_ID', "the gateway's client id at the OpenID provider"),
  opt('PROXY_OIDC_CLIENT_SECRET', 'its client secret (client_secret_basic); unset: a public client (PKCE only)', {
    secret: true,
  }),
  opt(
    'PROXY_OIDC_REDIRECT_URL',
    "the gateway's callback as the browser reaches it: https://<gateway>/proxy/oidc/callback",
  ),
  str('PROXY_OIDC_SCOPES', 'openid email profile', 'scopes asked of the OpenID provider (space-separated)'),
  oneOf(
    'PROXY_OIDC_USER_CLAIM',
    ['sub', 'email'],
    'sub',
    'how a sign-in finds its user: sub = the user created with --oidc-subject; email = the user named as the verified email',
  ),
] as const

export type GatewayVariableValues = TableValues<typeof GATEWAY_VARIABLES>
export type GatewayVariableName = keyof GatewayVariableValues
