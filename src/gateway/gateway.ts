/**
 * The gateway (`queenctl proxy serve`, docs/gateway.md): one fastify app that checks the API key of every request,
 * rewrites its tenancy, and forwards it to a broker. Its own routes live under `/proxy/`.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import type pg from 'pg'
import type { Logger } from 'pino'
import { BackgroundLoop } from '../platform/jobs/background-loop.js'
import {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
  socketIdleTimeoutMs,
} from '../platform/http/server-limits.js'
import type { GatewayConfig } from './config/gateway-config.js'
import { openGatewayDatabase, type GatewayDatabase } from './gateway-database.js'
import { KeyChangeListener } from './keys/key-change-listener.js'
import { KeyVerifier } from './keys/key-verifier.js'
import { withoutSessionCookie } from './people/cookies.js'
import { registerForwardAuth } from './people/forward-auth.js'
import { registerLoginPage } from './people/login-page.js'
import { OidcSignIn } from './people/oidc.js'
import { registerOidcRoutes } from './people/oidc-routes.js'
import { People } from './people/people.js'
import { registerPeopleRoutes } from './people/people-routes.js'
import { bearerOf, identify, type Caller } from './people/request-identity.js'
import { brokerRoleOf, classifyRoute, roleAllows } from './routing/route-rules.js'
import { touchApiKeys } from './store/api-keys.js'
import { BrokerTokens } from './upstream/broker-token.js'
import { forward, forwardableHeaders, NoUpstreamError } from './upstream/forward.js'
import { UpstreamSet } from './upstream/upstream-set.js'
import type { TlsFiles } from './tls/tls-files.js'
import { gatewayQuery } from './store/run.js'
import { addUsage } from './store/usage.js'
import { GatewayMetrics } from './metering/gateway-metrics.js'
import { RequestMetering } from './metering/request-metering.js'
import { UsageMeter } from './metering/usage-meter.js'
import { brokerGetter } from './limits/broker-get.js'
import { GatewayLimits } from './limits/gateway-limits.js'

/** What the gateway holds while it runs. */
export interface GatewayServices {
  readonly db: GatewayDatabase
  readonly verifier: KeyVerifier
  readonly listener: KeyChangeListener
  readonly upstreams: UpstreamSet
  readonly lastUsed: BackgroundLoop
  /** Writes the hourly usage every PROXY_METERING_FLUSH_MS (docs/gateway.md, "Metering"). */
  readonly meteringFlush: BackgroundLoop
  readonly metrics: GatewayMetrics
  readonly limits: GatewayLimits
  readonly people: People
}

declare module 'fastify' {
  interface FastifyInstance {
    gateway: GatewayServices
  }
}

/** Options of {@link buildGateway}. */
export interface GatewayOptions {
  readonly log: Logger
  /** A database to use instead of the configured one (tests). */
  readonly connection?: pg.ClientConfig
  /** Serve HTTPS with this certificate (docs/gateway.md, "TLS"); SIGHUP swaps it on the listening server. */
  readonly tls?: TlsFiles
}

// The longest a broker holds a long-poll (docs/http-api.md, pop `timeout`), so the socket outlasts it.
const LONGEST_WAIT_MS = 300_000

/** Constant-time comparison of a presented token with the configured one. */
function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false
  const a = createHash('sha256').update(presented).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}

/** A pop, once it reached a broker, took leases: it is never sent twice. */
function isSafeRead(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && !path.startsWith('/api/v1/pop')
}

/** The fastify instance of a gateway (never listens by itself), logging through `log`. */
function createGatewayApp(
  config: Pick<GatewayConfig, 'maxBodyBytes'>,
  log: FastifyBaseLogger,
  tls: TlsFiles | undefined,
): FastifyInstance {
  // Why each value: src/platform/http/server-limits.ts.
  const serverLimits = {
    headersTimeout: HEADERS_TIMEOUT_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  }
  const options = {
    loggerInstance: log,
    bodyLimit: config.maxBodyBytes,
    connectionTimeout: socketIdleTimeoutMs(LONGEST_WAIT_MS),
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
    // A line per forwarded request would be thousands per second.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    pluginTimeout: 0,
  }
  if (!tls) return Fastify({ ...options, http: serverLimits })
  // An https.Server is an http.Server to every route and hook here; only the listener's handshake differs.
  const https = { ...serverLimits, cert: tls.cert, key: tls.key }
  return Fastify({ ...options, https })
}

/**
 * A started loop that writes what was gathered in memory since its previous cycle, and gives it back when the write
 * fails, so it is written by the next cycle instead of lost (last-used times, metering).
 */
