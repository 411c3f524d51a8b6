/**
 * `queenctl proxy serve` (docs/gateway.md, "Running it"): logs the effective configuration, boots the gateway,
 * listens, and drains on SIGTERM or SIGINT (in-flight requests, long-polls included, get PROXY_SHUTDOWN_TIMEOUT_MS),
 * exiting 0; a second signal cuts the open connections. A boot failure exits 2, a configuration error 1 (the caller).
 * With TLS on, SIGHUP rereads the certificate and key; a pair that does not load leaves the one in use.
 */
import type { Server as TlsServer } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { createLogger } from '../platform/log/logger.js'
import { ConfigError } from '../platform/config/config-error.js'
import { redactSecret } from '../platform/config/resolve-variables.js'
import type { GatewayConfig } from './config/gateway-config.js'
import { buildGateway, closeGateway } from './gateway.js'
import { loadTlsFiles, type TlsFiles } from './tls/tls-files.js'

/** A running gateway. */
export interface RunningGateway {
  readonly app: FastifyInstance
  readonly url: string
  shutdown(reason: string): Promise<number>
}

/** The `config:` lines of the boot log: every setting in effect, secrets redacted. */
export function gatewayConfigLines(config: GatewayConfig): string[] {
  const jwt = config.upstreamJwt
  const oidc = config.people.oidc
  return [
    `config: listener port=${config.port} host=${config.host} max_body_bytes=${config.maxBodyBytes} shutdown_timeout_ms=${config.shutdownTimeoutMs}`,
    `config: brokers upstreams=${config.upstreams.join(',')} tenancy_header=${config.tenancyHeader} health_interval_ms=${config.healthIntervalMs} connections=${config.upstreamConnections} timeout_ms=${config.upstreamTimeoutMs}`,
    `config: broker_tokens ${jwt ? `secret=${redactSecret(jwt.secret)} roles_claim=${jwt.rolesClaim} tenant_claim=${jwt.tenantClaim ?? '<unset>'} issuer=${jwt.issuer ?? '<unset>'} audience=${jwt.audience ?? '<unset>'}` : 'off'}`,
    config.pg.host
      ? `config: database mode=external host=${config.pg.host} port=${config.pg.port} database=${config.pg.database} user=${config.pg.user} password=${redactSecret(config.pg.password)} ssl=${config.pg.useSsl} pool=${config.pg.poolSize}`
      : `config: database mode=embedded data_dir=${config.dataDir} port=${config.embeddedPgPort === 0 ? 'auto' : config.embeddedPgPort} pool=${config.pg.poolSize}`,
    `config: keys last_used_flush_ms=${config.lastUsedFlushMs}`,
    `config: metering flush_ms=${config.meteringFlushMs} metrics_token=${redactSecret(config.metricsToken)}`,
    `config: limits refresh_ms=${config.limits.refreshMs} rate_burst_ms=${config.limits.burstMs} quota_view_ttl_ms=${config.limits.viewTtlMs}`,
    `config: people session_ttl_s=${config.people.sessionTtlS} cookie_domain=${config.people.cookieDomain ?? '<unset>'} login_url=${config.people.loginUrl ?? '<unset>'} redirect_allowlist=${config.people.redirectAllowlist.join(',') || '<empty>'}`,
    `config: oidc ${oidc ? `issuer=${oidc.issuer} client_id=${oidc.clientId} client_secret=${oidc.clientSecret === undefined ? '<unset>' : redactSecret(oidc.clientSecret)} redirect_url=${oidc.redirectUrl} scopes=${oidc.scopes} user_claim=${oidc.userClaim}` : 'off'}`,
    `config: tls ${config.tls ? `cert=${config.tls.certFile} key=${config.tls.keyFile}` : 'off'}`,
    `config: log level=${config.logLevel} json=${config.logJson}`,
  ]
}

/** Boots the gateway and handles signals until it has drained; resolves once it listens. */
export async function serveGateway(
  config: GatewayConfig,
  warnings: readonly string[],
  tls?: TlsFiles,
): Promise<RunningGateway> {
  const log = createLogger({ level: config.logLevel, json: config.logJson, serverId: 'proxy' })
  for (const line of gatewayConfigLines(config)) log.info(line)
  for (const warning of warnings) log.warn(warning)
  // Set once the gateway listens; a signal before that drains it as soon as it is up.
  const state: { running?: RunningGateway } = {}
  let signals = 0
  let pending: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1
    if (signals > 1) {
      log.warn({ signal }, 'second signal: closing connections now')
      if (state.running) state.running.app.server.closeAllConnections()
      else process.exit(2)
      return
    }
    if (!state.running) {
      pending = signal
      return
    }
    void state.running.shutdown(signal).then((code) => process.exit(code))
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const fatal = (error: unknown) => {
    log.fatal({ err: error }, 'panic')
    process.exit(2)
  }
  process.on('uncaughtException', fatal)
  process.on('unhandledRejection', fatal)

  let app: FastifyInstance
  try {
    app = await buildGateway(config, { log, tls })
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    log.fatal({ err: error }, `gateway did not start: ${(error as Error).message}`)
    process.exit(2)
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  if (tls) log.info({ subject: tls.subject, valid_to: tls.validTo }, 'tls: serving HTTPS')
  log.info({ http: `${config.host}:${port}`, tls: tls !== undefined, upstreams: config.upstreams }, 'listening')
  if (config.tls && tls) {
    const paths = config.tls
    process.on('SIGHUP', () => {
      try {
        const fresh = loadTlsFiles(paths)
        ;(app.server as unknown as TlsServer).setSecureContext({ cert: fresh.cert, key: fresh.key })
        log.info({ subject: fresh.subject, valid_to: fresh.validTo }, 'tls: certificate reloaded')
      } catch (error) {
        const reason = error instanceof ConfigError ? error.problems.join('; ') : (error as Error).message
        log.error({ reason }, 'tls: reload failed; the certificate in use stays')
      }
    })
  }
  let shuttingDown: Promise<number> | undefined
  const running: RunningGateway = {
    app,
    url: `${tls ? 'https' : 'http'}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    shutdown(reason) {
      shuttingDown ??= (async () => {
        log.info({ phase: 'draining', reason }, 'shutdown')
        await closeGateway(app, config.shutdownTimeoutMs)
        log.info({ phase: 'stopped', exit_code: 0 }, 'shutdown')
        return 0
      })()
      return shuttingDown
    },
  }
  state.running = running
  if (pending) void running.shutdown(pending).then((code) => process.exit(code))
  return running
}
