/** The gateway's validated, frozen configuration (docs/gateway.md, "Configuration"); built by resolve.ts only. */
export interface GatewayConfig {
  readonly port: number
  readonly host: string
  /** HTTPS with these files (docs/gateway.md, "TLS"); undefined: plain HTTP. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string }
  readonly maxBodyBytes: number
  readonly shutdownTimeoutMs: number
  readonly logLevel: string
  readonly logJson: boolean
  /** Broker base URLs without a trailing slash, in the order given. */
  readonly upstreams: readonly string[]
  readonly tenancyHeader: string
  readonly healthIntervalMs: number
  readonly upstreamConnections: number
  readonly upstreamTimeoutMs: number
  /** Tokens minted for the brokers when they verify JWTs; undefined when they do not. */
  readonly upstreamJwt?: {
    readonly secret: string
    readonly rolesClaim: string
    readonly tenantClaim?: string
    readonly issuer?: string
    readonly audience?: string
  }
  readonly dataDir: string
  readonly embeddedPgPort: number
  readonly pg: {
    /** Unset: the embedded server in `dataDir`. */
    readonly host?: string
    readonly port: number
    readonly user: string
    readonly password: string
    readonly database: string
    readonly useSsl: boolean
    readonly sslRejectUnauthorized: boolean
    readonly sslCa?: string
    readonly poolSize: number
    readonly connectionTimeoutMs: number
    readonly statementTimeoutMs: number
  }
  readonly lastUsedFlushMs: number
  readonly meteringFlushMs: number
  /** Unset: `/proxy/metrics` is off. */
  readonly metricsToken?: string
  /** Quotas and rate limits (docs/gateway.md, "Quotas and rate limits"). */
  readonly limits: {
    /** PROXY_LIMITS_REFRESH_MS. */
    readonly refreshMs: number
    /** PROXY_RATE_LIMIT_BURST_MS. */
    readonly burstMs: number
    /** PROXY_QUOTA_VIEW_TTL_MS. */
    readonly viewTtlMs: number
  }
  /** Users, sessions and sign-in (docs/gateway.md, "People: users, sessions and sign-in"). */
  readonly people: {
    readonly sessionTtlS: number
    readonly cookieDomain?: string
    readonly loginUrl?: string
    /** Lower-cased hosts; one starting with `.` matches its subdomains. */
    readonly redirectAllowlist: readonly string[]
    /** OpenID Connect sign-in; undefined when PROXY_OIDC_ISSUER is unset. */
    readonly oidc?: {
      readonly issuer: string
      readonly clientId: string
      readonly clientSecret?: string
      readonly redirectUrl: string
      readonly scopes: string
      readonly userClaim: 'sub' | 'email'
    }
  }
}