function flushLoop<T>(
  name: string,
  intervalMs: number,
  log: Logger,
  batch: { take: () => T; write: (taken: T) => Promise<unknown>; giveBack: (taken: T) => void },
): BackgroundLoop {
  const loop = new BackgroundLoop(
    name,
    intervalMs,
    async () => {
      const taken = batch.take()
      try {
        await batch.write(taken)
      } catch (error) {
        batch.giveBack(taken)
        throw error
      }
    },
    log,
  )
  loop.start()
  return loop
}

/** Builds the gateway app (not listening yet). */
export async function buildGateway(config: GatewayConfig, options: GatewayOptions): Promise<FastifyInstance> {
  const log = options.log
  const db = await openGatewayDatabase(config, log, options.connection)
  const verifierRef: { current?: KeyVerifier; people?: People } = {}
  const listener = new KeyChangeListener(
    db.connection,
    (payload) => {
      verifierRef.current?.changed(payload)
      verifierRef.people?.changed(payload)
    },
    () => {
      verifierRef.current?.forgetStates()
      verifierRef.people?.forgetStates()
    },
    log.child({ component: 'keys' }),
  )
  const verifier = new KeyVerifier(db.pool, () => listener.listening)
  verifierRef.current = verifier
  // Sessions ride on the keys' change channel (docs/gateway.md, "People: users, sessions and sign-in").
  const people = new People(db.pool, () => listener.listening, config.people)
  verifierRef.people = people
  await listener.start()
  const upstreams = new UpstreamSet(
    config.upstreams,
    {
      connections: config.upstreamConnections,
      timeoutMs: config.upstreamTimeoutMs,
      healthIntervalMs: config.healthIntervalMs,
    },
    log.child({ component: 'upstreams' }),
  )
  await upstreams.start()
  const tokens = config.upstreamJwt ? new BrokerTokens(config.upstreamJwt) : undefined
  const jobLog = log.child({ component: 'jobs' })
  const lastUsed = flushLoop('last-used', config.lastUsedFlushMs, jobLog, {
    take: () => verifier.drainUsage(),
    write: (usage) => touchApiKeys(db.pool, usage),
    giveBack: (usage) => verifier.restoreUsage(usage),
  })

  const meter = new UsageMeter()
  const metrics = new GatewayMetrics(() => upstreams.states())
  const metering = new RequestMetering(meter, metrics)
  const meteringFlush = flushLoop('metering', config.meteringFlushMs, jobLog, {
    take: () => meter.drain(),
    write: (rows) => addUsage(db.pool, rows),
    giveBack: (rows) => meter.restore(rows),
  })

  const limits = new GatewayLimits(
    db.pool,
    db.connection,
    config.limits,
    brokerGetter(upstreams, config.tenancyHeader, tokens),
    log.child({ component: 'limits' }),
  )
  await limits.start()

  const app = createGatewayApp(config, log, options.tls)
  app.decorate('gateway', { db, verifier, listener, upstreams, lastUsed, meteringFlush, metrics, limits, people })
  // Bodies pass through as bytes: the brokers validate them.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  app.get('/proxy/health/live', (_request, reply) => reply.send({ status: 'live' }))
  app.get('/proxy/health', async (_request, reply) => {
    let database = 'ok'
    try {
      await gatewayQuery(db.pool, 'healthPing')
    } catch (error) {
      database = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    }
    const brokers = upstreams.states()
    const ok = database === 'ok' && brokers.some((broker) => broker.healthy)
    return reply.code(ok ? 200 : 503).send({
      status: ok ? 'healthy' : 'unhealthy',
      database,
      keyChanges: listener.listening ? 'listening' : 'not listening',
      brokers,
    })
  })
  app.get('/proxy/metrics', async (request, reply) => {
    if (!config.metricsToken) {
      return reply.code(403).send({ error: 'set PROXY_METRICS_TOKEN to enable /proxy/metrics' })
    }
    if (!sameSecret(bearerOf(request), config.metricsToken)) {
      return reply.code(401).send({ error: 'Authentication required' })
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })
  const identifyRequest = (request: FastifyRequest) => identify(request, verifier, people.sessions)
  registerPeopleRoutes(app, people, config.people, identifyRequest)
  registerForwardAuth(app, config.people, identifyRequest)
  const oidc = config.people.oidc ? new OidcSignIn(config.people.oidc, db.pool) : undefined
  registerOidcRoutes(app, people, config.people, oidc, log.child({ component: 'oidc' }))
  registerLoginPage(app, config.people, () => oidc !== undefined)
  app.all('/*', (request, reply) => proxyRequest(request, reply))

  async function proxyRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const startedAt = performance.now()
    const requestBody = Buffer.isBuffer(request.body) ? request.body : undefined
    const queryAt = request.url.indexOf('?')
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt)
    const route = classifyRoute(request.method, path)
    if (route.kind === 'unknown') {
      return reply.code(404).send({ error: `Route ${request.method} ${path} not found` })
    }
    let identity: Caller | undefined
    if (route.kind !== 'public') {
      // A bearer key or session token, else the session cookie: a person counts as a key of their tenant and role.
      const verdict = await identifyRequest(request)
      if (verdict === undefined) {
        return reply
          .code(401)
          .send(metering.answered(undefined, 401, 'no_credentials', startedAt, 0, { error: 'Authentication required' }))
      }
      if (!verdict.ok) {
        return reply
          .code(verdict.status)
          .send(
            metering.answered(
              undefined,
              verdict.status,
              verdict.error.toLowerCase().replace(/\W+/g, '_'),
              startedAt,
              0,
              { error: verdict.error },
            ),
          )
      }
      identity = verdict.caller
      if (route.kind === 'operator') {
        return reply.code(403).send(
          metering.answered(identity, 403, 'operator_route', startedAt, requestBody?.length ?? 0, {
            error: 'operator-only route',
          }),
        )
      }
      if (!roleAllows(identity.role, route.action, path)) {
        return reply.code(403).send(
          metering.answered(identity, 403, 'role', startedAt, requestBody?.length ?? 0, {
            error: 'Insufficient permissions',
          }),
        )
      }
    }
    // Quotas and rate limits (docs/gateway.md, "Quotas and rate limits"): a refused request never reaches a broker.
    const admission = identity
      ? await limits.admit({ tenantId: identity.tenantId, keyId: identity.key?.id }, request.method, path, requestBody)
      : undefined
    if (admission && !admission.ok) {
      const reason =
        admission.status === 503 ? 'limits_unavailable' : 'quota' in admission.body ? 'quota' : 'rate_limit'
      return reply
        .code(admission.status)
        .headers(admission.headers)
        .send(
          metering.answered(identity, admission.status, reason, startedAt, requestBody?.length ?? 0, admission.body),
        )
    }
    // The client's own tenancy header and credentials never reach a broker: the key decides the tenant.
    const headers = forwardableHeaders(request.headers, [config.tenancyHeader, 'authorization'])
    headers['x-forwarded-for'] = request.ip
    const cookie = withoutSessionCookie(typeof headers.cookie === 'string' ? headers.cookie : undefined)
    if (cookie === undefined) delete headers.cookie
    else headers.cookie = cookie
    if (identity) {
      headers[config.tenancyHeader.toLowerCase()] = identity.tenantId
      if (tokens) {
        const token = await tokens.token(identity.tenantId, brokerRoleOf(identity.role), identity.subject)
        headers.authorization = `Bearer ${token}`
      }
    }
    const aborter = new AbortController()
    // A client that leaves (a long-poll given up) releases the broker's request too.
    const onClose = () => {
      if (!reply.raw.writableFinished) aborter.abort()
    }
    reply.raw.on('close', onClose)
    try {
      const answer = await forward(upstreams, {
        method: request.method,
        url: request.url,
        headers,
        body: requestBody,
        retrySafe: isSafeRead(request.method, path),
        signal: aborter.signal,
      })
      answer.body.on('error', () => undefined)
      admission?.settle(answer.statusCode)
      const body = await metering.body(identity, { method: request.method, path, body: requestBody }, answer, startedAt)
      return reply.code(answer.statusCode).headers(answer.headers).send(body)
    } catch (error) {
      // No answer: whether a broker stored anything is unknown, so nothing is given back.
      admission?.settle(0)
      if (aborter.signal.aborted) {
        return reply.code(499).send(
          metering.answered(identity, 499, 'client_closed', startedAt, requestBody?.length ?? 0, {
            error: 'client closed request',
          }),
        )
      }
      if (error instanceof NoUpstreamError) {
        log.warn({ path, reason: error.message }, 'no broker answered')
        return reply.code(error.status).send(
          metering.answered(identity, error.status, 'no_broker', startedAt, requestBody?.length ?? 0, {
            error: error.message,
          }),
        )
      }
      throw error
    }
  }

  app.addHook('onClose', async () => {
    await lastUsed.stop()
    await lastUsed.runOnce().catch(() => undefined)
    // The last counts, once every request has been answered.
    await meteringFlush.stop()
    await meteringFlush.runOnce().catch(() => undefined)
    await limits.close()
    await listener.close()
    await upstreams.close()
    await db.close()
  })
  return app
}

/**
 * Closes the gateway: in-flight requests (long-polls included) get `budgetMs` to finish, then are cut. A keep-alive
 * connection whose request finishes during the drain goes idle and is closed then, not at its keep-alive timeout.
 */
export async function closeGateway(app: FastifyInstance, budgetMs: number): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100)
  const cut = setTimeout(() => app.server.closeAllConnections(), budgetMs)
  cut.unref()
  try {
    await app.close()
  } finally {
    clearInterval(sweep)
    clearTimeout(cut)
  }
}
